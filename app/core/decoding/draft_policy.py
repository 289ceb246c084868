"""How many tokens to draft each step.

The decoder asks a policy before every step and tells it what happened after.
:class:`FixedDraftLength` always answers the same; the adaptive controller
lives beside it and uses measured costs and live acceptance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from app.core.decoding.events import StepEvent


@dataclass(frozen=True, slots=True)
class DraftStop:
    """Where a model draft stops early, by the draft's own top probability ("confidence") per token.

    ``floor`` is llama.cpp's ``p_min``: a token drafted with less ends the draft.
    With ``acceptance`` (the confidence's calibrated chance of being accepted,
    given the tokens before it were) the draft also stops once the chance that
    every token so far is accepted falls below ``survival``: a token deep in a
    draft pays only when the whole prefix before it survives, so a run of
    tokens each confident enough on its own can still be a bad bet together.
    On the F16 demo pair a controller with the floor alone drafted 11 tokens
    after a fully accepted draft and saw 0-4 of them accepted in 4 steps of 5
    (issue 31).

    ``keep`` tokens are drafted whatever their confidence: a policy that has
    already judged them worth drafting on other evidence (a streak's own
    acceptance) sets it, so the stop cannot turn its draft into a plain step.

    ``first``, when set, is the calibrated acceptance the first token needs,
    in place of the floor and the survival rule. A policy whose plan drafts
    after a miss for what a fully accepted draft leads to (the streak) sets it
    to what that plan assumed: the per-token rules price a token by this
    step alone and cut such a draft to nothing: where one token's price
    exceeds any acceptance (the costs a busy machine measured for the F16
    demo pair), a quarter of a reply's steps became plain ones that had paid
    for a draft decode, and an off controller's probes never drafted.
    """

    floor: float = 0.0
    survival: float = 0.0
    acceptance: Callable[[float], float] | None = None
    keep: int = 0
    first: float | None = None

    def stops_at(self, position: int, confidence: float, after: float) -> bool:
        """Whether the draft ends before the token at ``position`` (``after``: its :meth:`chance_after`)."""
        if position < self.keep:
            return False
        if position == 0 and self.first is not None:
            return after < self.first
        return confidence < self.floor or after < self.survival

    def chance_after(self, chance: float, confidence: float) -> float:
        """The chance the draft is accepted whole once one more token, drafted with ``confidence``, joins it."""
        return chance * self.acceptance(confidence) if self.acceptance is not None else chance


def as_stop(stop: DraftStop | float | None) -> DraftStop | None:
    """A policy's early stop as a :class:`DraftStop` (a plain number is a floor alone)."""
    return DraftStop(stop) if isinstance(stop, (int, float)) else stop


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

    def confidence_floor(self) -> DraftStop | float | None:
        """The early stop for the coming draft, asked once per draft after :meth:`next_length`.

        A model drafter stops where :class:`DraftStop` says (a plain number: when
        its own top probability falls below it, as llama.cpp's ``p_min``) and
        reports the confidences it saw; ``None`` drafts the full length and
        measures nothing.
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
