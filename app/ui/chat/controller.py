"""The chat's flow: send, stream, stop, save, load; between the engine thread, the view and the store.

Every step event goes three ways: into the view (coloured tokens), into the
live statistics, and into a small buffer that is committed to SQLite a few
times a second and when the reply ends, so a crash loses at most the tail of
the reply in flight. The user's message is committed before generation starts.

The footer says in words what drafting did in the reply. Where the adaptive
controller kept the draft off, a footer link "show speculation anyway" makes
the chat's next replies draft at a fixed length for a demonstration; the
choice is kept in each reply's metadata, so a reopened chat remembers it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices

from app.core.chat import Message
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.decoding.stats import GenerationStats
from app.engine import chat_store
from app.engine.chat_store import ChatStore, StoredMessage, StoredToken, tokens_of_step
from app.engine.llama.session import DrafterKind, PairConfig
from app.ui.chat.panel import ChatPanel
from app.ui.chat.view import ViewMessage
from app.ui.settings.store import GenerationSettings
from app.ui.stats_panel import StatsPanel
from app.ui.worker import EngineHost, GenerateJob, PairInfo, PromptInfo

_FLUSH_MS = 300
_COUNT_MS = 250  # typing pause before the context gauge recounts
_REASONS = {
    FinishReason.EOG: "",
    FinishReason.STOP_STRING: "",
    FinishReason.MAX_TOKENS: "stopped at the token limit",
    FinishReason.CONTEXT_FULL: "the context is full: start a new chat or raise the context size",
    FinishReason.CANCELLED: "stopped",
}
_STATES = {FinishReason.CANCELLED: chat_store.CANCELLED}
# The fixed draft length of "show speculation anyway": long enough to show runs
# of accepted drafts and corrections, short enough to waste little when rejected.
DEMO_DRAFT_LENGTH = 4
DEMO_ON = "tandem:speculation-demo-on"
DEMO_OFF = "tandem:speculation-demo-off"


class Activity(enum.Enum):
    """What the engine thread is doing for us."""

    IDLE = "idle"
    LOADING = "loading"
    GENERATING = "generating"
    COMPARING = "comparing"


def pair_label(config: PairConfig) -> str:
    """Short description of a pair for headers and the status bar."""
    target = config.target.stem
    if config.drafter is DrafterKind.MODEL and config.draft is not None:
        return f"{target} + {config.draft.stem}"
    return f"{target} + n-gram" if config.drafter is DrafterKind.NGRAM else f"{target}, target only"


def drafting_words(s: dict[str, Any], drafter: str, adaptive: bool, demo_length: int) -> list[str]:
    """What drafting did in a reply, in words (the footer's middle), from its statistics summary."""
    drafted = int(s.get("drafted", 0))
    numbers = [
        f"acceptance {s.get('acceptance_rate', 0.0):.0%}",
        f"mean accepted {s.get('mean_accepted_length', 0.0):.2f}",
    ]
    if drafter in ("none", ""):
        return ["target only"]
    if demo_length:
        return [f"speculation demo: {demo_length} drafted tokens every step", *numbers]
    steps, drafting = int(s.get("steps", 0)), int(s.get("drafting_steps", drafted > 0))
    if adaptive and steps and drafting < steps and s.get("last_draft_length", 1) == 0:
        if drafter == "ngram":
            why = "lookup off for now: recent proposals were rejected or nothing repeated"
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


def view_message(message: StoredMessage) -> ViewMessage:
    """A stored turn as the view shows it."""
    meta = message.meta
    notice = ""
    if meta.get("dropped_messages"):
        notice = f"{meta['dropped_messages']} older messages did not fit in the context and were left out of this reply"
    footer = ""
    if message.role == "assistant":
        if message.state == chat_store.INTERRUPTED:
            footer = "interrupted: the app closed while this reply was being written"
        elif message.state == chat_store.FAILED:
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
    return ViewMessage(
        message.role, message.content, list(tokens), str(meta.get("pair", "")), notice=notice, footer=footer
    )


def offers_demo(meta: dict[str, Any]) -> bool:
    """True for a finished reply in which the adaptive controller kept a model draft off at the end."""
    stats = meta.get("stats") or {}
    return (
        meta.get("drafter") == "model"
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

    def __init__(
        self,
        store: ChatStore,
        host: EngineHost,
        panel: ChatPanel,
        stats_panel: StatsPanel,
        settings: Callable[[], GenerationSettings],
    ) -> None:
        super().__init__(panel)
        self.store = store
        self.host = host
        self.panel = panel
        self.stats_panel = stats_panel
        self._settings = settings
        self.activity = Activity.IDLE
        self.pair: PairInfo | None = None
        self.conversation_id: int | None = None
        self._reply_id: int | None = None
        self._reply_meta: dict[str, Any] = {}
        self._pending: list[StoredToken] = []
        self._live = GenerationStats()
        self._job: GenerateJob | None = None
        # Per chat: "show speculation anyway" is on (a chat not yet created is None).
        self._demo: dict[int | None, bool] = {}
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(_FLUSH_MS)
        self._flush_timer.timeout.connect(self._flush)
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
        self.pair = info
        self.panel.banner.hide()  # an earlier load error no longer applies
        self._set_activity(Activity.IDLE)
        self.status.emit(
            f"ready: {pair_label(info.config)} ({info.n_ctx} tokens of context, {info.load_seconds:.1f} s)"
        )
        self.pair_loaded.emit(info)
        self.count_context()

    # -- conversations ----------------------------------------------------------------

    def new_conversation(self) -> None:
        """Start afresh (the conversation is created in the store when the first message is sent)."""
        if self.activity is Activity.GENERATING:
            return
        self.conversation_id = None
        self._demo.pop(None, None)  # a new chat starts with the adaptive controller
        self.panel.view.set_messages([])
        self.panel.banner.hide()
        self.count_context()
        self.conversations_changed.emit()

    def open_conversation(self, conversation_id: int) -> None:
        """Show a saved conversation, recoloured from its stored token origins."""
        if self.activity is Activity.GENERATING or conversation_id == self.conversation_id:
            return
        self.conversation_id = conversation_id
        stored = self.store.messages(conversation_id)
        replies = [m for m in stored if m.role == "assistant" and "stats" in m.meta]
        if conversation_id not in self._demo and replies:
            self._demo[conversation_id] = bool(replies[-1].meta.get("demo_length"))
        self.panel.view.set_messages([view_message(m) for m in stored])
        self._offer_demo_links(stored)
        self.panel.banner.hide()
        self.count_context()

    def history(self, conversation_id: int, upto_last_user: bool = False) -> list[Message]:
        """The conversation as chat messages for the prompt (system prompt first)."""
        messages = [
            Message(m.role, m.content)
            for m in self.store.messages(conversation_id, with_tokens=False)
            if m.content and m.role in ("user", "assistant", "system")
        ]
        if upto_last_user:
            while messages and messages[-1].role != "user":
                messages.pop()
        system = self._settings().system_prompt.strip()
        return ([Message("system", system)] if system else []) + messages

    # -- a reply ------------------------------------------------------------------------

    def can_send(self) -> bool:
        """A pair is loaded and nothing else runs."""
        return self.pair is not None and self.activity is Activity.IDLE

    def send(self, text: str) -> bool:
        """Save the user's message and start the reply; False (with a message) when that is not possible."""
        if self.pair is None:
            self.panel.banner.show_message("No model pair is loaded yet: pick one in the Model tab and press Load.")
            return False
        if self.activity is not Activity.IDLE:
            return False
        if self.conversation_id is None:
            title = " ".join(text.split())[:48] or "New chat"
            self.conversation_id = self.store.create_conversation(title)
            self._demo[self.conversation_id] = self._demo.pop(None, False)
        self.store.add_message(self.conversation_id, "user", text)
        self.panel.view.add_message(ViewMessage("user", text))
        self.panel.prompt.clear()
        self.panel.banner.hide()
        self.conversations_changed.emit()
        settings = self._settings()
        demo = self.demo_speculation and self.pair.config.drafter is not DrafterKind.NONE
        self._job = GenerateJob(
            tuple(self.history(self.conversation_id)),
            settings.sampling_params(),
            max_tokens=settings.max_tokens,
            draft_length=DEMO_DRAFT_LENGTH if demo else settings.draft_length,
            adaptive=settings.adaptive and not demo,
        )
        self._reply_id = None
        self._live = GenerationStats()
        self.stats_panel.reset(self.pair.config.drafter.value, self._job.adaptive)
        self._set_activity(Activity.GENERATING)
        self.status.emit("thinking…")
        self.host.generate(self._job)
        return True

    def stop(self) -> None:
        """Stop the running reply (or comparison) at the next step boundary."""
        if self.activity in (Activity.GENERATING, Activity.COMPARING):
            self.host.cancel()
            self.status.emit("stopping…")

    def _on_prompt_ready(self, info: PromptInfo) -> None:
        if self.activity is not Activity.GENERATING or self.conversation_id is None or self.pair is None:
            return
        label = pair_label(self.pair.config)
        self._reply_meta = {
            "pair": label,
            "drafter": self.pair.config.drafter.value,
            "prompt_tokens": info.n_tokens,
            "dropped_messages": info.dropped_messages,
            "adaptive": bool(self._job and self._job.adaptive),
            "demo_length": self._job.draft_length if self._job and self.demo_speculation else 0,
        }
        self._reply_id = self.store.begin_reply(self.conversation_id, self._reply_meta)
        notice = ""
        if info.dropped_messages:
            notice = (
                f"{info.dropped_messages} older messages did not fit in the {info.n_ctx}-token context "
                "and were left out of this reply"
            )
        self.panel.view.begin_reply(label, notice)
        self._prompt_tokens = info.n_tokens
        self._show_gauge(info, streaming=True)
        self.status.emit(f"generating ({info.n_tokens} prompt tokens)…")

    def _on_step(self, event: StepEvent) -> None:
        if self.activity is not Activity.GENERATING or self._reply_id is None:
            return
        tokens = tokens_of_step(event)
        self.panel.view.append_tokens(tokens)
        self._pending.extend(tokens)
        if not self._flush_timer.isActive():
            self._flush_timer.start()
        self._live.record(event)
        self.stats_panel.update_stats(self._live)
        gauge = self.panel.gauge
        gauge.set_counts(self._prompt_tokens + self._live.emitted, gauge.total, gauge.dropped, streaming=True)

    def _flush(self) -> None:
        if self._reply_id is not None and self._pending:
            pending, self._pending = self._pending, []
            self.store.append_tokens(self._reply_id, pending)

    def _on_finished(self, event: FinishedEvent) -> None:
        if self.activity is not Activity.GENERATING:
            return
        self._flush_timer.stop()
        self._flush()
        drafter = self._reply_meta.get("drafter", "")
        stats = {**event.stats.to_dict(), "last_draft_length": event.stats.last_draft_length}
        meta = {"stats": stats, "finish_reason": event.reason.value}
        if self._reply_id is not None:
            self.store.finish_reply(self._reply_id, event.text, _STATES.get(event.reason, chat_store.DONE), meta)
        adaptive, demo_length = bool(self._reply_meta.get("adaptive")), int(self._reply_meta.get("demo_length", 0))
        if self.panel.view.messages:
            self.panel.view.messages[-1].footer_link = self._demo_link({**self._reply_meta, **meta})
        self.panel.view.end_reply(footer_text(event.stats, event.reason, drafter, adaptive, demo_length))
        self.stats_panel.update_stats(event.stats)
        self._reply_id = None
        self._job = None
        self._set_activity(Activity.IDLE)
        self.status.emit(
            f"{event.stats.emitted} tokens at {event.stats.tokens_per_second:.1f} tok/s"
            + (f", acceptance {event.stats.acceptance_rate:.0%}" if event.stats.drafted else "")
        )
        self.conversations_changed.emit()
        self.count_context()
        self.reply_finished.emit(event)

    def _on_error(self, message: str) -> None:
        if self.activity is Activity.GENERATING:
            self._flush_timer.stop()
            self._flush()
            if self._reply_id is not None:
                partial = "".join(t.text for t in self.store.tokens(self._reply_id))
                self.store.finish_reply(self._reply_id, partial, chat_store.FAILED, {"error": message})
                self.panel.view.end_reply(f"failed: {message}")
            self._reply_id = None
            self._job = None
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
        if self.conversation_id is not None:
            messages = self.history(self.conversation_id)
        else:
            system = self._settings().system_prompt.strip()
            messages = [Message("system", system)] if system else []
        if typed:
            messages.append(Message("user", typed))
        return tuple(messages)

    def count_context(self) -> None:
        """Ask the engine thread for the size of the next prompt (only while it is free)."""
        self._count_timer.stop()
        if self.pair is None:
            self.panel.gauge.clear()
            return
        if self.activity is not Activity.IDLE:
            return
        messages = self.context_messages()
        if not messages:
            self.panel.gauge.set_counts(0, self.pair.n_ctx)
            return
        self.host.count_prompt(messages, self._settings().max_tokens)

    def _on_counted(self, info: PromptInfo) -> None:
        if self.activity is Activity.IDLE:
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

    def _set_activity(self, activity: Activity) -> None:
        self.activity = activity
        self.panel.set_generating(
            activity in (Activity.GENERATING, Activity.COMPARING), self.pair is not None and activity is Activity.IDLE
        )
        self.activity_changed.emit(activity)

    def shutdown(self) -> None:
        """The window is closing: commit what is buffered and close the reply in flight as stopped."""
        self._flush_timer.stop()
        self._flush()
        if self.activity is Activity.GENERATING and self._reply_id is not None:
            partial = "".join(t.text for t in self.store.tokens(self._reply_id))
            self.store.finish_reply(self._reply_id, partial, chat_store.CANCELLED, {"finish_reason": "cancelled"})
            self._reply_id = None
