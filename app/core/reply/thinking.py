"""How long a reply's reasoning block took, summed from the verify steps that wrote it.

The tokens carry no timing of their own; each step record does (its draft and
verify milliseconds). :class:`ThinkingClock` is fed a reply step by step, tells
the block apart with :class:`~app.core.reply.reasoning.ReasoningSplitter`, and
once the closing marker came says the block's duration: the time of every step
from the one that wrote the first thinking token to the one that closed the
block. An unclosed block, or steps without records, have no duration (None).

The window's "Thinking (N s)" header and every front end's stored
``thinking_seconds`` both come from here, so the two always agree.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.decoding.events import StepEvent
from app.core.reply.reasoning import THINK, Part, ReasoningMarkers, ReasoningSplitter


def step_ms(event: StepEvent) -> float | None:
    """The step's draft + verify time in milliseconds (None: the step was not traced)."""
    record = event.record
    return record.draft_ms + record.verify_ms if record is not None else None


class ThinkingClock:
    """Times a reply's reasoning block as its steps arrive (see the module docstring)."""

    def __init__(self, markers: ReasoningMarkers = THINK, inside: bool = False) -> None:
        self._splitter = ReasoningSplitter(markers, inside)
        self._count = 0  # tokens seen
        self._first: int | None = 0 if inside else None  # the token that wrote the first thinking
        self._close: int | None = None  # the token that wrote the closing marker's end
        self._plain = False  # decided: no block (nothing more to time)
        self._has_block = inside
        self._spans: list[tuple[int, int, float]] = []  # (first token, end, ms) of each step that may be thinking
        self._timed = False  # the closed block's duration was summed
        self.seconds: float | None = None  # the block's duration once closed (None: open, none, or no step times)

    def add(self, texts: Sequence[str], ms: float | None = None) -> None:
        """One step: its tokens' texts in order and its time (None: not known)."""
        start = self._count
        for text in texts:
            self._count += 1
            last_marker: int | None = None
            for piece in self._splitter.feed(text):
                if piece.part is Part.ANSWER:
                    if not self._has_block and piece.text.strip():
                        self._plain = True
                    continue
                self._has_block = True
                if self._first is None:
                    self._first = piece.token
                if piece.part is Part.MARKER:
                    last_marker = piece.token
            if self._close is None and self._splitter.closed:
                # The token that closed the block is the closing marker's last (nothing but answer follows).
                self._close = last_marker if last_marker is not None else self._count - 1
        if ms is not None and not self._plain and (self._close is None or self._close >= start):
            self._spans.append((start, self._count, ms))
        if self._close is not None and not self._timed:
            self._timed = True
            first, close = self._first or 0, self._close
            times = [t for begin, end, t in self._spans if end > first and begin <= close]
            self.seconds = sum(times) / 1000.0 if times else None
            self._spans.clear()

    def add_step(self, event: StepEvent) -> None:
        """One step event (its record's time)."""
        self.add([token.text for token in event.tokens], step_ms(event))
