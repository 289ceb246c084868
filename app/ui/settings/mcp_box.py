"""Settings' MCP box: which ``mcp.json`` file gives the chats their tools (Claude Desktop's and LM Studio's read too).

The file is chosen, typed, or taken from where Claude Desktop or LM Studio
keep theirs; ``chosen`` carries the path ("" for none) and the window reads it.
Under it, "Servers allowed to start" lists the commands the user confirmed
once, each as the configuration file gives it (secrets masked): what is
stored is only a keyed digest (:meth:`~app.core.tools.mcp_config.McpServerConfig.start_key`).
Remove takes a confirmation back (``revoked`` carries its start key), so that
server is asked about again before it next starts. "Forget saved key", for a
remote server that may be sent a key the user typed, deletes that key from
where keys are kept (``key_forgotten`` carries the server's address). "Tool-call format" names
the dialect a model writes calls in over the one its chat template says
(``format_chosen`` carries its name, "" for the template's); it applies from
the next model loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.display.terminal_text import visible
from app.core.tools.call_stream import ToolFormat
from app.ui.settings.folders import FolderKind, LastFolders

# Where other apps keep an mcp.json-shaped file this one reads as it is.
KNOWN_FILES = (
    Path.home() / ".config" / "Claude" / "claude_desktop_config.json",
    Path.home() / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json",
    Path.home() / ".lmstudio" / "mcp.json",
)


# The dialects by the families that write them (not translated: the names are the families').
_FORMAT_LABELS = {
    ToolFormat.HERMES: "Hermes JSON (Qwen2.5, Qwen3, Hermes)",
    ToolFormat.XML: "XML parameters (Qwen3-Coder)",
    ToolFormat.LLAMA3: "Llama 3.x JSON",
    ToolFormat.MISTRAL: "Mistral [TOOL_CALLS]",
    ToolFormat.HARMONY: "Harmony (gpt-oss)",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class AllowedStart:
    """One confirmed server in Settings' list: its stored start key, and the line shown for it."""

    key: str  # the digest the confirmation is stored as
    shown: str  # the command with its environment masked, from the configuration (or words for one not in it)
    address: str = ""  # a remote server's url, where a key the user typed may be saved for it ("": none can be)


class McpBox(QGroupBox):
    """The MCP configuration file: a path, Choose…, and Import from Claude Desktop / LM Studio."""

    chosen = Signal(str)  # the file's path, "" for none
    revoked = Signal(str)  # the start key of a server command no longer allowed to start unasked
    key_forgotten = Signal(str)  # the address of a remote server whose saved key is to be deleted
    format_chosen = Signal(str)  # the tool-call format's name, "" for the one the model's template says

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folders = LastFolders()  # where Choose… opens (the window gives the one its settings keep)
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
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # servers' notices quote what they wrote: data, never markup
        self.status.setWordWrap(True)
        self.status.hide()
        layout.addWidget(self.status)
        self.allowed_title = QLabel(self.tr("Servers allowed to start"))
        layout.addWidget(self.allowed_title)
        self.allowed = QListWidget()
        self.allowed.setAccessibleName(self.tr("MCP server commands allowed to start"))
        self.allowed.setMaximumHeight(90)
        layout.addWidget(self.allowed)
        self.remove = QPushButton(self.tr("Remove"))
        self.remove.setToolTip(self.tr("Ask again before this server next starts"))
        self.remove.clicked.connect(self._remove)
        self.forget_key = QPushButton(self.tr("Forget saved key"))
        self.forget_key.setToolTip(self.tr("Delete the key saved for this server; it is asked about again"))
        self.forget_key.clicked.connect(self._forget_key)
        self.allowed.currentRowChanged.connect(self._selected)
        layout.addWidget(self.remove)
        layout.addWidget(self.forget_key)  # under Remove, not beside it: the side panel may be narrow
        self.format_title = QLabel(self.tr("Tool-call format"))
        layout.addWidget(self.format_title)
        self.format = QComboBox()
        # Its longest item is wider than the side panel at its narrowest: shown elided, listed whole when opened.
        self.format.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.format.setMinimumContentsLength(12)
        self.format.setAccessibleName(self.tr("Tool-call format"))
        self.format.setToolTip(self.tr("How the model writes tool calls; applies when a model is next loaded"))
        self.format.addItem(self.tr("From the model's template"), "")
        for fmt, label in _FORMAT_LABELS.items():
            self.format.addItem(label, fmt.value)
        self.format_title.setBuddy(self.format)
        self.format.activated.connect(lambda index: self.format_chosen.emit(self.format.itemData(index)))
        layout.addWidget(self.format)
        self.set_allowed(())

    def set_format(self, name: str) -> None:
        """Show the format ``name`` ("" or an unknown name: the template's) without emitting."""
        index = self.format.findData(name)
        self.format.setCurrentIndex(max(index, 0))

    def set_allowed(self, entries: Sequence[AllowedStart]) -> None:
        """List the server commands the user let start."""
        self.allowed.clear()
        self._keys = [entry.key for entry in entries]
        self._addresses = [entry.address for entry in entries]
        for entry in entries:
            self.allowed.addItem(visible(entry.shown))
        for widget in (self.allowed_title, self.allowed, self.remove):
            widget.setVisible(bool(self._keys))
        self.forget_key.setVisible(any(self._addresses))
        self._selected(self.allowed.currentRow())

    def _selected(self, row: int) -> None:
        self.remove.setEnabled(row >= 0)
        self.forget_key.setEnabled(0 <= row < len(self._addresses) and bool(self._addresses[row]))

    def _remove(self) -> None:
        row = self.allowed.currentRow()
        if 0 <= row < len(self._keys):
            self.revoked.emit(self._keys[row])

    def _forget_key(self) -> None:
        row = self.allowed.currentRow()
        if 0 <= row < len(self._addresses) and self._addresses[row]:
            self.key_forgotten.emit(self._addresses[row])

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
        start = self.folders.start(FolderKind.CONFIGS)
        name, _ = QFileDialog.getOpenFileName(self, self.tr("MCP configuration"), start, self.tr("JSON (*.json)"))
        if name:
            self.folders.remember(FolderKind.CONFIGS, name)
            self.path.setText(name)
            self.chosen.emit(name)
