"""An attachment's extracted text, as the chat keeps it: read-only, searchable, with its pages or files listed.

This is what the model was given (or could be given): the text the reader
extracted, not the original file, which may have moved or gone since. The
list on the left names the sections (a PDF's pages, a folder's files); a
click scrolls the text there. Ctrl+F opens the search line (Enter: next,
Shift+Enter: previous). The notes say what extraction changed or left out
("encoding guessed: cp1252", "12 files left out"). A reply's citation
("report.pdf p. 3") opens the dialog scrolled to that passage.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QKeySequence, QShortcut, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.attachments.record import Attachment
from app.core.display.units import format_bytes


class AttachmentDialog(QDialog):
    """The text of one attachment, with its sections, its notes and a search line."""

    def __init__(self, attachment: Attachment, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attachment = attachment
        self.setWindowTitle(self.tr("{name} — attached text").format(name=attachment.name))
        self.resize(820, 600)
        layout = QVBoxLayout(self)
        facts = self.tr("{kind} · {size} · {count} characters").format(
            kind=attachment.kind.value, size=format_bytes(attachment.size), count=f"{len(attachment.text):,}"
        )
        if attachment.encoding:
            facts += f" · {attachment.encoding}"
        self.facts = QLabel(facts)
        layout.addWidget(self.facts)
        self.notes = QLabel("\n".join(f"⚠ {note}" for note in attachment.notes))
        self.notes.setWordWrap(True)
        self.notes.setAccessibleName(self.tr("Attachment notes"))
        self.notes.setVisible(bool(attachment.notes))
        layout.addWidget(self.notes)
        self.sections = QListWidget()
        self.sections.setAccessibleName(self.tr("Sections"))
        for section in attachment.sections:
            item = QListWidgetItem(section.label)
            item.setData(Qt.ItemDataRole.UserRole, section.start)
            self.sections.addItem(item)
        self.sections.itemActivated.connect(self._go_to_item)
        self.sections.itemClicked.connect(self._go_to_item)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setAccessibleName(self.tr("Attached text"))
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setPlainText(attachment.text)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.sections)
        splitter.addWidget(self.text)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([160, 640])
        self.sections.setVisible(bool(attachment.sections))
        layout.addWidget(splitter, 1)
        search_row = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Find in the text (Enter: next, Shift+Enter: previous)"))
        self.search.setAccessibleName(self.tr("Find in attachment"))
        self.search.returnPressed.connect(lambda: self.find_text(self.search.text()))
        self.found = QLabel("")
        search_row.addWidget(self.search, 1)
        search_row.addWidget(self.found)
        self.search_bar = QWidget()
        self.search_bar.setLayout(search_row)
        self.search_bar.hide()
        layout.addWidget(self.search_bar)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        find = QShortcut(QKeySequence.StandardKey.Find, self)
        find.activated.connect(self.open_search)
        previous = QShortcut(QKeySequence("Shift+Return"), self.search)
        previous.activated.connect(lambda: self.find_text(self.search.text(), backward=True))

    def open_search(self) -> None:
        """Show the search line and put the caret in it (Ctrl+F)."""
        self.search_bar.show()
        self.search.setFocus()
        self.search.selectAll()

    def find_text(self, needle: str, backward: bool = False) -> bool:
        """Select the next (or previous) place ``needle`` occurs, wrapping round; False when it does not occur."""
        if not needle:
            return False
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        if self.text.find(needle, flags):
            self.found.setText("")
            return True
        cursor = self.text.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End if backward else QTextCursor.MoveOperation.Start)
        self.text.setTextCursor(cursor)
        if self.text.find(needle, flags):
            self.found.setText(self.tr("wrapped round"))
            return True
        self.found.setText(self.tr("not found"))
        return False

    def scroll_to(self, offset: int) -> None:
        """Put the caret at character ``offset`` and show that part of the text at the top."""
        cursor = self.text.textCursor()
        cursor.setPosition(max(0, min(offset, len(self.attachment.text))))
        self.text.setTextCursor(cursor)
        # Scroll to the end first, then back: the passage ends up at the top, not the bottom.
        self.text.verticalScrollBar().setValue(self.text.verticalScrollBar().maximum())
        self.text.ensureCursorVisible()

    def show_citation(self, citation: str) -> bool:
        """Scroll to the section a citation names ("p. 3", "report.pdf, p. 3", "report.pdf/src/a.py")."""
        name = self.attachment.name
        label = citation
        for prefix in (f"{name}, ", f"{name}/", f"{name} "):
            if citation.startswith(prefix):
                label = citation[len(prefix) :]
                break
        for row, section in enumerate(self.attachment.sections):
            if section.label == label:
                self.sections.setCurrentRow(row)
                self.scroll_to(section.start)
                return True
        return False

    def _go_to_item(self, item: QListWidgetItem) -> None:
        self.scroll_to(int(item.data(Qt.ItemDataRole.UserRole)))
