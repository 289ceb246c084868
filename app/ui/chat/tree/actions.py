"""The tree's actions on the active branch: Generate, Regenerate, Continue, Edit, Delete, Fork, switcher, Info, Steps.

A conversation is a tree (the store keeps every branch): Regenerate starts a
sibling of a reply, Generate answers a question left without a reply
(its reply deleted), Edit sends a sibling of a user message (or, on a reply,
stores the user's corrected text as the reply's sibling), Continue grows a
reply cut at the token limit in place, Delete moves a message with what
follows it to the trash (the undo bar brings it back), Fork copies the branch
up to a message into a new chat, and the branch switcher moves between siblings. The view always
shows the active branch, reloaded from the store after every change.

:class:`TreeActions` is a component of the chat controller: it is handed what
it works on (the store, the store guard, the panel, the statistics) and what it
asks of the chat (the branch shown, whether a reply may start, starting one,
showing the branch again) when it is made; it says what happened through its
own signals, which the controller passes on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox

from app.core.conversation.chat import MessageState, Role
from app.core.decoding.stats import GenerationStats
from app.core.reply.reasoning import ReasoningTally
from app.core.reply.record import ReplyRecord
from app.engine.store.conversations import ACTIVE_LEAF, ChatStore, StoredMessage
from app.engine.store.database import StoreWriteError
from app.ui.chat.panel import ChatPanel
from app.ui.chat.reply.info import provenance_html
from app.ui.chat.reply.saving import ReplySaver
from app.ui.chat.tree.reply_edit import ReplyEditDialog
from app.ui.i18n.words import say_error
from app.ui.stats.stats_panel import StatsPanel


class StartReply(Protocol):
    """Starts a reply to the branch shown (its first ``upto`` messages), as a child of ``parent_id``, or grows one."""

    def __call__(
        self, upto: int | None = None, parent_id: int | None = ACTIVE_LEAF, continuing: StoredMessage | None = None
    ) -> None: ...


class TreeActions(QObject):
    """The tree's actions on the branch the chat shows."""

    status = Signal(str)
    changed = Signal()  # the chats changed (the sidebar reloads)
    steps_requested = Signal(int)  # a reply's id: show its steps
    steps_export_requested = Signal(int)  # a reply's id: export its steps
    message_trashed = Signal(int, str)  # a deleted message's id (in the trash) and what to say: offer its undo

    def __init__(
        self,
        *,
        store: Callable[[], ChatStore],
        saver: ReplySaver,
        panel: ChatPanel,
        stats_panel: StatsPanel,
        path: Callable[[], list[StoredMessage]],
        idle: Callable[[], bool],
        ready: Callable[[], bool],
        start_reply: StartReply,
        reload: Callable[[], None],
        open_conversation: Callable[[int], None],
        count_context: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store  # a getter: the store guard may swap the store
        self._saver = saver
        self._panel = panel
        self._stats_panel = stats_panel
        self._path = path  # the active branch shown, root to leaf (replaced at every reload)
        self._idle = idle  # nothing runs on the engine thread
        self._ready = ready  # a reply may start now (else the banner says why)
        self._start_reply = start_reply
        self._reload = reload
        self._open_conversation = open_conversation
        self._count_context = count_context
        self.editing: int | None = None  # the user message being edited (its text is in the prompt box)
        self.info_box: QMessageBox | None = None
        self.reply_editor: ReplyEditDialog | None = None  # the open "Edit reply" dialog, if any
        panel.edit_cancelled.connect(self.cancel_edit)
        panel.view.message_action.connect(self._on_message_action)

    @property
    def path(self) -> list[StoredMessage]:
        """The active branch shown."""
        return self._path()

    def regenerate(self, message_id: int) -> bool:
        """A new reply to the same message as the reply ``message_id`` (its sibling; the old one is kept)."""
        index = self.index_of(message_id)
        if index is None or self.path[index].role != "assistant" or not self._ready():
            return False
        self.cancel_edit()
        self._start_reply(upto=index, parent_id=self.path[index].parent_id)
        return True

    def generate(self, message_id: int) -> bool:
        """Answer the user message ``message_id``, the last of its branch (its reply was deleted or never came)."""
        index = self.index_of(message_id)
        if index is None or index != len(self.path) - 1 or self.path[index].role != "user" or not self._ready():
            return False
        self.cancel_edit()
        self._start_reply()
        return True

    def continue_reply(self, message_id: int) -> bool:
        """Let the reply ``message_id`` (the last of its branch) grow where it stopped: the same message."""
        index = self.index_of(message_id)
        if index is None or index != len(self.path) - 1 or self.path[index].role != "assistant" or not self._ready():
            return False
        reply = self.path[index]
        try:
            self._store().reopen_reply(reply.id)
        except StoreWriteError as exc:
            self._saver.refused(exc)
            return False
        self.cancel_edit()
        self._start_reply(continuing=reply)
        return True

    def start_edit(self, message_id: int) -> None:
        """Put a user message's text in the prompt box (sending it makes a new branch from that message),
        or open a reply's text in the Edit reply dialog."""
        index = self.index_of(message_id)
        if index is None or not self._idle():
            return
        if self.path[index].role == "assistant":
            self._edit_reply(self.path[index])
            return
        if self.path[index].role != "user":
            return
        self.editing = message_id
        self._panel.show_editing(True)
        self._panel.prompt.setPlainText(self.path[index].content)
        self._panel.prompt.setFocus()
        self.status.emit(
            QCoreApplication.translate(
                "TreeActions", "editing: send makes a new branch, the old one is kept (Cancel leaves it as it was)"
            )
        )

    def _edit_reply(self, reply: StoredMessage) -> None:
        if self._store().read_only:
            return
        self.cancel_edit()
        if self.reply_editor is not None:
            self.reply_editor.close()
        dialog = ReplyEditDialog(reply.id, reply.content, parent=self._panel)
        dialog.saved.connect(self.save_edited_reply)
        dialog.finished.connect(lambda _result: setattr(self, "reply_editor", None))
        self.reply_editor = dialog
        dialog.open()
        dialog.editor.setFocus()

    def save_edited_reply(self, message_id: int, text: str) -> bool:
        """Store ``text`` as a new sibling of the reply ``message_id`` and show it; the original is kept."""
        index = self.index_of(message_id)
        if index is None or self.path[index].role != "assistant" or not self._idle():
            return False
        original = self.path[index]
        record = ReplyRecord.from_meta(original.meta)
        meta = ReplyRecord(pair=record.pair, produced_by=record.produced_by, edited_from=original.id).to_meta()
        try:
            self._store().add_message(
                original.conversation_id, Role.ASSISTANT, text, MessageState.DONE, meta, original.parent_id
            )
        except StoreWriteError as exc:
            self._saver.refused(exc)
            return False
        self._reload()
        self.changed.emit()
        self.show_branch_stats()
        self._count_context()
        self.status.emit(
            QCoreApplication.translate(
                "TreeActions", "your edit of the reply is saved beside it; ‹ › shows the model's own text"
            )
        )
        return True

    def cancel_edit(self) -> None:
        """Leave editing (the prompt box is cleared only when it still holds the edited text)."""
        if self.editing is None:
            return
        original = next((m.content for m in self.path if m.id == self.editing), None)
        self.editing = None
        self._panel.show_editing(False)
        if original is not None and self._panel.prompt.toPlainText() == original:
            self._panel.prompt.clear()

    def delete_message(self, message_id: int) -> bool:
        """Move a message with everything that follows it on its branches to the trash, at once.

        The undo bar offers it back for a few seconds (:attr:`message_trashed`);
        it waits in the store's trash until then, so a crash loses nothing.
        """
        index = self.index_of(message_id)
        if index is None or not self._idle() or self._store().read_only:
            return False
        following = len(self.path) - index - 1
        if following:
            what = QCoreApplication.translate("TreeActions", "Deleted a message and the {n} after it").format(
                n=following
            )
        else:
            what = QCoreApplication.translate("TreeActions", "Deleted a message")
        self.cancel_edit()
        try:
            self._store().trash_message(message_id)
        except StoreWriteError as exc:
            self._saver.refused(exc)
            return False
        self._reload()
        self.changed.emit()
        self._count_context()
        self.message_trashed.emit(message_id, what)
        return True

    def restore_message(self, message_id: int) -> bool:
        """Put a message deleted by :meth:`delete_message` back in its place (the undo bar's Undo)."""
        if not self._idle():
            self.status.emit(
                QCoreApplication.translate(
                    "TreeActions", "a reply is being written: the message waits in the trash (tandem chats restore)"
                )
            )
            return False
        try:
            self._store().restore_message(message_id)
        except (StoreWriteError, KeyError, ValueError) as exc:
            self.status.emit(
                say_error(exc)
                if isinstance(exc, StoreWriteError)
                else QCoreApplication.translate("TreeActions", "that message is gone")
            )
            return False
        self._reload()
        self.changed.emit()
        self._count_context()
        self.status.emit(QCoreApplication.translate("TreeActions", "the message is back"))
        return True

    def fork(self, message_id: int) -> bool:
        """Copy the branch from the first message to ``message_id`` into a new chat, and open it."""
        if not self._idle() or self._store().read_only:
            return False
        self.cancel_edit()
        try:
            conversation_id = self._store().fork_branch(message_id)
        except StoreWriteError as exc:
            self._saver.refused(exc)
            return False
        except KeyError:
            return False
        self._open_conversation(conversation_id)
        self.changed.emit()
        self.status.emit(QCoreApplication.translate("TreeActions", "forked into a new chat; the original is unchanged"))
        return True

    def switch_branch(self, message_id: int, step: int) -> bool:
        """Show the sibling ``step`` places before or after message ``message_id`` (‹ and ›)."""
        if not self._idle():
            return False
        siblings = self._store().siblings(message_id)
        if message_id not in siblings:
            return False
        position = siblings.index(message_id) + step
        if not 0 <= position < len(siblings):
            return False
        self.cancel_edit()
        try:
            self._store().switch_to(siblings[position])
        except StoreWriteError as exc:
            self._saver.refused(exc)
            return False
        self._reload()
        self.show_branch_stats()
        self._count_context()
        return True

    def show_branch_stats(self) -> None:
        """Show, in the Stats tab, the statistics of the last reply on the branch now shown (none: cleared)."""
        replies = [m for m in self.path if m.role == "assistant" and isinstance(m.meta.get("stats"), dict)]
        if not replies:
            self._stats_panel.clear()
            return
        record = ReplyRecord.from_meta(replies[-1].meta)
        self._stats_panel.reset(record.drafter or "none", record.adaptive)
        self._stats_panel.update_stats(GenerationStats.from_dict(record.stats or {}))
        # Its thinking and answer apart, counted from its stored tokens as they were while it streamed.
        tally = ReasoningTally(inside=record.reasoning_inside)
        for token in replies[-1].tokens:
            tally.add(token.text, str(token.origin))
        tally.finish()
        self._stats_panel.set_parts(tally.split() if tally.has_block else None)

    def show_info(self, message_id: int) -> None:
        """Show what produced a reply (pair, drafter, draft length, sampling, system prompt, seed)."""
        index = self.index_of(message_id)
        if index is None:
            return
        record = ReplyRecord.from_meta(self.path[index].meta)
        if record.produced_by is None:
            return
        box = QMessageBox(
            QMessageBox.Icon.Information,
            QCoreApplication.translate("TreeActions", "What produced this reply"),
            "",
            parent=self._panel,
        )
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(provenance_html(record))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.info_box = box

    def index_of(self, message_id: int) -> int | None:
        """Where message ``message_id`` is on the branch shown (None: not on it)."""
        return next((i for i, m in enumerate(self.path) if m.id == message_id), None)

    def _on_message_action(self, action: str, index: int) -> None:
        if not 0 <= index < len(self.path) or not self._idle():
            return
        message_id = self.path[index].id
        if action == "generate":
            self.generate(message_id)
        elif action == "regenerate":
            self.regenerate(message_id)
        elif action == "continue":
            self.continue_reply(message_id)
        elif action == "edit":
            self.start_edit(message_id)
        elif action == "delete":
            self.delete_message(message_id)
        elif action == "fork":
            self.fork(message_id)
        elif action == "info":
            self.show_info(message_id)
        elif action == "steps":
            self.steps_requested.emit(message_id)  # the step view is the window's (app.ui.steps)
        elif action == "export-steps":
            self.steps_export_requested.emit(message_id)
        elif action in ("previous", "next"):
            self.switch_branch(message_id, -1 if action == "previous" else 1)
