"""The chat's flow: send, stream, stop, save, load; between the engine thread, the view and the store.

Every step event goes three ways: into the view (coloured tokens), into the
live statistics, and into a small buffer that is committed to SQLite a few
times a second and when the reply ends, so a crash loses at most the tail of
the reply in flight. The user's message is committed before generation starts.

When the store cannot take a write (full disk, I/O error, read-only file) the
reply is stopped, kept whole in memory (:class:`UnsavedReply`) and written
as soon as a retry succeeds; the controller goes back to idle at once and
:attr:`ChatController.store_failed` tells the window to say so.

The footer says in words what drafting did in the reply. Where the adaptive
controller kept the draft off, a footer link "show speculation anyway" makes
the chat's next replies draft at a fixed length for a demonstration; the
choice is kept in each reply's metadata, so a reopened chat remembers it.

A conversation is a tree (the store keeps every branch): Regenerate starts a
sibling of a reply, Edit sends a sibling of a user message, Continue grows a
reply cut at the token limit in place, Delete removes a message with what
follows it, and the branch switcher moves between siblings. The view always
shows the active branch, reloaded from the store after every change.

Each chat has its own settings (:class:`~app.core.chat_settings.ChatSettings`:
system prompt, sampling, drafter, draft length); a chat not created yet holds
them until its first message creates it. Every reply records what produced it
under ``meta["produced_by"]``, with the seed actually used (a random seed is
drawn here, so even a "random" reply can be reproduced).
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox

from app.core.adaptive.controller import DEFAULT_MAX_LENGTH
from app.core.chat import Message
from app.core.chat_settings import ChatSettings, reply_provenance
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.decoding.stats import GenerationStats
from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.store import conversations
from app.engine.store.conversations import ACTIVE_LEAF, ChatStore, StoredMessage, StoredToken, tokens_of_step
from app.engine.store.database import StoreWriteError
from app.ui.chat.panel import ChatPanel
from app.ui.chat.reply_info import provenance_html
from app.ui.chat.view import ViewMessage
from app.ui.stats_panel import StatsPanel
from app.ui.worker import EngineHost, GenerateJob, PairInfo, PromptInfo

_FLUSH_MS = 300
_RETRY_MS = 5000  # how often an unsaved reply tries the store again
STORE_ERROR_REASON = "store-error"
_COUNT_MS = 250  # typing pause before the context gauge recounts
_REASONS = {
    FinishReason.EOG: "",
    FinishReason.STOP_STRING: "",
    FinishReason.MAX_TOKENS: "stopped at the token limit",
    FinishReason.CONTEXT_FULL: "the context is full: start a new chat or raise the context size",
    FinishReason.CANCELLED: "stopped",
}
_STATES = {FinishReason.CANCELLED: conversations.CANCELLED}


@dataclass(slots=True)
class UnsavedReply:
    """The reply in flight, and whatever of it the store has not taken yet."""

    conversation_id: int
    meta: dict[str, Any]
    reply_id: int | None = None  # None until the store has a row for it
    parent_id: int | None = ACTIVE_LEAF  # what the reply answers (a regenerated reply: the same user message)
    prefix: str = ""  # a continued reply: its text before this generation
    unsaved: list[StoredToken] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # every token's text so far, saved or not
    ending: tuple[str, str, dict[str, Any]] | None = None  # content, state, meta once the reply ended

    @property
    def text(self) -> str:
        """The reply so far."""
        return "".join(self.texts)

    def pending(self) -> bool:
        """Something is still to be written."""
        return self.reply_id is None or bool(self.unsaved) or self.ending is not None


# The fixed draft length of "show speculation anyway": long enough to show runs
# of accepted drafts and corrections, short enough to waste little when rejected.
DEMO_DRAFT_LENGTH = 4
DEMO_ON = "tandem:speculation-demo-on"
DEMO_OFF = "tandem:speculation-demo-off"


# Replies that can be continued: cut at the token limit, stopped by the user, or cut by a crash.
_CONTINUABLE_REASONS = (FinishReason.MAX_TOKENS.value, FinishReason.CANCELLED.value)


def adaptive_max_length(draft_length: int) -> int:
    """The adaptive controller's upper bound for a chat's draft length (a floor on the maximum, not a fixed K)."""
    return max(draft_length, DEFAULT_MAX_LENGTH)


def draft_policy_words(settings: ChatSettings, drafter: DrafterKind, demo: bool) -> str:
    """The draft-length policy a reply actually ran with, in words, for its provenance."""
    if drafter is DrafterKind.NONE:
        return "none"
    if demo:
        return f"fixed {DEMO_DRAFT_LENGTH} (speculation demo)"
    if settings.adaptive:
        return f"adaptive, up to {adaptive_max_length(settings.draft_length)}"
    return f"fixed {settings.draft_length}"


def message_actions(message: StoredMessage, last: bool) -> tuple[str, ...]:
    """What a stored message offers in its action line (keys of :data:`app.ui.chat.view.ACTION_LABELS`)."""
    if message.role == "user":
        return ("edit", "delete")
    if message.role != "assistant":
        return ("delete",)
    actions: list[str] = ["regenerate"]
    meta = message.meta
    if last and (meta.get("finish_reason") in _CONTINUABLE_REASONS or message.state == conversations.INTERRUPTED):
        actions.append("continue")
    actions.append("delete")
    if isinstance(meta.get("produced_by"), dict):
        actions.append("info")
    return tuple(actions)


class Activity(enum.Enum):
    """What the engine thread is doing for us."""

    IDLE = "idle"
    LOADING = "loading"
    GENERATING = "generating"
    COMPARING = "comparing"


def pair_label(config: PairConfig) -> str:
    """Short description of a pair for headers and the status bar."""
    target = config.target.stem
    if config.drafter.uses_draft_model and config.draft is not None:
        return f"{target} + {config.draft.stem}"
    return f"{target} + n-gram" if config.drafter is DrafterKind.NGRAM else f"{target}, target only"


def info_label(info: PairInfo, drafter: DrafterKind | None = None) -> str:
    """What answers, for headers, the status bar and a reply's record: a server's model and address, or the pair
    as ``drafter`` used it (a chat may draft with n-gram lookup on a pair loaded with a draft model)."""
    if info.remote is not None:
        return info.remote.label
    config = info.config
    if drafter is None or drafter is config.drafter:
        return pair_label(config)
    return pair_label(replace(config, drafter=drafter, draft=config.draft if drafter.uses_draft_model else None))


def drafter_words(info: PairInfo, drafter: DrafterKind) -> str:
    """The drafter as a reply records it: a server's kind, else the drafter the chat used."""
    return info.drafter_name if info.remote is not None else drafter.value


