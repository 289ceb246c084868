"""The reply in flight: one object per reply, from its request to its end.

The controller makes a :class:`LiveReply` when it asks the engine thread for a
reply and drops it when the reply has ended. In between the live reply owns
everything that is the reply's: the job, the reply as the store guard keeps it
(:class:`~app.ui.chat.reply.saving.UnsavedReply`), the message it grows (Continue),
the live statistics, the acceptance tally of thinking and answer, the clock of its
reasoning block and the prompt's size for the gauge. The worker's events reach
it through the controller: :meth:`LiveReply.begin` when the prompt is ready,
:meth:`LiveReply.step` for every verify step (into the view, the statistics, the
gauge and the store guard), and :meth:`LiveReply.finish` or :meth:`LiveReply.fail`
at the end, which write the end, close the view's reply and emit
:attr:`LiveReply.ended` with the one :class:`~app.core.reply.end.ReplyEnd` every
listener reads. What it says is in the controller's translation context, where
the catalogue has it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.stats import GenerationStats
from app.core.reply.end import ReplyEnd
from app.core.reply.reasoning import ReasoningTally
from app.core.reply.record import ReplyRecord
from app.core.reply.thinking import ThinkingClock, step_ms
from app.core.tools.reader import ShownTokens
from app.engine.reply import end_of
from app.engine.store.conversations import StoredMessage
from app.ui.accessibility import announce
from app.ui.chat.context.gauge import ContextGauge
from app.ui.chat.reply.saving import ReplySaver, UnsavedReply
from app.ui.chat.reply.words import end_announcement, footer_text
from app.ui.chat.view.chat_view import ChatView
from app.ui.stats.stats_panel import StatsPanel
from app.ui.threads.jobs import GenerateJob

FooterLink = Callable[[Mapping[str, Any]], tuple[str, str] | None]


class LiveReply(QObject):
    """One reply being generated: its state, its steps into the view, the statistics and the store, its end."""

    ended = Signal(object)  # ReplyEnd: the reply has ended (written, or waiting in the store guard)

    def __init__(
        self,
        job: GenerateJob,
        *,
        conversation_id: int,
        parent_id: int | None,
        continuing: StoredMessage | None,
        view: ChatView,
        stats_panel: StatsPanel,
        gauge: ContextGauge,
        saver: ReplySaver,
        footer_link: FooterLink,
        calls: ShownTokens | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.job = job
        self._calls = calls  # a reply offered tools: its calls' tokens never reach the view
        self.conversation_id = conversation_id
        self.parent_id = parent_id  # what the reply answers (a regenerated reply: the same user message)
        self.continuing = continuing  # the stored reply this one grows (Continue), else None
        self._view = view
        self._stats_panel = stats_panel
        self._gauge = gauge
        self._saver = saver
        self._footer_link = footer_link  # the demo switch's link for a reply's footer (its meta decides)
        self.reply: UnsavedReply | None = None  # None until the prompt is ready (nothing stored before)
        self.stats = GenerationStats()
        self._tally = ReasoningTally()  # acceptance in thinking and in the answer apart
        self._clock = ThinkingClock()
        self._before_seconds: float | None = None  # a continued reply's earlier thinking time
        self._prompt_tokens = 0

    def begin(self, record: ReplyRecord, label: str, notice: str, inside: bool, prompt_tokens: int) -> None:
        """The prompt is ready: the reply's row is written (or the continued one reopened) and its header drawn."""
        self._stats_panel.reset(record.drafter, record.adaptive)
        self._tally = ReasoningTally(inside=inside)
        self._clock = ThinkingClock(inside=inside)
        continuing = self.continuing
        if continuing is not None:
            # The reply's row exists: it grows, its tokens continue after the stored ones.
            previous = ReplyRecord.from_meta(continuing.meta)
            grown = replace(record, continued=previous.continued + 1, extra=previous.extra)
            meta = replace(grown, reasoning_inside=previous.reasoning_inside).to_meta()  # the reply still opens inside
            self.reply = UnsavedReply(self.conversation_id, meta, continuing.id, texts=[continuing.content])
            self.reply.prefix = continuing.content
            self._clock = ThinkingClock(inside=previous.reasoning_inside)
            self._clock.add([continuing.content])  # its block may have opened (or closed) before; untimed
            self._before_seconds = previous.thinking_seconds
        else:
            self.reply = UnsavedReply(self.conversation_id, record.to_meta(), parent_id=self.parent_id)
            self._saver.write(self.reply)
            self._view.begin_reply(label, notice, inside)
        self._prompt_tokens = prompt_tokens

    def step(self, event: StepEvent) -> None:
        """One verify step: into the view, the store guard, the statistics and the gauge."""
        reply = self.reply
        if reply is None:
            return
        tokens = event.tokens
        shown = tokens if self._calls is None else self._calls.add(tokens)
        self._view.append_tokens(shown, step_ms(event))  # the step's time: the "Thinking (N s)" header
        reply.unsaved.extend(tokens)
        if event.record is not None:
            reply.unsaved_steps.append(event.record)
        reply.texts.extend(t.text for t in tokens)
        self._saver.flush_soon(reply)
        self.stats.record(event)
        self._stats_panel.update_stats(self.stats)
        for token in event.tokens:
            self._tally.add(token.text, str(token.origin))
        self._clock.add_step(event)
        self._stats_panel.set_parts(self._tally.split() if self._tally.has_block else None)
        gauge = self._gauge
        gauge.set_counts(self._prompt_tokens + self.stats.emitted, gauge.total, gauge.dropped, streaming=True)

    def finish(self, event: FinishedEvent) -> None:
        """The decoder finished: the end is written (or kept when the store refuses), the footer drawn; ended."""
        reply = self.reply
        reply_meta = reply.meta if reply is not None else {}
        started = ReplyRecord.from_meta(reply_meta)
        footer = footer_text(event.stats, event.reason, started.drafter, started.adaptive, started.demo_length)
        prefix = reply.prefix if reply is not None else ""
        end = end_of(event, self._clock, prefix, self._before_seconds)
        error = self._saver.error
        if error is not None:
            end = end.refused(str(error))
            footer = QCoreApplication.translate("ChatController", "stopped: {error}").format(error=end.error)
        meta = end.to_meta()
        if reply is not None:
            # A grown reply's metadata describes its last part (its statistics, what produced it).
            stored = {**reply_meta, **meta} if self.continuing is not None else meta
            reply.ending = (end.text, end.state, stored)
            self._saver.finish(reply)
        rest = self._calls.finish() if self._calls is not None and reply is not None else []
        if rest:  # held while they might have been a call, and they were not
            self._view.append_tokens(rest)
        if self._view.messages:
            self._view.messages[-1].footer_link = self._footer_link({**reply_meta, **meta})
        self._view.end_reply(footer, str(event.reason))
        announce(self._view, end_announcement(event.reason, event.stats.emitted))
        self._stats_panel.update_stats(event.stats)
        self._tally.finish()
        self._stats_panel.set_parts(self._tally.split() if self._tally.has_block else None)
        self.ended.emit(end)

    def fail(self, message: str) -> None:
        """The engine failed: what came is written as failed and the view says so; :attr:`ended`."""
        self._saver.stop_flushing()
        reply = self.reply
        end = ReplyEnd.failed(text=reply.text if reply is not None else "", error=message)
        if reply is not None:
            reply.ending = (end.text, end.state, end.to_meta())
            self._saver.finish(reply)
            self._view.end_reply(QCoreApplication.translate("ChatController", "failed: {error}").format(error=message))
        failed = QCoreApplication.translate("ChatController", "the reply failed: {error}").format(error=message)
        announce(self._view, failed, urgent=True)
        self.ended.emit(end)

    def abandon(self) -> UnsavedReply | None:
        """The window closes under the reply: it ends as stopped (or refused by the store); what is left to write."""
        reply, self.reply = self.reply, None
        if reply is None:
            return None
        end = ReplyEnd.stopped(text=reply.text)
        if self._saver.error is not None:
            end = end.refused(str(self._saver.error))
        reply.ending = (end.text, end.state, end.to_meta())
        return reply
