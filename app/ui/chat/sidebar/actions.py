"""The sidebar's actions: what opening, renaming, pinning, deleting and exporting a chat do.

The conversation list only asks (its signals); this carries each request out
on the store and redraws the list. A chat is never switched or deleted under
a reply being written to it; a deleted chat (or a message deleted in the
chat) goes to the trash at once and the undo bar brings it back for a few seconds; a search result opens its chat on
the result's branch with the message highlighted. Every store failure ends as
a message on the chat's banner, never as an exception in a slot.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMainWindow

from app.core.errors import TandemError
from app.engine.safe_files import write_text_safely
from app.engine.store.conversations import ChatStore, SearchHit
from app.engine.store.database import StoreWriteError
from app.ui.chat.controller import Activity, ChatController
from app.ui.chat.panel import ChatPanel
from app.ui.chat.sidebar.conversation_list import ConversationList
from app.ui.i18n.words import say_error
from app.ui.settings.folders import FolderKind, LastFolders


class SidebarActions(QObject):
    """Carries out the conversation list's requests (and the File menu's exports) on the store."""

    def __init__(
        self,
        window: QMainWindow,
        store: Callable[[], ChatStore],
        controller: ChatController,
        conversations: ConversationList,
        chat: ChatPanel,
        show_chat: Callable[[], None],
        folders: LastFolders | None = None,
    ) -> None:
        super().__init__(window)
        self._window = window  # the dialogs' parent and its status bar
        self._folders = folders or LastFolders()  # where the export dialog opens
        self._store = store  # a getter: the store guard may swap the store
        self._controller = controller
        self._conversations = conversations
        self._chat = chat
        self._show_chat = show_chat
        conversations.opened.connect(self.open)
        conversations.new_requested.connect(controller.new_conversation)
        conversations.rename_requested.connect(self.rename)
        conversations.delete_requested.connect(self.delete)
        conversations.pin_requested.connect(self.pin)
        conversations.search.hit_chosen.connect(self.jump_to)
        conversations.export_requested.connect(self.export)
        controller.message_trashed.connect(self.offer_message_undo)

    def _status(self, text: str, timeout: int) -> None:
        self._window.statusBar().showMessage(text, timeout)

    def refresh(self) -> None:
        """Reload the sidebar."""
        self._conversations.set_conversations(self._store().list_conversations(), self._controller.conversation_id)

    def open(self, conversation_id: int) -> None:
        """Show a chat (not while a reply is being written: the selection goes back to that chat)."""
        if self._controller.activity is Activity.GENERATING:
            self._status(self.tr("wait for the reply to finish (or press Esc) before switching chats"), 5000)
            self.refresh()  # put the selection back on the chat being written
            return
        self._show_chat()
        self._controller.open_conversation(conversation_id)

    def rename(self, conversation_id: int) -> None:
        """Ask for a new title and give it to the chat."""
        store = self._store()
        title, ok = QInputDialog.getText(
            self._window, self.tr("Rename chat"), self.tr("Title"), text=store.conversation_title(conversation_id)
        )
        if ok and title.strip():
            try:
                store.rename_conversation(conversation_id, title.strip())
            except StoreWriteError as exc:
                self._chat.banner.show_message(say_error(exc))
            self.refresh()

    def delete(self, conversation_id: int) -> None:
        """Move a chat to the trash at once; the undo bar brings it back for a few seconds."""
        controller = self._controller
        if controller.activity is Activity.GENERATING and conversation_id == controller.conversation_id:
            self._status(self.tr("this chat is being written to: stop the reply first"), 5000)
            return
        try:
            store = self._store()
            title = store.conversation_title(conversation_id)
            store.delete_conversation(conversation_id)
        except (StoreWriteError, KeyError) as exc:
            self._chat.banner.show_message(
                say_error(exc) if isinstance(exc, StoreWriteError) else self.tr("that chat is gone")
            )
            self.refresh()
            return
        if conversation_id == controller.conversation_id:
            controller.new_conversation()
        self.refresh()
        self._conversations.undo.offer(
            self.tr("Deleted '{title}'").format(title=title), lambda: self._restore_deleted(conversation_id)
        )

    def offer_message_undo(self, message_id: int, text: str) -> None:
        """A message just went to the trash: the undo bar (the same as a deleted chat's) brings it back."""
        self._conversations.undo.offer(text, lambda: self._restore_message(message_id))

    def _restore_message(self, message_id: int) -> None:
        if self._controller.tree.restore_message(message_id):
            self.refresh()

    def _restore_deleted(self, conversation_id: int) -> None:
        try:
            self._store().restore_conversation(conversation_id)
        except StoreWriteError as exc:
            self._chat.banner.show_message(say_error(exc))
            return
        self.refresh()
        self._status(self.tr("the chat is back"), 4000)

    def pin(self, conversation_id: int, pinned: bool) -> None:
        """Pin a chat to the top of the list (or unpin it)."""
        try:
            self._store().set_pinned(conversation_id, pinned)
        except StoreWriteError as exc:
            self._chat.banner.show_message(say_error(exc))
        self.refresh()

    def jump_to(self, hit: SearchHit) -> bool:
        """Open a search result's chat on the result's branch and highlight the message; False when it cannot."""
        controller = self._controller
        if controller.activity is not Activity.IDLE:
            self._status(self.tr("wait for the reply to finish (or press Esc) before jumping"), 5000)
            return False
        try:
            store = self._store()
            if not store.read_only:
                store.switch_to(hit.message_id)
        except (StoreWriteError, KeyError) as exc:
            self._chat.banner.show_message(
                say_error(exc) if isinstance(exc, StoreWriteError) else self.tr("that message is gone")
            )
            return False
        self._show_chat()
        controller.open_conversation(hit.conversation_id, force=True)
        self.refresh()
        index = self._chat.view.message_index_of(hit.message_id)
        if index is None:
            self._status(self.tr("that message is on another branch of the chat"), 5000)
            return False
        self._chat.view.highlight_message(index)
        return True

    def export_current(self, kind: str) -> None:
        """Export the open conversation."""
        if self._controller.conversation_id is None:
            self._status(self.tr("nothing to export yet"), 4000)
            return
        self.export(self._controller.conversation_id, kind)

    def export(self, conversation_id: int, kind: str, path: Path | None = None) -> Path | None:
        """Write a conversation as Markdown or JSON (asks where unless ``path`` is given)."""
        store = self._store()
        suffix = ".md" if kind == "markdown" else ".json"
        if path is None:
            title = store.conversation_title(conversation_id)
            safe = "".join(ch if ch.isalnum() or ch in " -_" else "_" for ch in title).strip() or "chat"
            chosen, _ = QFileDialog.getSaveFileName(
                self._window, self.tr("Export chat"), self._folders.start(FolderKind.EXPORTS, f"{safe}{suffix}")
            )
            if not chosen:
                return None
            self._folders.remember(FolderKind.EXPORTS, chosen)
            path = Path(chosen)
        if kind == "markdown":
            text = store.export_markdown(conversation_id)
        else:
            text = json.dumps(store.export_json(conversation_id), ensure_ascii=False, indent=2)
        try:  # the dialog asked before replacing a file; a link, folder or device is still never replaced
            write_text_safely(path, text, overwrite=True)
        except TandemError as exc:
            self._status(self.tr("not exported: {error}").format(error=exc), 8000)
            return None
        self._status(self.tr("exported to {path}").format(path=path), 6000)
        return path