def drafting_words(s: dict[str, Any], drafter: str, adaptive: bool, demo_length: int) -> list[str]:
    """What drafting did in a reply, in words (the footer's middle), from its statistics summary."""
    drafted = int(s.get("drafted", 0))
    numbers = [
        f"acceptance {s.get('acceptance_rate', 0.0):.0%}",
        f"mean accepted {s.get('mean_accepted_length', 0.0):.2f}",
    ]
    if drafter in ("none", ""):
        return ["target only"]
    if drafter.startswith("server"):  # a remote server: only what it reported
        return [*numbers, drafter] if drafted else [f"{drafter}: no draft statistics reported"]
    if demo_length:
        return [f"speculation demo: {demo_length} drafted tokens every step", *numbers]
    steps, drafting = int(s.get("steps", 0)), int(s.get("drafting_steps", drafted > 0))
    if adaptive and steps and drafting < steps and s.get("last_draft_length", 1) == 0:
        if drafter == "ngram":
            why = "lookup off for now: recent proposals were rejected or nothing repeated"
        elif drafter == "hybrid":
            why = "draft off: it would slow this machine down, and no trusted repeat to look up"
        else:
            why = "draft off: it would slow this machine down"
        if drafted:
            return [why, f"measured in {drafting} of {steps} steps, acceptance {s.get('acceptance_rate', 0.0):.0%}"]
        return [why]
    if not drafted:
        return ["no drafts in this reply" + (" (draft length 0 in Settings)" if not adaptive else "")]
    return [*numbers, f"drafter: {drafter}"]


def footer_text(
    stats: GenerationStats | dict[str, Any],
    reason: FinishReason | str,
    drafter: str,
    adaptive: bool = False,
    demo_length: int = 0,
) -> str:
    """The line under a reply."""
    s = stats.to_dict() if isinstance(stats, GenerationStats) else stats
    if isinstance(stats, GenerationStats):
        s["last_draft_length"] = stats.last_draft_length
    parts = [f"{s.get('emitted', 0)} tokens", f"{s.get('tokens_per_second', 0.0):.1f} tok/s"]
    parts += drafting_words(s, drafter, adaptive, demo_length)
    try:
        why = _REASONS.get(FinishReason(reason), "")
    except ValueError:
        why = str(reason)
    if why:
        parts.append(why)
    return "  ·  ".join(parts)


def view_message(
    message: StoredMessage, branch: tuple[int, int] = (1, 1), actions: tuple[str, ...] = ()
) -> ViewMessage:
    """A stored turn as the view shows it; ``branch`` is its (position, count) among its siblings."""
    meta = message.meta
    notice = ""
    if meta.get("dropped_messages"):
        notice = f"{meta['dropped_messages']} older messages did not fit in the context and were left out of this reply"
    footer = ""
    if message.role == "assistant":
        if message.state == conversations.INTERRUPTED:
            footer = "interrupted: the app closed while this reply was being written"
        elif meta.get("finish_reason") == STORE_ERROR_REASON:
            footer = f"stopped: {meta.get('error', 'the chat could not be saved')}"
        elif message.state == conversations.FAILED:
            footer = f"failed: {meta.get('error', 'unknown error')}"
        elif "stats" in meta:
            footer = footer_text(
                meta["stats"],
                meta.get("finish_reason", ""),
                meta.get("drafter", ""),
                bool(meta.get("adaptive", False)),
                int(meta.get("demo_length", 0)),
            )
    tokens = message.tokens
    if message.role == "assistant" and not tokens and message.content:
        tokens = [StoredToken(message.content, "target", 1.0)]
    if meta.get("continued") and footer:
        footer += "  ·  continued" + (f" {meta['continued']} times" if int(meta["continued"]) > 1 else "")
    produced_by = meta.get("produced_by")
    return ViewMessage(
        message.role,
        message.content,
        list(tokens),
        str(meta.get("pair", "")),
        notice=notice,
        footer=footer,
        message_id=message.id,
        branch=branch,
        actions=actions,
        info=provenance_html(produced_by, meta) if isinstance(produced_by, dict) else "",
    )


