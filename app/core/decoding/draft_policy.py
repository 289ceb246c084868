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

    # Whether the first step may go without a model draft when the draft model still has the prompt to
    # read (its lazy prefill), so the first token is not delayed by it (the demo drafts every step: no).
    first_token_first: bool

    def next_length(self) -> int:
        """Draft length for the coming step (0 turns drafting off for it)."""
        ...

    @property
    def reason(self) -> str:
        """Why the last :meth:`next_length` answered what it did, in a short sentence (for the step records)."""
        ...

    def confidence_floor(self) -> float | None:
        """The early-stop floor for the coming draft, asked once per draft after :meth:`next_length`.

        A model drafter stops when its own top probability falls below it (as
        llama.cpp's ``p_min``, passed per call) and reports the confidences it
        saw; ``None`` drafts the full length and measures nothing.
        """
        ...

    def catch_up_pays(self, backlog: int, remaining: int) -> bool:
        """Whether a draft model ``backlog`` tokens behind may read them now to draft (asked when far behind).

        ``remaining`` is how many tokens the reply may still produce. False
        keeps the model off for the coming step (a lookup may still propose).
        """
        ...

    def observe(self, event: StepEvent) -> None:
        """Learn from the step that just ran."""
        ...


class FixedDraftLength:
    """Always the same draft length."""

    def __init__(self, length: int, first_token_first: bool = False) -> None:
        if length < 0:
            raise ValueError("draft length must be >= 0")
        self.length = length
        self.first_token_first = first_token_first

    def next_length(self) -> int:
        """The configured length."""
        return self.length

    @property
    def reason(self) -> str:
        """The length is a setting."""
        return f"fixed at {self.length}"

    def confidence_floor(self) -> float | None:
        """A fixed length drafts in full."""
        return None

    def catch_up_pays(self, backlog: int, remaining: int) -> bool:
        """A fixed length drafts whatever the draft model must read first."""
        return True

    def observe(self, event: StepEvent) -> None:
        """A fixed policy learns nothing."""
