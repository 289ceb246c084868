"""Editing an assistant reply: its text in a dialog; saving stores the edit as a new sibling of the reply.

A user message is edited in the prompt box, because sending it asks for a
new reply. An edited reply asks for nothing: the user corrects what the
model wrote (a wrong fact, a prefill for the next turn), and later replies
read the corrected text as the assistant's turn. The original stays as the
sibling before it, reachable with the branch switcher, as with every edit.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget


class ReplyEditDialog(QDialog):
    """The reply's text to change; :attr:`saved` carries the reply's id and the new text (only when it changed)."""

    saved = Signal(int, str)

    def __init__(self, message_id: int, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message_id = message_id
        self._original = text
        self.setWindowTitle(self.tr("Edit reply"))
        self.setObjectName("replyEditDialog")
        layout = QVBoxLayout(self)
        note = QLabel(
            self.tr(
                "Saving keeps the model's reply and adds yours beside it (‹ › switch between them). "
                "Later replies read your text as the assistant's."
            )
        )
        note.setWordWrap(True)
        layout.addWidget(note)
        self.editor = QPlainTextEdit(text)
        self.editor.setObjectName("replyEditText")
        layout.addWidget(self.editor, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._save)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.editor.textChanged.connect(self._update_save)
        self._update_save()
        self.resize(640, 420)

    def _update_save(self) -> None:
        text = self.editor.toPlainText()
        button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        button.setEnabled(bool(text.strip()) and text != self._original)

    def _save(self) -> None:
        text = self.editor.toPlainText()
        if not text.strip() or text == self._original:
            return
        self.accept()
        self.saved.emit(self.message_id, text)
