"""A reply as it streams in and ends: each step into the view, the statistics and the store; the end's footer.

:class:`ReplyStream` is part of :class:`~app.ui.chat.controller.ChatController`
(mixed in), kept here so that starting a reply and following it each read in
one sitting. What it says is in the controller's translation context, where
the catalogue has it. What it uses of the controller is declared below for
the type checker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, SignalInstance

from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.stats import GenerationStats
from app.core.reply.reasoning import ReasoningTally
from app.core.reply.record import STORE_ERROR_REASON, ReplyRecord
from app.engine.reply import finished_state, record_end
from app.engine.store import conversations
from app.engine.store.database import StoreWriteError
from app.ui.chat.activity import Activity
from app.ui.chat.reply.saving import ReplySaver, UnsavedReply
from app.ui.chat.reply.words import footer_text
from app.ui.i18n.words import number

if TYPE_CHECKING:
    from app.engine.store.conversations import StoredMessage
    from app.ui.chat.panel import ChatPanel
    from app.ui.stats.stats_panel import StatsPanel
    from app.ui.threads.jobs import GenerateJob, PairInfo
    from app.ui.threads.worker import EngineHost


class ReplyStream:
    """A streaming reply's steps, end and failures, for the chat controller they are mixed into."""

    if TYPE_CHECKING:  # what the stream uses of the controller
        host: EngineHost
        panel: ChatPanel
        stats_panel: StatsPanel
        saver: ReplySaver
        activity: Activity
        pair: PairInfo | None
        _closed: bool
        _reply: UnsavedReply | None
        _continuing: StoredMessage | None
        _job: GenerateJob | None
        _live: GenerationStats
        _tally: ReasoningTally
        _prompt_tokens: int
        status: SignalInstance
        store_failed: SignalInstance
        store_recovered: SignalInstance
        conversations_changed: SignalInstance
        reply_finished: SignalInstance

        def _set_activity(self, activity: Activity, redraw: bool = True) -> None: ...
        def _demo_link(self, meta: dict[str, Any]) -> tuple[str, str] | None: ...
        def reload(self) -> None: ...
        def count_context(self) -> None: ...

    def _on_step(self, event: StepEvent) -> None:
        if self._closed:
            return
        if self.activity is not Activity.GENERATING or self._reply is None:
            return
        tokens = event.tokens
        step_ms = event.record.draft_ms + event.record.verify_ms if event.record is not None else None
        self.panel.view.append_tokens(tokens, step_ms)  # the step's time: the "Thinking (N s)" header
        self._reply.unsaved.extend(tokens)
        if event.record is not None:
            self._reply.unsaved_steps.append(event.record)
        self._reply.texts.extend(t.text for t in tokens)
        self.saver.flush_soon(self._reply)
        self._live.record(event)
        self.stats_panel.update_stats(self._live)
        for token in event.tokens:
            self._tally.add(token.text, str(token.origin))
        self.stats_panel.set_parts(self._tally.split() if self._tally.has_block else None)
        gauge = self.panel.gauge
        gauge.set_counts(self._prompt_tokens + self._live.emitted, gauge.total, gauge.dropped, streaming=True)

    @property
    def store_error(self) -> StoreWriteError | None:
        """Why the store refused the last write (None while it takes them)."""
        return self.saver.error

    @property
    def unsaved(self) -> UnsavedReply | None:
        """A finished reply the store has not taken yet."""
        return self.saver.waiting

    def _store_failed(self, error: StoreWriteError) -> None:
        if self.activity is Activity.GENERATING:
            # What cannot be saved should not grow: stop the reply; it stays whole in memory.
            self.host.cancel()
        self.status.emit(QCoreApplication.translate("ChatController", "not saved: {error}").format(error=error))
        self.store_failed.emit(error)

    def retry_save(self) -> bool:
        """Try the store again with the reply that waits; True when nothing waits any more."""
        return self.saver.retry()

    def _saved_late(self) -> None:
        self.status.emit(QCoreApplication.translate("ChatController", "the reply that could not be saved is now saved"))
        self.conversations_changed.emit()
        self.store_recovered.emit()

    def unsaved_markdown(self) -> str:
        """The reply the store has not taken, as Markdown for an export (empty when there is none)."""
        return self.saver.markdown(self._reply)

    def _on_finished(self, event: FinishedEvent) -> None:
        if self._closed:
            return
        if self.activity is not Activity.GENERATING:
            return
        reply_meta = self._reply.meta if self._reply is not None else {}
        started = ReplyRecord.from_meta(reply_meta)
        footer = footer_text(event.stats, event.reason, started.drafter, started.adaptive, started.demo_length)
        shown = self.panel.view.messages
        meta: dict[str, Any] = record_end(event, shown[-1].thinking_seconds if shown else None)
        if self._reply is not None and self._continuing is not None:
            # The grown reply's metadata describes its last part (its statistics, what produced it).
            meta = {**reply_meta, **meta}
        if self._reply is not None:
            state = finished_state(event.reason)
            if self.store_error is not None:
                why = str(self.store_error)
                meta.update(finish_reason=STORE_ERROR_REASON, error=why)
                state = conversations.FAILED
                footer = QCoreApplication.translate("ChatController", "stopped: {error}").format(error=why)
            self._reply.ending = (self._reply.prefix + event.text, state, meta)
            self.saver.finish(self._reply)
        if self.panel.view.messages:
            self.panel.view.messages[-1].footer_link = self._demo_link({**reply_meta, **meta})
        self.panel.view.end_reply(footer)
        self.stats_panel.update_stats(event.stats)
        self._tally.finish()
        self.stats_panel.set_parts(self._tally.split() if self._tally.has_block else None)
        saved = self._reply is not None and self.unsaved is None
        self._reply = None
        self._job = None
        self._continuing = None
        self._set_activity(Activity.IDLE, redraw=not saved)
        if saved:
            self.reload()  # the new reply's id, its siblings and its actions
        if self.unsaved is None:
            self.status.emit(
                QCoreApplication.translate("ChatController", "{n} tokens at {rate} tok/s").format(
                    n=event.stats.emitted, rate=number(event.stats.tokens_per_second, ".1f")
                )
                + (
                    ", "
                    + QCoreApplication.translate("ChatController", "acceptance {share}").format(
                        share=number(event.stats.acceptance_rate, ".0%")
                    )
                    if event.stats.drafted
                    else ""
                )
            )
        self.conversations_changed.emit()
        self.count_context()
        self.reply_finished.emit(event)

    def _on_error(self, message: str) -> None:
        if self._closed:
            return
        if self.activity is Activity.GENERATING:
            self.saver.stop_flushing()
            if self._reply is not None:
                self._reply.ending = (self._reply.text, conversations.FAILED, {"error": message})
                self.saver.finish(self._reply)
                self.panel.view.end_reply(
                    QCoreApplication.translate("ChatController", "failed: {error}").format(error=message)
                )
            self._reply = None
            self._job = None
            self._continuing = None
        elif self.activity is Activity.LOADING:
            self.pair = None
        self.panel.banner.show_message(message)
        self.status.emit(QCoreApplication.translate("ChatController", "error: {error}").format(error=message))
        if self.activity is not Activity.COMPARING:
            self._set_activity(Activity.IDLE)
