"""The chat's flow: send, stream, stop, save, load; between the engine thread, the view and the store.

A reply is asked for as a :class:`~app.engine.reply.ReplyRequest` (the chat's
settings, its active branch, the demo switch) and planned on the engine thread
by :mod:`app.engine.reply`, the planner every front end uses; the controller
keeps only what is the window's: the view, the live statistics, the context
gauge, the footer's words and the "show speculation anyway" switch.

Every step event goes three ways: into the view (coloured tokens), into the
live statistics, and into :class:`~app.ui.chat.reply.saving.ReplySaver`, which
commits it to SQLite a few times a second and keeps the whole reply when the
store refuses it. The user's message is committed before generation starts.

The reply in flight is a :class:`~app.ui.chat.reply.live.LiveReply`, made when
a reply is asked for and dropped when it has ended: it owns the reply's state,
takes the worker's step, finished and error events, and ends with one
:class:`~app.core.reply.end.ReplyEnd`, which the controller passes on to the
window, the sidebar and the status bar (:attr:`ChatController.reply_finished`).
The controller's other parts are components with their dependencies given
when they are made: the conversation tree's actions
(:class:`~app.ui.chat.tree.actions.TreeActions`: regenerate, edit, continue,
delete, the branch switcher), the context gauge's counting
(:class:`~app.ui.chat.context.count.ContextCount`) and the "show speculation
anyway" switch (:class:`~app.ui.chat.reply.demo_switch.DemoSwitch`). The
footer says in words what drafting did in the reply
(:mod:`app.ui.chat.reply.words`). Each chat has its own settings
(:class:`~app.core.conversation.chat_settings.ChatSettings`); a chat not created yet holds
them until its first message creates it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices

from app.core.attachments.record import Attachment
from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.reply.end import EndKind, ReplyEnd
from app.core.tools.turns import prompt_message
from app.engine.llama.session import PairConfig
from app.engine.llama.vision import ImageError, require_projector
from app.engine.reply import ReplyRequest, chat_messages, record_start
from app.engine.store.conversations import ACTIVE_LEAF, ChatStore, StoredMessage
from app.engine.store.database import StoreWriteError
from app.ui.chat.activity import Activity
from app.ui.chat.attachments.access import plan_notices, store_user_message, with_whole_documents
from app.ui.chat.attachments.flow import AttachmentFlow
from app.ui.chat.context.count import ContextCount
from app.ui.chat.panel import ChatPanel
from app.ui.chat.reply.demo_switch import DemoSwitch
from app.ui.chat.reply.live import LiveReply
from app.ui.chat.reply.saving import ReplySaver, UnsavedReply
from app.ui.chat.reply.words import (
    drafter_words,
    info_label,
    loaded_pair_words,
    message_actions,
    reply_header,
    view_message,
)
from app.ui.chat.tools.flow import ToolChat, ToolFlow
from app.ui.chat.tree.actions import TreeActions
from app.ui.chat.view.chat_view import ViewMessage
from app.ui.i18n.words import number, say_error
from app.ui.stats.stats_panel import StatsPanel
from app.ui.threads.jobs import GenerateJob, PairInfo, PromptInfo
from app.ui.threads.worker import EngineHost


@dataclass(frozen=True, slots=True)
class PickedPair:
    """The pair picked in the window but not loaded: a message sent before any pair is loaded loads it first."""

    ready: Callable[[], bool]  # a pair is picked and can be loaded now (no draft still to download)
    load: Callable[[], None]  # start loading it (the window says so and remembers it once it has loaded)


class ChatController(QObject):
    """Owns the conversation flow; the window only wires widgets to it."""

    activity_changed = Signal(object)  # Activity
    pair_loaded = Signal(object)  # PairInfo
    status = Signal(str)
    conversations_changed = Signal()
    reply_finished = Signal(object)  # ReplyEnd: a reply the decoder finished (done, stopped, or refused by the store)
    store_failed = Signal(object)  # StoreWriteError: a reply waits in memory
    store_recovered = Signal()  # everything waiting has been written
    chat_settings_changed = Signal(object)  # ChatSettings: another chat (or a new one) is now current
    steps_requested = Signal(int)  # a reply's id: show its steps (the window's step view)
    steps_export_requested = Signal(int)  # a reply's id: export its steps as HTML
    message_trashed = Signal(int, str)  # a deleted message's id (in the trash) and what to say: offer its undo

    def __init__(
        self,
        store: ChatStore,
        host: EngineHost,
        panel: ChatPanel,
        stats_panel: StatsPanel,
        new_chat_settings: Callable[[], ChatSettings] | None = None,
    ) -> None:
        super().__init__(panel)
        self.store = store
        self.host = host
        self.panel = panel
        self.stats_panel = stats_panel
        # What a new chat starts from (the window: the default preset, else the defaults; never another chat's).
        self._new_chat_settings = new_chat_settings or ChatSettings
        self._pending = self._new_chat_settings()  # the settings of the chat not created yet
        self.activity = Activity.IDLE
        self.pair: PairInfo | None = None
        self.picked: PickedPair | None = None  # set by the window: Send loads the picked pair first
        self._after_load: str | None = None  # the message sent while no pair was loaded: sent once one has
        self.conversation_id: int | None = None
        self.path: list[StoredMessage] = []  # the active branch shown, root to leaf
        self._live: LiveReply | None = None  # the reply in flight (None when none is)
        self.saver = ReplySaver(store, lambda: self._live is not None and self._live.reply is not None, self)
        self.saver.failed.connect(self._store_failed)
        self.saver.saved_late.connect(self._saved_late)
        self._closed = False  # after shutdown, late events from the engine thread are ignored
        # The files the next message carries; their counts change the gauge as typing does.
        self.attachments = AttachmentFlow(panel, host, panel.attachments, panel.paperclip)
        self.attachments.images.refusal = self.image_refusal
        self.tree = TreeActions(
            store=lambda: self.store,
            saver=self.saver,
            panel=panel,
            stats_panel=stats_panel,
            path=lambda: self.path,
            idle=lambda: self.activity is Activity.IDLE,
            ready=self._ready,
            start_reply=self._start_reply,
            reload=self.reload,
            open_conversation=self.open_conversation,
            count_context=lambda: self.context.count(),
            parent=self,
        )
        self.tree.status.connect(self.status)
        self.tree.changed.connect(self.conversations_changed)
        self.tree.steps_requested.connect(self.steps_requested)
        self.tree.steps_export_requested.connect(self.steps_export_requested)
        self.tree.message_trashed.connect(self.message_trashed)
        self.context = ContextCount(
            panel=panel,
            host=host,
            attachments=self.attachments,
            messages=self.context_messages,
            settings=self.chat_settings,
            chunk_search=lambda: self.store.chunk_search_elsewhere(),
            pair=lambda: self.pair,
            idle=lambda: self.activity is Activity.IDLE,
            tools=lambda: self.tool_flow.next_tools(),
            parent=self,
        )
        self.demo = DemoSwitch(store=lambda: self.store, view=panel.view, conversation=lambda: self.conversation_id)
        self.demo.setParent(self)
        self.demo.status.connect(self.status)
        # MCP tools: offered to each reply, its calls asked about and stored.
        self.tool_flow = ToolFlow(
            panel=panel,
            chat=ToolChat(
                store=lambda: self.store,
                conversation=lambda: self.conversation_id,
                path=lambda: self.path,
                remote=lambda: self.pair is not None and self.pair.remote is not None,
                unsaved=lambda: self.unsaved is not None,
                quiet=lambda: self.activity in (Activity.IDLE, Activity.TOOLS),
                reload=self.reload,
                tools_running=self.set_tools_running,
                reply_to_branch=self.reply_to_branch,
                dialect=lambda: self.pair.tool_dialect if self.pair is not None else None,
            ),
            parent=self,
        )
        self.reply_finished.connect(self.tool_flow.reply_finished)
        self.chat_settings_changed.connect(lambda _settings: self.tool_flow.settings_changed())
        self.tool_flow.status.connect(self.status)
        self.tool_flow.tools_changed.connect(self.context.recount_soon)  # the gauge counts the tools on offer
        worker = host.worker
        worker.loaded.connect(self._on_loaded)
        worker.prompt_ready.connect(self._on_prompt_ready)
        worker.step.connect(self._on_step)
        worker.finished.connect(self._on_finished)
        worker.error.connect(self._on_error)
        panel.send_requested.connect(self.send)
        panel.stop_requested.connect(self.stop)
        panel.view.anchorClicked.connect(self._on_link)

    # -- loading ---------------------------------------------------------------------

    def load(self, config: PairConfig) -> None:
        """Load a pair on the engine thread."""
        if self.activity is not Activity.IDLE:
            self.stop()
        self.pair = None
        self._set_activity(Activity.LOADING)
        self.status.emit(self.tr("loading {pair}…").format(pair=loaded_pair_words(config)[0]))
        self.host.load(config)

    def _on_loaded(self, info: PairInfo) -> None:
        if self._closed:
            return
        self.pair = info
        self.panel.banner.hide()  # an earlier load error no longer applies
        self._set_activity(Activity.IDLE)
        where = (
            " "
            + self.tr("({n_ctx} tokens of context, {seconds} s)").format(
                n_ctx=info.n_ctx, seconds=f"{info.load_seconds:.1f}"
            )
            if info.remote is None
            else ""
        )
        pair = info_label(info) if info.remote is not None else loaded_pair_words(info.config)[0]
        self.status.emit(self.tr("ready: {pair}").format(pair=pair) + where)
        self.pair_loaded.emit(info)
        self.context.count()
        waiting, self._after_load = self._after_load, None
        if waiting is not None:
            self.send(waiting)

    # -- the chat's settings ------------------------------------------------------------

    def chat_settings(self) -> ChatSettings:
        """The current chat's settings (a chat not created yet: the ones it will be created with)."""
        if self.conversation_id is None:
            return self._pending
        try:
            return ChatSettings.from_dict(self.store.conversation_settings(self.conversation_id))
        except KeyError:  # the chat went (deleted elsewhere): what it had shown is as good as anything
            return self._pending

    def set_chat_settings(self, settings: ChatSettings) -> None:
        """Change the current chat's settings (kept with the chat; other chats keep theirs)."""
        if self.conversation_id is None:
            self._pending = settings
        else:
            try:
                # Keys beside the chat settings (its tool choices) stay.
                kept = self.store.conversation_settings(self.conversation_id)
                self.store.set_conversation_settings(self.conversation_id, {**kept, **settings.to_dict()})
            except StoreWriteError as exc:
                self.panel.banner.show_message(say_error(exc))
        self.context.count()

    # -- conversations ----------------------------------------------------------------

    def new_conversation(self) -> None:
        """Start afresh (the conversation is created in the store when the first message is sent)."""
        if self.activity is Activity.GENERATING:
            return
        self.tree.cancel_edit()
        self.conversation_id = None
        self.path = []
        self.tree.show_branch_stats()  # an empty chat has no statistics: the last chat's are not its own
        self._pending = self._new_chat_settings()
        self.demo.forget_new()
        self.tool_flow.new_chat()
        self.panel.view.set_messages([])
        self.panel.banner.hide()
        self.chat_settings_changed.emit(self._pending)
        self.context.count()
        self.conversations_changed.emit()

    def open_conversation(self, conversation_id: int, force: bool = False) -> None:
        """Show a saved conversation's active branch, recoloured from its stored token origins."""
        if self.activity is Activity.GENERATING or (conversation_id == self.conversation_id and not force):
            return
        self.tree.cancel_edit()
        self.conversation_id = conversation_id
        self.reload()
        self.tree.show_branch_stats()
        self.demo.opened(conversation_id, self.path)
        self.panel.banner.hide()
        self.chat_settings_changed.emit(self.chat_settings())
        self.context.count()

    def reload(self) -> None:
        """Show the conversation's active branch as the store has it, with each message's switcher and actions."""
        if self.conversation_id is None:
            self.path = []
            self.panel.view.set_messages([])
            return
        self.path = self.store.messages(self.conversation_id)
        self.panel.view.set_messages(self._shown(self.path))
        self.demo.offer_links(self.path)

    def _shown(self, stored: list[StoredMessage]) -> list[ViewMessage]:
        shown = []
        for i, message in enumerate(stored):
            siblings = self.store.siblings(message.id)
            position = siblings.index(message.id) + 1 if message.id in siblings else 1
            last = i == len(stored) - 1
            one = view_message(message, (position, max(1, len(siblings))), message_actions(message, last))
            shown.append(self.tool_flow.shown(self.attachments.shown(one, message), message))
        self.attachments.count_tokens([a for m in shown for a in m.attachments])
        return shown

    def history(self, conversation_id: int, upto_last_user: bool = False) -> list[Message]:
        """The conversation's active branch as chat messages for the prompt (the chat's system prompt first)."""
        stored = self.store.messages(conversation_id, with_tokens=False)
        settings = ChatSettings.from_dict(self.store.conversation_settings(conversation_id))
        messages = list(self._messages_of(stored, settings))
        if upto_last_user:
            while messages and messages[-1].role != "user":
                messages.pop()
        return messages

    def _messages_of(self, stored: list[StoredMessage], settings: ChatSettings) -> tuple[Message, ...]:
        return chat_messages(
            settings, [prompt_message(m.role, m.content, m.meta, m.attachments, m.images) for m in stored]
        )

    def image_refusal(self) -> str | None:
        """Why the loaded pair cannot read an image (the engine's words), or None.

        A remote server is asked when the message goes (it says itself); with no pair loaded yet, nothing is known.
        """
        pair = self.pair
        if pair is None or pair.remote is not None:
            return None
        try:
            require_projector(pair.config.target, pair.config.projector)
        except ImageError as exc:
            return say_error(exc)
        return None

    # -- a reply ------------------------------------------------------------------------

    def can_send(self) -> bool:
        """Nothing else runs, and a pair is loaded or picked (sending loads it first)."""
        return self.activity is Activity.IDLE and (self.pair is not None or self._can_load())

    def _can_load(self) -> bool:
        return self.pair is None and self.picked is not None and self.picked.ready()

    def picked_changed(self) -> None:
        """The window's picked pair changed: Send is offered when it can be loaded."""
        self.panel.set_generating(self.activity in (Activity.GENERATING, Activity.COMPARING), self.can_send())

    def _ready(self) -> bool:
        """A reply may start now; else the banner says why (False)."""
        if self.pair is None:
            self.panel.banner.show_message(
                self.tr("No model pair is loaded yet: pick one in the Model tab and press Load.")
            )
            return False
        if self.activity is not Activity.IDLE:
            return False
        if self.store.read_only:
            self.panel.banner.show_message(
                self.tr(
                    "This window shows your chats read-only, so nothing new can be saved: "
                    "close the other Tandem window (or repair the database) and restart to chat."
                )
            )
            return False
        return self.unsaved is None or self.retry_save()  # the banner says why; the prompt stays in the box

    def send(self, text: str) -> bool:
        """Save the user's message and start the reply; False (with a message) when that is not possible.

        While a message is being edited, the text goes in as that message's new
        sibling (a new branch; the old one stays, reachable with the switcher).
        """
        if self.activity is Activity.IDLE and self._can_load() and self.picked is not None:
            # Loading is the obvious next step: the message waits in the box and is sent once the pair is ready.
            self._after_load = text
            self.picked.load()
            return True
        if not self._ready():
            return False
        editing = next((m for m in self.path if m.id == self.tree.editing), None)
        created = self.conversation_id is None
        try:
            if self.conversation_id is None:
                title = " ".join(text.split())[:48] or self.tr("New chat")
                self.conversation_id = self.store.create_conversation(title, self._pending.to_dict())
                self.demo.created(self.conversation_id)
            parent = editing.parent_id if editing is not None else ACTIVE_LEAF
            # The turn and its files (an edit keeps its own) in one transaction: a full disk stores neither.
            attached, images = self.attachments.for_message(editing), self.attachments.images.for_message(editing)
            store_user_message(self.store, self.conversation_id, text, attached, parent, images)
        except StoreWriteError as exc:
            self.saver.refused(exc)
            return False  # nothing was sent: the prompt and its chips stay
        self.attachments.clear()
        self.tree.cancel_edit()
        self.panel.prompt.clear()
        self.panel.banner.hide()
        if created:  # the settings shown are this chat's from now on
            self.chat_settings_changed.emit(self.chat_settings())
        self.conversations_changed.emit()
        self._start_reply()
        return True

    def _start_reply(
        self, upto: int | None = None, parent_id: int | None = ACTIVE_LEAF, continuing: StoredMessage | None = None
    ) -> None:
        """Generate a reply to the active branch (or to its first ``upto`` messages), or grow ``continuing``."""
        assert self.pair is not None and self.conversation_id is not None
        settings = self.chat_settings()
        self.panel.view.set_actions_enabled(False, redraw=False)
        self.path = self.store.messages(self.conversation_id)
        context = self.path if upto is None else self.path[:upto]
        shown = self._shown(context)
        shown[-1].actions = tuple(a for a in shown[-1].actions if a != "generate")  # its reply is on its way
        if continuing is not None:
            shown[-1].footer, shown[-1].footer_link, shown[-1].actions = "", None, ()
        self.panel.view.set_messages(shown)
        # What the reply runs with is decided on the engine thread, by the one planner every front end uses.
        request = ReplyRequest(
            settings,
            self._messages_of(context, settings),
            demo=self.demo.on,
            continue_reply=continuing is not None,
            trace=True,  # the step records are stored with the tokens, for the step view and `chats steps`
            first_step=0 if continuing is None else self.store.step_count(continuing.id),
            first_token=0 if continuing is None else len(continuing.tokens),
            tools=self.tool_flow.offered() if continuing is None else (),
            chunk_search=self.store.chunk_search_elsewhere(),
        )
        request = with_whole_documents(request, self.attachments.take_whole())
        live = LiveReply(
            GenerateJob(request),
            conversation_id=self.conversation_id,
            parent_id=parent_id,
            continuing=continuing,
            view=self.panel.view,
            stats_panel=self.stats_panel,
            gauge=self.panel.gauge,
            saver=self.saver,
            footer_link=self.demo.link,
            calls=self.tool_flow.shown_tokens(request.tools),
            parent=self,
        )
        live.ended.connect(self._reply_ended)
        self._live = live
        self._set_activity(Activity.GENERATING)
        self.status.emit(self.tr("thinking…"))
        self.host.generate(live.job)

    def reply_to_branch(self, instead_of_last: bool = False) -> bool:
        """Generate the next reply to the active branch (after a reply's tool results); False: not now.

        ``instead_of_last``: the new reply is a sibling of the branch's last reply, as Regenerate makes one.
        """
        if not self._ready():
            return False
        if instead_of_last and self.path and self.path[-1].role == "assistant":
            self._start_reply(upto=len(self.path) - 1, parent_id=self.path[-1].parent_id)
        else:
            self._start_reply()
        return True

    def set_tools_running(self, running: bool) -> None:
        """A reply's tool calls are asked about and run: no reply starts meanwhile."""
        self._set_activity(Activity.TOOLS if running else Activity.IDLE)

    def stop(self) -> None:
        """Stop the running reply (or comparison) at the next step boundary."""
        if self.activity in (Activity.GENERATING, Activity.COMPARING):
            self.host.cancel()
            self.status.emit(self.tr("stopping…"))

    def reply_in_flight(self) -> int | None:
        """The store's id of the reply being generated (None when idle or not stored yet)."""
        reply = self._live.reply if self._live is not None else None
        return reply.reply_id if reply is not None else None

    def _on_prompt_ready(self, info: PromptInfo) -> None:
        if self._closed:
            return
        live = self._live
        if self.activity is not Activity.GENERATING or live is None or self.pair is None:
            return
        plan = info.plan
        if plan is None:
            return
        label = info_label(self.pair, plan.draft.drafter)
        drafter = drafter_words(self.pair, plan.draft.drafter)
        record = record_start(plan, label, drafter)
        record = self.attachments.keep_notices(record, plan)  # a reopened chat still says them
        notices = list(plan_notices(plan))  # a "whole document" that did not fit
        if info.dropped_messages:
            notices.append(
                self.tr(
                    "%n older message(s) did not fit in the {n_ctx}-token context and were left out of this reply",
                    "",
                    info.dropped_messages,
                ).format(n_ctx=info.n_ctx)
            )
        live.begin(record, reply_header(record), " ".join(notices), plan.prompt.reasoning_inside, info.n_tokens)
        self.context.show(info, streaming=True)
        self.status.emit(
            self.tr("generating ({prompt} prompt tokens, {reused} already in the cache)…").format(
                prompt=info.n_tokens, reused=info.reused
            )
        )

    def set_comparing(self, comparing: bool) -> None:
        """The window runs an A/B or sweep on the engine thread: no replies meanwhile."""
        self._set_activity(Activity.COMPARING if comparing else Activity.IDLE)

    def _set_activity(self, activity: Activity, redraw: bool = True) -> None:
        self.activity = activity
        self.panel.view.set_actions_enabled(activity is Activity.IDLE, redraw=redraw)
        self.panel.set_generating(activity in (Activity.GENERATING, Activity.COMPARING), self.can_send())
        self.activity_changed.emit(activity)

    # -- the reply in flight ---------------------------------------------------------------

    def _on_step(self, event: StepEvent) -> None:
        if not self._closed and self.activity is Activity.GENERATING and self._live is not None:
            self._live.step(event)

    def _on_finished(self, event: FinishedEvent) -> None:
        if not self._closed and self.activity is Activity.GENERATING and self._live is not None:
            self._live.finish(event)

    def _on_error(self, message: str) -> None:
        if self._closed:
            return
        if self.activity is Activity.GENERATING and self._live is not None:
            self._live.fail(message)  # its end shows the error
            return
        if self.activity is Activity.LOADING:
            self.pair = None
            self._after_load = None  # the message stays in the box; the banner says why nothing was sent
        self._show_error(message)

    def _reply_ended(self, end: ReplyEnd) -> None:
        live, self._live = self._live, None
        started = live is not None and live.reply is not None  # the prompt was ready: the reply has a row
        if live is not None:
            live.deleteLater()  # dropped: the next reply is a new one
        if end.kind is EndKind.FAILED:
            self._show_error(end.error or "")
            return
        saved = started and self.unsaved is None
        self._set_activity(Activity.IDLE, redraw=not saved)
        if saved:
            self.reload()  # the new reply's id, its siblings and its actions
        if self.unsaved is None and end.stats is not None:
            stats = end.stats
            self.status.emit(
                self.tr("{n} tokens at {rate} tok/s").format(
                    n=stats.emitted, rate=number(stats.tokens_per_second, ".1f")
                )
                + (
                    ", " + self.tr("acceptance {share}").format(share=number(stats.acceptance_rate, ".0%"))
                    if stats.drafted
                    else ""
                )
            )
        self.conversations_changed.emit()
        self.context.count()
        self.reply_finished.emit(end)

    def _show_error(self, message: str) -> None:
        self.panel.banner.show_message(message)
        self.status.emit(self.tr("error: {error}").format(error=message))
        if self.activity is not Activity.COMPARING:
            self._set_activity(Activity.IDLE)

    # -- the store guard -------------------------------------------------------------------

    @property
    def store_error(self) -> StoreWriteError | None:
        """Why the store refused the last write (None while it takes them)."""
        return self.saver.error

    @property
    def unsaved(self) -> UnsavedReply | None:
        """A finished reply the store has not taken yet."""
        return self.saver.waiting

    def retry_save(self) -> bool:
        """Try the store again with the reply that waits; True when nothing waits any more."""
        return self.saver.retry()

    def unsaved_markdown(self) -> str:
        """The reply the store has not taken, as Markdown for an export (empty when there is none)."""
        return self.saver.markdown(self._live.reply if self._live is not None else None)

    def _store_failed(self, error: StoreWriteError) -> None:
        if self.activity is Activity.GENERATING:
            # What cannot be saved should not grow: stop the reply; it stays whole in memory.
            self.host.cancel()
        self.status.emit(self.tr("not saved: {error}").format(error=error))
        self.store_failed.emit(error)

    def _saved_late(self) -> None:
        self.status.emit(self.tr("the reply that could not be saved is now saved"))
        self.conversations_changed.emit()
        self.store_recovered.emit()

    # -- the next prompt and links in the view ----------------------------------------------

    def context_messages(self) -> tuple[Message, ...]:
        """What the next reply's prompt would hold: the chat so far and the text in the prompt box."""
        typed = self.panel.prompt.toPlainText().strip()
        stored = self.path
        kept: tuple[Attachment, ...] = ()
        editing = self.tree.editing
        if editing is not None:  # the edited message's new text replaces it and what followed
            index = self.tree.index_of(editing)
            stored = stored[:index] if index is not None else stored
            kept = next((m.attachments for m in self.path if m.id == editing), ())  # an edit keeps its files
        messages = self._messages_of(stored, self.chat_settings())
        pending = (*kept, *(a for a in self.attachments.attachments() if a not in kept))
        return (*messages, Message("user", typed, pending)) if typed or pending else messages

    def _on_link(self, url: QUrl) -> None:
        if self.demo.follow(url.toString()):
            return
        if url.scheme() in ("http", "https", "mailto"):
            # A link in a reply: open it outside, as chat apps do; Tandem itself never goes online.
            QDesktopServices.openUrl(url)

    def set_store(self, store: ChatStore) -> None:
        """Use another store (after recovery, a fresh start or read-only); call only while idle."""
        self.store = store
        self.saver.reset(store)  # what waited had its ids in the other file
        self.conversation_id = None
        self.path = []
        self.tree.editing = None
        self.panel.show_editing(False)
        self.panel.view.set_messages([])
        self.chat_settings_changed.emit(self._pending)
        self.conversations_changed.emit()

    def shutdown(self) -> bool:
        """The window is closing: commit what is buffered and close the reply in flight as stopped.

        Never raises; False when a reply could not be saved (the window then offers to export it).
        """
        self._closed = True
        self.saver.stop()
        self.context.shutdown()
        self.attachments.shutdown()
        self.tool_flow.shutdown()
        if self.activity is Activity.GENERATING and self._live is not None:
            # One reply waits at most: send() refuses to start another while one does.
            waiting = self._live.abandon()
            if waiting is not None:
                self.saver.waiting = waiting
        return self.retry_save()
