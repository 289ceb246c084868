"""Settings' MCP box: which ``mcp.json`` file gives the chats their tools (Claude Desktop's and LM Studio's read too).

The file is chosen, typed, or taken from where Claude Desktop or LM Studio
keep theirs; ``chosen`` carries the path ("" for none) and the window reads it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

# Where other apps keep an mcp.json-shaped file this one reads as it is.
KNOWN_FILES = (
    Path.home() / ".config" / "Claude" / "claude_desktop_config.json",
    Path.home() / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json",
    Path.home() / ".lmstudio" / "mcp.json",
)


class McpBox(QGroupBox):
    """The MCP configuration file: a path, Choose…, and Import from Claude Desktop / LM Studio."""

    chosen = Signal(str)  # the file's path, "" for none

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("MCP servers"))
        layout = QVBoxLayout(self)
        self.path = QLineEdit()
        self.path.setPlaceholderText(self.tr("mcp.json (none: no tools)"))
        self.path.setAccessibleName(self.tr("MCP configuration file"))
        self.path.setMinimumWidth(80)  # the panel is narrow: the path scrolls inside its field
        self.path.editingFinished.connect(lambda: self.chosen.emit(self.path.text().strip()))
        layout.addWidget(self.path)
        row = QHBoxLayout()
        self.choose = QPushButton(self.tr("Choose…"))
        self.choose.clicked.connect(self._choose)
        row.addWidget(self.choose)
        self.import_button = QPushButton(self.tr("Import…"))
        self.import_button.setToolTip(self.tr("Use Claude Desktop's or LM Studio's MCP file"))
        self.import_button.clicked.connect(self.import_known)
        row.addWidget(self.import_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.hide()
        layout.addWidget(self.status)

    def set_path(self, path: str) -> None:
        """Show ``path`` without emitting (the window restoring what was saved)."""
        self.path.setText(path)

    def set_status(self, line: str) -> None:
        """The one line under the box: the servers found, or why the file cannot be used."""
        self.status.setText(line)
        self.status.setVisible(bool(line))

    def import_known(self) -> None:
        """Use the first file Claude Desktop or LM Studio keeps here; say so when there is none."""
        found = next((p for p in KNOWN_FILES if p.is_file()), None)
        if found is None:
            self.set_status(self.tr("Neither Claude Desktop's nor LM Studio's MCP file is on this computer."))
            return
        self.path.setText(str(found))
        self.chosen.emit(str(found))

    def _choose(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, self.tr("MCP configuration"), "", self.tr("JSON (*.json)"))
        if name:
            self.path.setText(name)
            self.chosen.emit(name)
