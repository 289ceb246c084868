"""How many tokens to draft each step.

The decoder asks a policy before every step and tells it what happened after.
:class:`FixedDraftLength` always answers the same; the adaptive controller
lives beside it and uses measured costs and live acceptance.
"""

from __future__ import annotations

from typing import Protocol

from app.core.decoding.events import StepEvent


class DraftLengthPolicy(Protocol):
    """Chooses the draft length for the next step."""

    def next_length(self) -> int:
        """Draft length for the coming step (0 turns drafting off for it)."""
        ...

    def observe(self, event: StepEvent) -> None:
        """Learn from the step that just ran."""
        ...


class FixedDraftLength:
    """Always the same draft length."""

    def __init__(self, length: int) -> None:
        if length < 0:
            raise ValueError("draft length must be >= 0")
        self.length = length

    def next_length(self) -> int:
        """The configured length."""
        return self.length

    def observe(self, event: StepEvent) -> None:
        """A fixed policy learns nothing."""