def offers_demo(meta: dict[str, Any]) -> bool:
    """True for a finished reply in which the adaptive controller kept a model draft off at the end."""
    stats = meta.get("stats") or {}
    return (
        meta.get("drafter") in ("model", "hybrid")
        and bool(meta.get("adaptive"))
        and not meta.get("demo_length")
        and int(stats.get("steps", 0)) > 0
        and stats.get("last_draft_length", 1) == 0
    )


class ChatController(QObject):
    """Owns the conversation flow; the window only wires widgets to it."""

    activity_changed = Signal(object)  # Activity
    pair_loaded = Signal(object)  # PairInfo
    status = Signal(str)
    conversations_changed = Signal()
    reply_finished = Signal(object)  # FinishedEvent
    store_failed = Signal(object)  # StoreWriteError: a reply waits in memory
    store_recovered = Signal()  # everything waiting has been written
    chat_settings_changed = Signal(object)  # ChatSettings: another chat (or a new one) is now current

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
        # What a new chat starts from (the window: the default preset, else the settings shown).
        self._new_chat_settings = new_chat_settings or ChatSettings
        self._pending = self._new_chat_settings()  # the settings of the chat not created yet
        self.activity = Activity.IDLE
        self.pair: PairInfo | None = None
        self.conversation_id: int | None = None
        self.path: list[StoredMessage] = []  # the active branch shown, root to leaf
        self.editing: int | None = None  # the user message being edited (its text is in the prompt box)
        self._continuing: StoredMessage | None = None  # the reply being continued
        self._reply: UnsavedReply | None = None  # the reply being generated
        self.unsaved: UnsavedReply | None = None  # a finished reply the store has not taken yet
        self.store_error: StoreWriteError | None = None
        self._closed = False  # after shutdown, late events from the engine thread are ignored
        self._live = GenerationStats()
        self._job: GenerateJob | None = None
        self._provenance: dict[str, Any] = {}
        self._parent_id: int | None = ACTIVE_LEAF
        self.info_box: QMessageBox | None = None
        # Asks before a message is deleted; the tests answer for the user.
        self.confirm: Callable[[str, str], bool] = self._ask
        # Per chat: "show speculation anyway" is on (a chat not yet created is None).
        self._demo: dict[int | None, bool] = {}
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(_FLUSH_MS)
        self._flush_timer.timeout.connect(self._flush)
        self._retry_timer = QTimer(self)
        self._retry_timer.setInterval(_RETRY_MS)
        self._retry_timer.timeout.connect(self.retry_save)
        self._prompt_tokens = 0
        self._count_timer = QTimer(self)
        self._count_timer.setSingleShot(True)
        self._count_timer.setInterval(_COUNT_MS)
        self._count_timer.timeout.connect(self.count_context)
        panel.prompt.textChanged.connect(self._count_timer.start)
        worker = host.worker
        worker.prompt_counted.connect(self._on_counted)
        worker.loaded.connect(self._on_loaded)
        worker.prompt_ready.connect(self._on_prompt_ready)
        worker.step.connect(self._on_step)
        worker.finished.connect(self._on_finished)
        worker.error.connect(self._on_error)
        panel.send_requested.connect(self.send)
        panel.stop_requested.connect(self.stop)
        panel.view.anchorClicked.connect(self._on_link)
        panel.view.message_action.connect(self._on_message_action)
        panel.edit_cancelled.connect(self.cancel_edit)

    # -- loading ---------------------------------------------------------------------

    def load(self, config: PairConfig) -> None:
        """Load a pair on the engine thread."""
        if self.activity is not Activity.IDLE:
            self.stop()
        self.pair = None
        self._set_activity(Activity.LOADING)
        self.status.emit(f"loading {pair_label(config)}…")
        self.host.load(config)

    def _on_loaded(self, info: PairInfo) -> None:
        if self._closed:
            return
        self.pair = info
        self.panel.banner.hide()  # an earlier load error no longer applies
        self._set_activity(Activity.IDLE)
        where = f" ({info.n_ctx} tokens of context, {info.load_seconds:.1f} s)" if info.remote is None else ""
        self.status.emit(f"ready: {info_label(info)}{where}")
        self.pair_loaded.emit(info)
        self.count_context()

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
                self.store.set_conversation_settings(self.conversation_id, settings.to_dict())
            except StoreWriteError as exc:
                self.panel.banner.show_message(str(exc))
        self.count_context()

    # -- conversations ----------------------------------------------------------------

    def new_conversation(self) -> None:
        """Start afresh (the conversation is created in the store when the first message is sent)."""
        if self.activity is Activity.GENERATING:
            return
        self.cancel_edit()
        self.conversation_id = None
        self.path = []
        self._pending = self._new_chat_settings()
        self._demo.pop(None, None)  # a new chat starts with the adaptive controller
        self.panel.view.set_messages([])
        self.panel.banner.hide()
        self.chat_settings_changed.emit(self._pending)
        self.count_context()
        self.conversations_changed.emit()

    def open_conversation(self, conversation_id: int, force: bool = False) -> None:
        """Show a saved conversation's active branch, recoloured from its stored token origins."""
        if self.activity is Activity.GENERATING or (conversation_id == self.conversation_id and not force):
            return
        self.cancel_edit()
        self.conversation_id = conversation_id
        self.reload()
        replies = [m for m in self.path if m.role == "assistant" and "stats" in m.meta]
        if conversation_id not in self._demo and replies:
            self._demo[conversation_id] = bool(replies[-1].meta.get("demo_length"))
            self._offer_demo_links(self.path)
        self.panel.banner.hide()
        self.chat_settings_changed.emit(self.chat_settings())
        self.count_context()

    def reload(self) -> None:
        """Show the conversation's active branch as the store has it, with each message's switcher and actions."""
        if self.conversation_id is None:
            self.path = []
            self.panel.view.set_messages([])
            return
        self.path = self.store.messages(self.conversation_id)
        self.panel.view.set_messages(self._shown(self.path))
        self._offer_demo_links(self.path)

    def _shown(self, stored: list[StoredMessage]) -> list[ViewMessage]:
        shown = []
        for i, message in enumerate(stored):
            siblings = self.store.siblings(message.id)
            position = siblings.index(message.id) + 1 if message.id in siblings else 1
            last = i == len(stored) - 1
            shown.append(view_message(message, (position, max(1, len(siblings))), message_actions(message, last)))
        return shown

    def history(self, conversation_id: int, upto_last_user: bool = False) -> list[Message]:
        """The conversation's active branch as chat messages for the prompt (the chat's system prompt first)."""
        stored = self.store.messages(conversation_id, with_tokens=False)
        messages = self._messages_of(stored, ChatSettings.from_dict(self.store.conversation_settings(conversation_id)))
        if upto_last_user:
            while messages and messages[-1].role != "user":
                messages.pop()
        return messages

    def _messages_of(self, stored: list[StoredMessage], settings: ChatSettings) -> list[Message]:
        messages = [
            Message(m.role, m.content) for m in stored if m.content and m.role in ("user", "assistant", "system")
        ]
        system = settings.system_prompt.strip()
        return ([Message("system", system)] if system else []) + messages

    # -- a reply ------------------------------------------------------------------------

    def can_send(self) -> bool:
        """A pair is loaded and nothing else runs."""
        return self.pair is not None and self.activity is Activity.IDLE

    def _ready(self) -> bool:
        """A reply may start now; else the banner says why (False)."""
        if self.pair is None:
            self.panel.banner.show_message("No model pair is loaded yet: pick one in the Model tab and press Load.")
            return False
        if self.activity is not Activity.IDLE:
            return False
        if self.store.read_only:
            self.panel.banner.show_message(
                "This window shows your chats read-only, so nothing new can be saved: "
                "close the other Tandem window (or repair the database) and restart to chat."
            )
            return False
        return self.unsaved is None or self.retry_save()  # the banner says why; the prompt stays in the box

    def send(self, text: str) -> bool:
        """Save the user's message and start the reply; False (with a message) when that is not possible.

        While a message is being edited, the text goes in as that message's new
        sibling (a new branch; the old one stays, reachable with the switcher).
        """
        if not self._ready():
            return False
        editing = next((m for m in self.path if m.id == self.editing), None) if self.editing is not None else None
        created = self.conversation_id is None
        try:
            if self.conversation_id is None:
                title = " ".join(text.split())[:48] or "New chat"
                self.conversation_id = self.store.create_conversation(title, self._pending.to_dict())
                self._demo[self.conversation_id] = self._demo.pop(None, False)
            if editing is not None:
                self.store.add_message(self.conversation_id, "user", text, parent_id=editing.parent_id)
            else:
                self.store.add_message(self.conversation_id, "user", text)
        except StoreWriteError as exc:
            self._store_failed(exc)
            return False  # nothing was sent: the prompt stays in the box
        self.cancel_edit()
        self.panel.prompt.clear()
        self.panel.banner.hide()
        if created:  # the settings shown are this chat's from now on
            self.chat_settings_changed.emit(self.chat_settings())
        self.conversations_changed.emit()
        self._start_reply()
        return True

    def regenerate(self, message_id: int) -> bool:
        """A new reply to the same message as the reply ``message_id`` (its sibling; the old one is kept)."""
        index = self._index(message_id)
        if index is None or self.path[index].role != "assistant" or not self._ready():
            return False
        self.cancel_edit()
        self._start_reply(upto=index, parent_id=self.path[index].parent_id)
        return True

    def continue_reply(self, message_id: int) -> bool:
        """Let the reply ``message_id`` (the last of its branch) grow where it stopped: the same message."""
        index = self._index(message_id)
        if index is None or index != len(self.path) - 1 or self.path[index].role != "assistant" or not self._ready():
            return False
        reply = self.path[index]
        try:
            self.store.reopen_reply(reply.id)
        except StoreWriteError as exc:
            self._store_failed(exc)
            return False
        self.cancel_edit()
        self._start_reply(continuing=reply)
        return True

    def start_edit(self, message_id: int) -> None:
        """Put a user message's text in the prompt box; sending it makes a new branch from that message."""
        index = self._index(message_id)
        if index is None or self.path[index].role != "user" or self.activity is not Activity.IDLE:
            return
        self.editing = message_id
        self.panel.show_editing(True)
        self.panel.prompt.setPlainText(self.path[index].content)
        self.panel.prompt.setFocus()
        self.status.emit("editing: send makes a new branch, the old one is kept (Cancel leaves it as it was)")

    def cancel_edit(self) -> None:
        """Leave editing (the prompt box is cleared only when it still holds the edited text)."""
        if self.editing is None:
            return
        original = next((m.content for m in self.path if m.id == self.editing), None)
        self.editing = None
        self.panel.show_editing(False)
        if original is not None and self.panel.prompt.toPlainText() == original:
            self.panel.prompt.clear()

    def delete_message(self, message_id: int, ask: bool = True) -> bool:
        """Delete a message with everything that follows it on its branches (after asking)."""
        index = self._index(message_id)
        if index is None or self.activity is not Activity.IDLE or self.store.read_only:
            return False
        following = len(self.path) - index - 1
        what = "this message" + (f" and the {following} after it on this branch" if following else "")
        others = " (and on every branch that grew from it)" if following else ""
        if ask and not self.confirm("Delete message", f"Delete {what}{others}? This cannot be undone."):
            return False
        self.cancel_edit()
        try:
            self.store.delete_message(message_id)
        except StoreWriteError as exc:
            self._store_failed(exc)
            return False
        self.reload()
        self.conversations_changed.emit()
        self.count_context()
        return True

    def switch_branch(self, message_id: int, step: int) -> bool:
        """Show the sibling ``step`` places before or after message ``message_id`` (‹ and ›)."""
        if self.activity is not Activity.IDLE:
            return False
        siblings = self.store.siblings(message_id)
        if message_id not in siblings:
            return False
        position = siblings.index(message_id) + step
        if not 0 <= position < len(siblings):
            return False
        self.cancel_edit()
        try:
            self.store.switch_to(siblings[position])
        except StoreWriteError as exc:
            self._store_failed(exc)
            return False
        self.reload()
        self.count_context()
        return True

    def show_info(self, message_id: int) -> None:
        """Show what produced a reply (pair, drafter, draft length, sampling, system prompt, seed)."""
        index = self._index(message_id)
        if index is None:
            return
        message = self.path[index]
        produced_by = message.meta.get("produced_by")
        if not isinstance(produced_by, dict):
            return
        box = QMessageBox(QMessageBox.Icon.Information, "What produced this reply", "", parent=self.panel)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(provenance_html(produced_by, message.meta))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.info_box = box

    def _index(self, message_id: int) -> int | None:
        return next((i for i, m in enumerate(self.path) if m.id == message_id), None)

    def _on_message_action(self, action: str, index: int) -> None:
        if not 0 <= index < len(self.path) or self.activity is not Activity.IDLE:
            return
        message_id = self.path[index].id
        if action == "regenerate":
            self.regenerate(message_id)
        elif action == "continue":
            self.continue_reply(message_id)
        elif action == "edit":
            self.start_edit(message_id)
        elif action == "delete":
            self.delete_message(message_id)
        elif action == "info":
            self.show_info(message_id)
        elif action in ("previous", "next"):
            self.switch_branch(message_id, -1 if action == "previous" else 1)

    def _ask(self, title: str, question: str) -> bool:
        answer = QMessageBox.question(self.panel, title, question)
        return answer == QMessageBox.StandardButton.Yes

    def _drafter(self, settings: ChatSettings) -> DrafterKind:
        """The drafter a reply uses: the chat's, unless it wants a draft model the loaded pair lacks."""
        assert self.pair is not None
        wanted = DrafterKind(settings.drafter)
        if wanted.uses_draft_model and self.pair.draft_name is None:
            return self.pair.config.drafter  # the pair was loaded without one: n-gram or target only
        return wanted

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
        if continuing is not None:
            shown[-1].footer, shown[-1].footer_link, shown[-1].actions = "", None, ()
        self.panel.view.set_messages(shown)
        kind = self._drafter(settings)
        demo = self.demo_speculation and kind is not DrafterKind.NONE
        seed = settings.seed if settings.seed >= 0 else random.randrange(2**31)
        params = replace(settings.sampling_params(), seed=seed)
        self._job = GenerateJob(
            tuple(self._messages_of(context, settings)),
            params,
            max_tokens=settings.max_tokens,
            draft_length=DEMO_DRAFT_LENGTH if demo else settings.draft_length,
            drafter=kind,
            adaptive=settings.adaptive and not demo,
            continue_reply=continuing is not None,
        )
        self._provenance = reply_provenance(
            settings,
            target=self.pair.target_name,
            draft=self.pair.draft_name,
            drafter=drafter_words(self.pair, kind),
            draft_policy=draft_policy_words(settings, kind, demo),
            seed=seed,
        )
        self._parent_id = parent_id
        self._continuing = continuing
        self._reply = None
        self._live = GenerationStats()
        self.stats_panel.reset(drafter_words(self.pair, kind), self._job.adaptive)
        self._set_activity(Activity.GENERATING)
        self.status.emit("thinking…")
        self.host.generate(self._job)

    def stop(self) -> None:
        """Stop the running reply (or comparison) at the next step boundary."""
        if self.activity in (Activity.GENERATING, Activity.COMPARING):
            self.host.cancel()
            self.status.emit("stopping…")

    def reply_in_flight(self) -> int | None:
        """The store's id of the reply being generated (None when idle or not stored yet)."""
        return self._reply.reply_id if self._reply is not None else None

    def _on_prompt_ready(self, info: PromptInfo) -> None:
        if self._closed:
            return
        if self.activity is not Activity.GENERATING or self.conversation_id is None or self.pair is None:
            return
        job = self._job
        kind = job.drafter if job is not None and job.drafter is not None else self.pair.config.drafter
        label = info_label(self.pair, kind)
        meta = {
            "pair": label,
            "drafter": drafter_words(self.pair, kind),
            "prompt_tokens": info.n_tokens,
            "prompt_reused": info.reused,
            "dropped_messages": info.dropped_messages,
            "adaptive": bool(job and job.adaptive),
            "demo_length": job.draft_length if job and self.demo_speculation else 0,
            "produced_by": self._provenance,
        }
        if info.draft_reused is not None:
            meta["draft_prompt_reused"] = info.draft_reused
        continuing = self._continuing
        if continuing is not None:
            # The reply's row exists: it grows, its tokens continue after the stored ones.
            meta["continued"] = int(continuing.meta.get("continued", 0)) + 1
            self._reply = UnsavedReply(
                self.conversation_id, {**continuing.meta, **meta}, continuing.id, texts=[continuing.content]
            )
            self._reply.prefix = continuing.content
        else:
            self._reply = UnsavedReply(self.conversation_id, meta, parent_id=self._parent_id)
            self._write(self._reply)
        notice = ""
        if info.dropped_messages:
            notice = (
                f"{info.dropped_messages} older messages did not fit in the {info.n_ctx}-token context "
                "and were left out of this reply"
            )
        if continuing is None:
            self.panel.view.begin_reply(label, notice)
        self._prompt_tokens = info.n_tokens
        self._show_gauge(info, streaming=True)
        self.status.emit(f"generating ({info.n_tokens} prompt tokens, {info.reused} already in the cache)…")

    def _on_step(self, event: StepEvent) -> None:
        if self._closed:
            return
        if self.activity is not Activity.GENERATING or self._reply is None:
            return
        tokens = tokens_of_step(event)
        self.panel.view.append_tokens(tokens)
        self._reply.unsaved.extend(tokens)
        self._reply.texts.extend(t.text for t in tokens)
        if not self._flush_timer.isActive() and self.store_error is None:
            self._flush_timer.start()
        self._live.record(event)
        self.stats_panel.update_stats(self._live)
        gauge = self.panel.gauge
        gauge.set_counts(self._prompt_tokens + self._live.emitted, gauge.total, gauge.dropped, streaming=True)

    def _flush(self) -> None:
        if self._reply is not None and self.store_error is None:
            self._write(self._reply)

    def _write(self, reply: UnsavedReply) -> bool:
        """Give the store what it has not got of ``reply``; on failure keep it all and say so."""
        try:
            if reply.reply_id is None:
                reply.reply_id = self.store.begin_reply(reply.conversation_id, reply.meta, parent_id=reply.parent_id)
            if reply.unsaved:
                self.store.append_tokens(reply.reply_id, reply.unsaved)
                reply.unsaved = []
            if reply.ending is not None:
                self.store.finish_reply(reply.reply_id, *reply.ending)
                reply.ending = None
        except StoreWriteError as exc:
            self._store_failed(exc)
            return False
        return True

    def _store_failed(self, error: StoreWriteError) -> None:
        self.store_error = error
        if self.activity is Activity.GENERATING:
            # What cannot be saved should not grow: stop the reply; it stays whole in memory.
            self.host.cancel()
        self.status.emit("not saved: " + str(error))
        if not self._retry_timer.isActive():
            self._retry_timer.start()
        self.store_failed.emit(error)

    def retry_save(self) -> bool:
        """Try the store again with the reply that waits; True when nothing waits any more."""
        if self._reply is not None:
            return False  # a reply is still ending: it is written (or kept) when it has ended
        waiting = self.unsaved
        if waiting is None:
            self.store_error = None
            self._retry_timer.stop()
            return True
        if self.store.read_only:
            return False
        self.store_error = None
        if not self._write(waiting):
            return False
        self.unsaved = None
        self._retry_timer.stop()
        self.status.emit("the reply that could not be saved is now saved")
        self.conversations_changed.emit()
        self.store_recovered.emit()
        return True

    def unsaved_markdown(self) -> str:
        """The reply the store has not taken, as Markdown for an export (empty when there is none)."""
        reply = self.unsaved or self._reply
        if reply is None or not reply.pending():
            return ""
        return f"### Assistant _(not saved)_\n\n{reply.text.rstrip()}\n"

    def _on_finished(self, event: FinishedEvent) -> None:
        if self._closed:
            return
        if self.activity is not Activity.GENERATING:
            return
        self._flush_timer.stop()
        drafter = self._reply.meta.get("drafter", "") if self._reply is not None else ""
        reply_meta = self._reply.meta if self._reply is not None else {}
        adaptive, demo_length = bool(reply_meta.get("adaptive")), int(reply_meta.get("demo_length", 0))
        footer = footer_text(event.stats, event.reason, drafter, adaptive, demo_length)
        stats = {**event.stats.to_dict(), "last_draft_length": event.stats.last_draft_length}
        meta: dict[str, Any] = {"stats": stats, "finish_reason": event.reason.value}
        if self._reply is not None and self._continuing is not None:
            # The grown reply's metadata describes its last part (its statistics, what produced it).
            meta = {**reply_meta, **meta}
        if self._reply is not None:
            state = _STATES.get(event.reason, conversations.DONE)
            if self.store_error is not None:
                why = str(self.store_error)
                meta.update(finish_reason=STORE_ERROR_REASON, error=why)
                state = conversations.FAILED
                footer = f"stopped: {why}"
            self._reply.ending = (self._reply.prefix + event.text, state, meta)
            if self.store_error is not None or not self._write(self._reply):
                self.unsaved = self._reply
        if self.panel.view.messages:
            self.panel.view.messages[-1].footer_link = self._demo_link({**reply_meta, **meta})
        self.panel.view.end_reply(footer)
        self.stats_panel.update_stats(event.stats)
        saved = self._reply is not None and self.unsaved is None
        self._reply = None
        self._job = None
        self._continuing = None
        self._set_activity(Activity.IDLE, redraw=not saved)
        if saved:
            self.reload()  # the new reply's id, its siblings and its actions
        if self.unsaved is None:
            self.status.emit(
                f"{event.stats.emitted} tokens at {event.stats.tokens_per_second:.1f} tok/s"
                + (f", acceptance {event.stats.acceptance_rate:.0%}" if event.stats.drafted else "")
            )
        self.conversations_changed.emit()
        self.count_context()
        self.reply_finished.emit(event)

    def _on_error(self, message: str) -> None:
        if self._closed:
            return
        if self.activity is Activity.GENERATING:
            self._flush_timer.stop()
            if self._reply is not None:
                self._reply.ending = (self._reply.text, conversations.FAILED, {"error": message})
                if self.store_error is not None or not self._write(self._reply):
                    self.unsaved = self._reply
                self.panel.view.end_reply(f"failed: {message}")
            self._reply = None
            self._job = None
            self._continuing = None
        elif self.activity is Activity.LOADING:
            self.pair = None
        self.panel.banner.show_message(message)
        self.status.emit("error: " + message)
        if self.activity is not Activity.COMPARING:
            self._set_activity(Activity.IDLE)

    # -- the context gauge ----------------------------------------------------------------

    def context_messages(self) -> tuple[Message, ...]:
        """What the next reply's prompt would hold: the chat so far and the text in the prompt box."""
        typed = self.panel.prompt.toPlainText().strip()
        stored = self.path
        if self.editing is not None:  # the edited message's new text replaces it and what followed
            index = self._index(self.editing)
            stored = stored[:index] if index is not None else stored
        messages = self._messages_of(stored, self.chat_settings())
        if typed:
            messages.append(Message("user", typed))
        return tuple(messages)

    def count_context(self) -> None:
        """Ask the engine thread for the size of the next prompt (only while it is free)."""
        self._count_timer.stop()
        if self._closed:  # the store is closed: a timer that fired late has nothing to count
            return
        if self.pair is None:
            self.panel.gauge.clear()
            return
        if self.activity is not Activity.IDLE:
            return
        messages = self.context_messages()
        if not messages:
            self.panel.gauge.set_counts(0, self.pair.n_ctx)
            return
        self.host.count_prompt(messages, self.chat_settings().max_tokens)

    def _on_counted(self, info: PromptInfo) -> None:
        if self.activity is Activity.IDLE and not self._closed:
            self._show_gauge(info, streaming=False)

    def _show_gauge(self, info: PromptInfo, streaming: bool) -> None:
        first = ""
        if info.dropped_messages:
            turns = [m for m in self.context_messages() if m.role != "system"]
            if turns:
                first = " ".join(turns[0].content.split()[:6]) + ("…" if len(turns[0].content.split()) > 6 else "")
        self.panel.gauge.set_counts(info.n_tokens, info.n_ctx, info.dropped_messages, first, streaming)

    # -- "show speculation anyway" -------------------------------------------------------

    @property
    def demo_speculation(self) -> bool:
        """Whether this chat's replies draft at :data:`DEMO_DRAFT_LENGTH` whatever the controller would say."""
        return self._demo.get(self.conversation_id, False)

    def set_demo_speculation(self, on: bool) -> None:
        """Turn the demonstration drafting on or off for this chat (from its next reply on)."""
        self._demo[self.conversation_id] = on
        if self.conversation_id is not None:
            self._offer_demo_links(self.store.messages(self.conversation_id, with_tokens=False))
        self.status.emit(
            f"this chat's next replies draft {DEMO_DRAFT_LENGTH} tokens every step, to show speculation"
            if on
            else "this chat's replies let the adaptive controller choose the draft length again"
        )

    def _demo_link(self, meta: dict[str, Any]) -> tuple[str, str] | None:
        if meta.get("demo_length"):
            return (DEMO_OFF, "back to adaptive") if self.demo_speculation else None
        if offers_demo(meta):
            if self.demo_speculation:
                return DEMO_OFF, "next reply drafts anyway (undo)"
            return DEMO_ON, "show speculation anyway"
        return None

    def _offer_demo_links(self, stored: list[StoredMessage]) -> None:
        """Put the demo link on the footers of the shown replies that qualify, as the chat's mode says."""
        view = self.panel.view
        assistant = [m for m in stored if m.role == "assistant"]
        shown = [m for m in view.messages if m.role == "assistant"]
        changed = False
        for message, shown_message in zip(assistant, shown, strict=False):
            link = self._demo_link(message.meta) if "stats" in message.meta else None
            if link != shown_message.footer_link:
                shown_message.footer_link = link
                changed = True
        if changed:
            view.refresh()

    def _on_link(self, url: QUrl) -> None:
        text = url.toString()
        if text == DEMO_ON:
            self.set_demo_speculation(True)
        elif text == DEMO_OFF:
            self.set_demo_speculation(False)
        elif url.scheme() in ("http", "https", "mailto"):
            # A link in a reply: open it outside, as chat apps do; Tandem itself never goes online.
            QDesktopServices.openUrl(url)

    def set_comparing(self, comparing: bool) -> None:
        """The window runs an A/B or sweep on the engine thread: no replies meanwhile."""
        self._set_activity(Activity.COMPARING if comparing else Activity.IDLE)

    def _set_activity(self, activity: Activity, redraw: bool = True) -> None:
        self.activity = activity
        self.panel.view.set_actions_enabled(activity is Activity.IDLE, redraw=redraw)
        self.panel.set_generating(
            activity in (Activity.GENERATING, Activity.COMPARING), self.pair is not None and activity is Activity.IDLE
        )
        self.activity_changed.emit(activity)

    def set_store(self, store: ChatStore) -> None:
        """Use another store (after recovery, a fresh start or read-only); call only while idle."""
        self.store = store
        self.unsaved = None  # its ids belonged to the other file
        self.store_error = None
        self._retry_timer.stop()
        self.conversation_id = None
        self.path = []
        self.editing = None
        self.panel.show_editing(False)
        self.panel.view.set_messages([])
        self.chat_settings_changed.emit(self._pending)
        self.conversations_changed.emit()

    def shutdown(self) -> bool:
        """The window is closing: commit what is buffered and close the reply in flight as stopped.

        Never raises; False when a reply could not be saved (the window then offers to export it).
        """
        self._closed = True
        self._flush_timer.stop()
        self._retry_timer.stop()
        self._count_timer.stop()
        if self.activity is Activity.GENERATING and self._reply is not None:
            # One reply waits at most: send() refuses to start another while one does.
            reply, self._reply = self._reply, None
            if self.store_error is not None:
                reply.ending = (
                    reply.text,
                    conversations.FAILED,
                    {"finish_reason": STORE_ERROR_REASON, "error": str(self.store_error)},
                )
            else:
                reply.ending = (reply.text, conversations.CANCELLED, {"finish_reason": "cancelled"})
            self.unsaved = reply
        return self.retry_save()
