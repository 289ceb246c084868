"""The two questions tools ask the user: may this MCP server start (its command shown), and may this call run.

Both show what they are about as plain text (a command line or a call's
arguments from a model are data, never markup), and both default to the safe
answer: closing the call dialog denies the call, and a server not confirmed
does not start.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QMessageBox, QPlainTextEdit, QVBoxLayout, QWidget

from app.core.terminal_text import visible
from app.core.tools.mcp_config import McpServerConfig
from app.core.tools.records import ToolCall
from app.core.tools.turns import Approval


def _tr(text: str) -> str:
    return QCoreApplication.translate("ToolDialogs", text)


def confirm_server_start(parent: QWidget | None, server: McpServerConfig) -> bool:
    """Show the server's command before its first start; True when the user lets it run."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(_tr("Start MCP server?"))
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(_tr("The MCP server {name} will run this command on this computer:").format(name=repr(server.name)))
    box.setInformativeText(visible(server.command_line))
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    return box.exec() == QMessageBox.StandardButton.Yes


class ToolCallDialog(QDialog):
    """A call the model made: its tool and arguments, and Allow once / Always in this chat / Deny."""

    def __init__(self, call: ToolCall, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Run a tool?"))
        self.answer = Approval.DENY  # closing the dialog is a refusal
        layout = QVBoxLayout(self)
        title = QLabel(self.tr("The model asks to run the tool {name} with these arguments:").format(name=call.name))
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setWordWrap(True)
        layout.addWidget(title)
        self.arguments = QPlainTextEdit(_pretty(call.arguments))
        self.arguments.setReadOnly(True)
        self.arguments.setAccessibleName(self.tr("Arguments"))
        layout.addWidget(self.arguments)
        buttons = QDialogButtonBox()
        self.allow_once = buttons.addButton(self.tr("Allow once"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.always = buttons.addButton(self.tr("Always in this chat"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.deny = buttons.addButton(self.tr("Deny"), QDialogButtonBox.ButtonRole.RejectRole)
        self.allow_once.clicked.connect(lambda: self._answer(Approval.ALLOW_ONCE))
        self.always.clicked.connect(lambda: self._answer(Approval.ALWAYS_IN_CHAT))
        self.deny.clicked.connect(lambda: self._answer(Approval.DENY))
        self.deny.setDefault(True)
        layout.addWidget(buttons)

    def _answer(self, approval: Approval) -> None:
        self.answer = approval
        self.done(0)


def ask_call(parent: QWidget | None, call: ToolCall) -> Approval:
    """Ask about one call (modal); Deny when the dialog is closed."""
    dialog = ToolCallDialog(call, parent)
    dialog.exec()
    return dialog.answer


def _pretty(arguments: str) -> str:
    """The arguments indented for reading; as written when they are not JSON, control characters made visible."""
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except ValueError:
        return visible(arguments)
