"""How a reply ended: one typed record every front end builds, stores and tells its listeners.

A reply ends in one of four ways: it finished (by itself, at a limit, or
stopped by the user: the decoder's :class:`~app.core.decoding.events.FinishedEvent`),
it was stopped without statistics (Ctrl+C in the terminal, the window closing
under it), it failed (the engine's error), or the store refused to save it
(:data:`~app.core.reply.record.STORE_ERROR_REASON`). :class:`ReplyEnd` holds the
stored state, the reply's whole text, the typed statistics and the duration of
its reasoning block (from the step records, :class:`~app.core.reply.thinking.ThinkingClock`);
:meth:`ReplyEnd.to_meta` is the one form the store merges into the reply's
``meta`` (the keys :class:`~app.core.reply.record.ReplyRecord` reads back, so
older chats and newer ones read alike), and :meth:`ReplyEnd.read` reads a stored
reply's end back through :meth:`ReplyRecord.from_meta`, tolerantly.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.core.conversation.chat import MessageState
from app.core.decoding.events import FinishedEvent, FinishReason
from app.core.decoding.stats import GenerationStats
from app.core.reply.record import STORE_ERROR_REASON, THINKING_SECONDS, ReplyRecord, stats_record


class EndKind(enum.Enum):
    """Which of the four ways a reply ended."""

    FINISHED = enum.auto()  # by itself, at a limit or a stop string (the state is done)
    CANCELLED = enum.auto()  # stopped by the user, Ctrl+C or the window closing
    FAILED = enum.auto()  # the engine's error
    STORE_ERROR = enum.auto()  # the store refused to save it: it was stopped, and kept whole in memory


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplyEnd:
    """A reply's end as it is stored: its state, whole text, finish reason, statistics, error and thinking time."""

    state: MessageState
    text: str
    finish_reason: str | None = None  # a FinishReason value or STORE_ERROR_REASON (None: failed in the engine)
    stats: GenerationStats | None = None  # the generation's statistics (None: it never finished)
    error: str | None = None  # why it failed, in the words of whatever refused or broke
    thinking_seconds: float | None = None  # how long its reasoning block took (None: none closed, or not timed)

    @classmethod
    def finished(
        cls, event: FinishedEvent, *, text: str | None = None, thinking_seconds: float | None = None
    ) -> ReplyEnd:
        """The decoder's end (``text``: the whole reply, when it grew a stored one; default the event's)."""
        cancelled = event.reason is FinishReason.CANCELLED
        return cls(
            state=MessageState.CANCELLED if cancelled else MessageState.DONE,
            text=event.text if text is None else text,
            finish_reason=event.reason.value,
            stats=event.stats,
            thinking_seconds=thinking_seconds,
        )

    @classmethod
    def stopped(cls, *, text: str) -> ReplyEnd:
        """Stopped before the decoder could say so (Ctrl+C, the window closing): no statistics."""
        return cls(state=MessageState.CANCELLED, text=text, finish_reason=FinishReason.CANCELLED.value)

    @classmethod
    def failed(cls, *, text: str, error: str) -> ReplyEnd:
        """The engine failed: what came before the error is kept."""
        return cls(state=MessageState.FAILED, text=text, error=error)

    def refused(self, error: str) -> ReplyEnd:
        """This end as the store refused it: failed, with the store's reason, statistics and thinking time kept."""
        return dataclasses.replace(self, state=MessageState.FAILED, finish_reason=STORE_ERROR_REASON, error=error)

    @property
    def kind(self) -> EndKind:
        """Which of the four ways it ended."""
        if self.finish_reason == STORE_ERROR_REASON:
            return EndKind.STORE_ERROR
        if self.state is MessageState.FAILED:
            return EndKind.FAILED
        return EndKind.CANCELLED if self.state is MessageState.CANCELLED else EndKind.FINISHED

    @property
    def reason(self) -> FinishReason | None:
        """The decoder's finish reason (None: failed, or refused by the store)."""
        try:
            return FinishReason(self.finish_reason) if self.finish_reason is not None else None
        except ValueError:
            return None

    def to_meta(self) -> dict[str, Any]:
        """What the store merges into the reply's ``meta`` (only the keys that are set)."""
        meta: dict[str, Any] = {}
        if self.stats is not None:
            meta["stats"] = stats_record(self.stats)
        if self.finish_reason is not None:
            meta["finish_reason"] = self.finish_reason
        if self.thinking_seconds is not None:
            meta[THINKING_SECONDS] = self.thinking_seconds
        if self.error is not None:
            meta["error"] = self.error
        return meta

    @classmethod
    def read(cls, meta: Mapping[str, Any], *, text: str, state: MessageState) -> ReplyEnd:
        """A stored reply's end, read tolerantly (what is missing or mistyped is left unset); never raises."""
        record = ReplyRecord.from_meta(meta)
        return cls(
            state=state,
            text=text,
            finish_reason=record.finish_reason,
            stats=GenerationStats.from_dict(record.stats) if record.stats is not None else None,
            error=record.error,
            thinking_seconds=record.thinking_seconds,
        )
