"""The sidebar: saved conversations grouped by date under a search box, pinned ones on top.

Groups as chat apps have them: Pinned, Today, Yesterday, Previous 7 days,
Previous 30 days, Older (by the day of the last activity, in local time).
Each group is a header row of a QTreeWidget that cannot be selected; the
conversations are its children. The context menu renames, pins, exports and
deletes; a deleted chat goes to the store's trash and the bar under the list
offers Undo for a few seconds.
"""

from __future__ import annotations

import datetime as dt
import time

from PySide6.QtCore import QDateTime, QLocale, QPoint, Qt, Signal
from PySide6.QtGui import QFont, QKeySequence
from PySide6.QtWidgets import QMenu, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from app.engine.store.conversations import ConversationSummary
from app.ui.chat.sidebar.search import ChatSearch
from app.ui.chat.sidebar.undo_bar import UndoBar
from app.ui.i18n import QT_TRANSLATE_NOOP

_ID_ROLE = int(Qt.ItemDataRole.UserRole) + 1
# The English names are the keys; the headings show them translated.
GROUPS = (
    QT_TRANSLATE_NOOP("ConversationList", "Pinned"),
    QT_TRANSLATE_NOOP("ConversationList", "Today"),
    QT_TRANSLATE_NOOP("ConversationList", "Yesterday"),
    QT_TRANSLATE_NOOP("ConversationList", "Previous 7 days"),
    QT_TRANSLATE_NOOP("ConversationList", "Previous 30 days"),
    QT_TRANSLATE_NOOP("ConversationList", "Older"),
)


def date_group(conversation: ConversationSummary, now: float | None = None) -> str:
    """The sidebar group a conversation belongs to (one of :data:`GROUPS`)."""
    if conversation.pinned:
        return "Pinned"
    today = dt.date.fromtimestamp(time.time() if now is None else now)
    days = (today - dt.date.fromtimestamp(conversation.updated)).days
    if days <= 0:
        return "Today"
    if days == 1:
        return "Yesterday"
    if days <= 7:
        return "Previous 7 days"
    if days <= 30:
        return "Previous 30 days"
    return "Older"


def _when(timestamp: float) -> str:
    now = time.time()
    if now - timestamp < 86_400:
        return time.strftime("%H:%M", time.localtime(timestamp))
    # The day and the month's short name in the window's language ("3 Dec", "3. Dez.").
    return QLocale().toString(QDateTime.fromSecsSinceEpoch(int(timestamp)).date(), "d MMM")


class ConversationList(QWidget):
    """Conversations by date group; choosing one asks the window to open it."""

    opened = Signal(int)
    new_requested = Signal()
    rename_requested = Signal(int)
    delete_requested = Signal(int)
    pin_requested = Signal(int, bool)
    export_requested = Signal(int, str)  # id, "markdown" or "json"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.new_button = QPushButton(self.tr("New chat"))
        self.new_button.setToolTip(
            QKeySequence(QKeySequence.StandardKey.New).toString(QKeySequence.SequenceFormat.NativeText)
        )
        self.search = ChatSearch()
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setIndentation(6)
        self.tree.setWordWrap(True)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.setAccessibleName(self.tr("Chats"))
        self.undo = UndoBar()
        layout.addWidget(self.new_button)
        layout.addWidget(self.search)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.undo)
        self.new_button.clicked.connect(self.new_requested)
        self.tree.currentItemChanged.connect(self._current_changed)
        self.tree.customContextMenuRequested.connect(self._menu)
        self.search.searching.connect(lambda on: self.tree.setVisible(not on))
        self._pinned: dict[int, bool] = {}
        self._quiet = False

    def set_conversations(self, conversations: list[ConversationSummary], current: int | None) -> None:
        """Show ``conversations`` by group and select ``current`` without reopening it."""
        self._quiet = True
        try:
            self.tree.clear()
            self._pinned = {c.id: c.pinned for c in conversations}
            groups: dict[str, QTreeWidgetItem] = {}
            bold = QFont(self.font())
            bold.setBold(True)
            for conversation in conversations:
                name = date_group(conversation)
                header = groups.get(name)
                if header is None:
                    header = QTreeWidgetItem([self.tr(name)])
                    header.setFlags(Qt.ItemFlag.ItemIsEnabled)  # a heading: not selectable
                    header.setFont(0, bold)
                    groups[name] = header
                item = QTreeWidgetItem([f"{conversation.title}\n{_when(conversation.updated)}"])
                item.setData(0, _ID_ROLE, conversation.id)
                item.setToolTip(
                    0,
                    self.tr("{title} ({count} messages)").format(
                        title=conversation.title, count=conversation.message_count
                    ),
                )
                header.addChild(item)
            for name in GROUPS:  # the groups in their fixed order, whatever order the chats came in
                if name in groups:
                    self.tree.addTopLevelItem(groups[name])
                    groups[name].setExpanded(True)
            chosen = self._item(current) if current is not None else None
            if chosen is not None:
                self.tree.setCurrentItem(chosen)
        finally:
            self._quiet = False

    def groups(self) -> dict[str, list[int]]:
        """Group name -> conversation ids, as shown (for the tests and screen readers' sake)."""
        return {
            header.text(0): [int(item.data(0, _ID_ROLE)) for item in self._children(header)]
            for header in self._headers()
        }

    def _headers(self) -> list[QTreeWidgetItem]:
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [item for item in items if item is not None]

    @staticmethod
    def _children(header: QTreeWidgetItem) -> list[QTreeWidgetItem]:
        items = (header.child(j) for j in range(header.childCount()))
        return [item for item in items if item is not None]

    def conversation_ids(self) -> list[int]:
        """Every conversation shown, top to bottom."""
        return [cid for ids in self.groups().values() for cid in ids]

    def select(self, conversation_id: int) -> None:
        """Choose a conversation as a click would (it opens)."""
        item = self._item(conversation_id)
        if item is not None:
            self.tree.setCurrentItem(item)

    def _item(self, conversation_id: int) -> QTreeWidgetItem | None:
        for header in self._headers():
            for item in self._children(header):
                if item.data(0, _ID_ROLE) == conversation_id:
                    return item
        return None

    def _current_changed(self, item: QTreeWidgetItem | None, previous: QTreeWidgetItem | None) -> None:
        if item is None or self._quiet or item.data(0, _ID_ROLE) is None:
            return
        self.opened.emit(int(item.data(0, _ID_ROLE)))

    def _menu(self, pos: QPoint) -> None:
        item = self.tree.itemAt(pos)
        if item is None or item.data(0, _ID_ROLE) is None:
            return
        conversation = int(item.data(0, _ID_ROLE))
        pinned = self._pinned.get(conversation, False)
        menu = QMenu(self)
        menu.addAction(
            self.tr("Unpin") if pinned else self.tr("Pin"), lambda: self.pin_requested.emit(conversation, not pinned)
        )
        menu.addAction(self.tr("Rename…"), lambda: self.rename_requested.emit(conversation))
        menu.addAction(self.tr("Export as Markdown…"), lambda: self.export_requested.emit(conversation, "markdown"))
        menu.addAction(self.tr("Export as JSON…"), lambda: self.export_requested.emit(conversation, "json"))
        menu.addSeparator()
        menu.addAction(self.tr("Delete"), lambda: self.delete_requested.emit(conversation))
        menu.exec(self.tree.viewport().mapToGlobal(pos))
