"""Costs held steady for the controller's decisions: a dead band over the learned estimates.

The estimators follow every step's timing, and on a quiet 2-core CPU a step's
time still varies by a few per cent. Decisions taken on those live figures
flip between near-equal choices (K = 4 or 5, a lookup or the model's plan,
drafting on or off) at random, and one flip early in a reply changes every
step after it: what is drafted, which acceptance is learned, when the draft
model catches up. The same prompt then ran at 10.2 tok/s once and 13.1 the
next time on the same machine.

:class:`CostHold` keeps a copy of the costs and gives that copy to the
controller until the learned costs move past a dead band: a load change, a
new thread count, the first real measurement after a guess. Within the band
the expected speed is flat anyway (a 10 % error in one cost moves the best
draft length's rate by a few per cent at most), so little is lost, and on a
steady machine the same prompt meets the same decisions run after run.
"""

from __future__ import annotations

from app.core.adaptive.cost_model import StepCosts

DEAD_BAND = 0.10
"""How far (relative) a learned cost may move before the held copy is replaced."""

# A draft token cheaper than this share of a one-token verify (prompt lookup's bookkeeping) is
# judged against that share: its relative noise is large and it decides nothing.
_NEGLIGIBLE_DRAFT = 0.05


class CostHold:
    """The costs the controller decides on: the learned ones, replaced only past :data:`DEAD_BAND`."""

    def __init__(self, band: float = DEAD_BAND) -> None:
        if band < 0:
            raise ValueError("the dead band cannot be negative")
        self.band = band
        self._held: StepCosts | None = None
        self.replaced = 0  # how many times the held copy was replaced (the first one counts)

    @property
    def held(self) -> StepCosts | None:
        """The copy in use (None before any costs were known)."""
        return self._held

    def release(self) -> None:
        """Drop the held copy: the next decision takes the learned costs as they are (after a new measurement)."""
        self._held = None

    def costs(self, learned: StepCosts) -> StepCosts:
        """The held copy, first replaced by ``learned`` when any cost in it moved past the band."""
        if self._held is None or self._moved(self._held, learned):
            self._held = learned
            self.replaced += 1
        return self._held

    def _moved(self, held: StepCosts, learned: StepCosts) -> bool:
        if len(held.verify_s) != len(learned.verify_s):
            return True
        band = self.band
        for old, new in zip(held.verify_s, learned.verify_s, strict=True):
            if abs(new - old) > band * old:
                return True
        one_token = held.verify_s[0]
        draft_scale = max(held.draft_per_token_s, _NEGLIGIBLE_DRAFT * one_token)
        if abs(learned.draft_per_token_s - held.draft_per_token_s) > band * draft_scale:
            return True
        # The step's bookkeeping is a few milliseconds whose relative noise is large: it counts
        # against the one-token verify cost, the unit every other cost is compared with.
        return abs(learned.overhead_s - held.overhead_s) > band * one_token
