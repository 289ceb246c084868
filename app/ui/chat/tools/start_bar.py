"""The bar above the chat that asks whether an MCP server may start, its command shown: inside the window, never modal.

The command is shown with its environment in front, secret-looking values
masked (:attr:`~app.core.tools.mcp_config.McpServerConfig.shown_start`); the
answer is remembered for that command with that environment, so a changed
value is asked about again. A remote server is asked about the same way, by
its address and headers (an ``Authorization`` value masked); one whose
headers give no ``Authorization`` offers a password field for its key.

A server whose command the user has not confirmed before waits here (one at
a time, the rest queued) instead of in a dialog before the window is drawn.
Allow starts it and remembers the command (Settings lists it, with Remove);
Not now leaves it stopped until the configuration is chosen again.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from app.core.display.terminal_text import visible
from app.core.tools.mcp_config import McpServerConfig


class StartBar(QFrame):
    """Asks about one server at a time; ``answered`` carries the server, the answer (True: let it start) and a key.

    For a remote server whose headers give no ``Authorization`` a password
    field takes its key ("" when none was typed); the flow keeps it in the
    key store, never in the settings.
    """

    answered = Signal(object, bool, str)  # McpServerConfig, allowed, the key typed for it ("" for none)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(self.tr("MCP server start"))
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        self.text = QLabel()
        self.text.setTextFormat(Qt.TextFormat.PlainText)  # a command line is data, never markup
        self.text.setWordWrap(True)
        row.addWidget(self.text, 1)
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText(self.tr("Key, if it needs one"))
        self.key.setAccessibleName(self.tr("Key for the MCP server"))
        self.key.setToolTip(self.tr("Sent as its Authorization header; kept where the remote servers' keys are kept"))
        row.addWidget(self.key)
        self.allow = QPushButton(self.tr("Allow"))
        self.allow.setToolTip(
            self.tr("Start it now and whenever this command is configured (Settings can take it back)")
        )
        self.deny = QPushButton(self.tr("Not now"))
        row.addWidget(self.allow)
        row.addWidget(self.deny)
        self.allow.clicked.connect(lambda: self._answer(True))
        self.deny.clicked.connect(lambda: self._answer(False))
        self.key.returnPressed.connect(lambda: self._answer(True))
        self.queue: list[McpServerConfig] = []
        self.hide()

    def ask(self, servers: list[McpServerConfig]) -> None:
        """Ask about ``servers`` in turn (replacing any still waiting)."""
        self.queue = list(servers)
        self._show_first()

    def _show_first(self) -> None:
        if not self.queue:
            self.hide()
            return
        server = self.queue[0]
        if server.remote:
            asked = self.tr("Connect to the MCP server {name}? Its tools run at this address: {command}")
        else:
            asked = self.tr("Start the MCP server {name}? It runs this command on this computer: {command}")
        self.text.setText(asked.format(name=repr(server.name), command=visible(server.shown_start)))
        self.key.clear()
        self.key.setVisible(server.needs_key)
        self.show()

    def _answer(self, allowed: bool) -> None:
        if not self.queue:
            return
        server = self.queue.pop(0)
        key = self.key.text().strip() if allowed and server.needs_key else ""
        self._show_first()
        self.answered.emit(server, allowed, key)
