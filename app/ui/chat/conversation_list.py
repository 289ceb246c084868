"""The sidebar: saved conversations, newest first, with new, rename, delete and export."""

from __future__ import annotations

import time

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QMenu, QPushButton, QVBoxLayout, QWidget

from app.engine.store.conversations import ConversationSummary

_ID_ROLE = int(Qt.ItemDataRole.UserRole) + 1


def _when(timestamp: float) -> str:
    now = time.time()
    if now - timestamp < 86_400:
        return time.strftime("%H:%M", time.localtime(timestamp))
    return time.strftime("%d %b", time.localtime(timestamp))


class ConversationList(QWidget):
    """A list of conversations; selecting one asks the window to open it."""

    opened = Signal(int)
    new_requested = Signal()
    rename_requested = Signal(int)
    delete_requested = Signal(int)
    export_requested = Signal(int, str)  # id, "markdown" or "json"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.new_button = QPushButton("New chat")
        self.new_button.setToolTip("Ctrl+N")
        self.list = QListWidget()
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(False)
        self.list.setSpacing(1)
        layout.addWidget(self.new_button)
        layout.addWidget(self.list, 1)
        self.new_button.clicked.connect(self.new_requested)
        self.list.currentItemChanged.connect(self._current_changed)
        self.list.customContextMenuRequested.connect(self._menu)
        self._quiet = False

    def set_conversations(self, conversations: list[ConversationSummary], current: int | None) -> None:
        """Show ``conversations`` and select ``current`` without reopening it."""
        self._quiet = True
        try:
            self.list.clear()
            for conversation in conversations:
                item = QListWidgetItem(f"{conversation.title}\n{_when(conversation.updated)}")
                item.setData(_ID_ROLE, conversation.id)
                item.setToolTip(f"{conversation.title} ({conversation.message_count} messages)")
                self.list.addItem(item)
                if conversation.id == current:
                    self.list.setCurrentItem(item)
        finally:
            self._quiet = False

    def _current_changed(self, item: QListWidgetItem | None, previous: QListWidgetItem | None) -> None:
        if item is not None and not self._quiet:
            self.opened.emit(int(item.data(_ID_ROLE)))

    def _menu(self, pos: QPoint) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        conversation = int(item.data(_ID_ROLE))
        menu = QMenu(self)
        menu.addAction("Rename…", lambda: self.rename_requested.emit(conversation))
        menu.addAction("Export as Markdown…", lambda: self.export_requested.emit(conversation, "markdown"))
        menu.addAction("Export as JSON…", lambda: self.export_requested.emit(conversation, "json"))
        menu.addSeparator()
        menu.addAction("Delete", lambda: self.delete_requested.emit(conversation))
        menu.exec(self.list.viewport().mapToGlobal(pos))
