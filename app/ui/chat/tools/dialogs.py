"""The question each call asks the user: may this call run (once, for the rest of the chat, or not).

The call's arguments are shown as plain text (a model's arguments are data,
never markup), and closing the dialog denies the call. A tool that may change
things offers no "Always in this chat": it is asked about before every call.
(Whether a server may start is asked in the bar above the chat, :mod:`.start_bar`.)
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from app.core.display.terminal_text import visible
from app.core.tools.records import ToolCall
from app.core.tools.turns import Approval


class ToolCallDialog(QDialog):
    """A call the model made: its tool and arguments, and Allow once / Always in this chat / Deny.

    ``writes``: the tool may change things; the dialog says so and has no "Always in this chat".
    """

    def __init__(self, call: ToolCall, parent: QWidget | None = None, writes: bool = False) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Run a tool?"))
        self.answer = Approval.DENY  # closing the dialog is a refusal
        layout = QVBoxLayout(self)
        title = QLabel(self.tr("The model asks to run the tool {name} with these arguments:").format(name=call.name))
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setWordWrap(True)
        layout.addWidget(title)
        if writes:
            warning = QLabel(self.tr("This tool may change or delete things; it is asked about before every call."))
            warning.setWordWrap(True)
            layout.addWidget(warning)
        self.arguments = QPlainTextEdit(_pretty(call.arguments))
        self.arguments.setReadOnly(True)
        self.arguments.setAccessibleName(self.tr("Arguments"))
        layout.addWidget(self.arguments)
        buttons = QDialogButtonBox()
        self.allow_once = buttons.addButton(self.tr("Allow once"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.always = buttons.addButton(self.tr("Always in this chat"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.always.setVisible(not writes)
        self.deny = buttons.addButton(self.tr("Deny"), QDialogButtonBox.ButtonRole.RejectRole)
        self.allow_once.clicked.connect(lambda: self._answer(Approval.ALLOW_ONCE))
        self.always.clicked.connect(lambda: self._answer(Approval.ALWAYS_IN_CHAT))
        self.deny.clicked.connect(lambda: self._answer(Approval.DENY))
        self.deny.setDefault(True)
        layout.addWidget(buttons)

    def _answer(self, approval: Approval) -> None:
        self.answer = approval
        self.done(0)


def ask_call(parent: QWidget | None, call: ToolCall, writes: bool = False) -> Approval:
    """Ask about one call (modal); Deny when the dialog is closed."""
    dialog = ToolCallDialog(call, parent, writes)
    dialog.exec()
    return dialog.answer


def _pretty(arguments: str) -> str:
    """The arguments indented for reading; as written when they are not JSON, control characters made visible."""
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except ValueError:
        return visible(arguments)
