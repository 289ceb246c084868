"""What it costs a draft model to catch up on the tokens it missed, and what its drafts could save.

A draft model reads its prompt lazily and skips the tokens of steps it did
not draft, so before drafting it may first read a backlog: after a long
document, seconds. The adaptive controller lets it read only when the saving
over the tokens the reply may still write (an upper bound: a reply may end
sooner) exceeds the read. These functions price both sides; the controller
decides.
"""

from __future__ import annotations

from dataclasses import replace

from app.core.adaptive.cost_model import StepCosts, best_case_speedup
from app.core.adaptive.estimators import PRIOR_CATCH_UP_RATIO


def planned_read(
    costs: StepCosts, planned_rate: float, read_per_token_s: float, backlog: int, remaining: int
) -> tuple[float, float]:
    """(read seconds, saved seconds) for a draft whose costs are measured and whose plan gets ``planned_rate``."""
    base = 1.0 / costs.step_time(0)
    saved_s = 0.0 if planned_rate <= base else remaining / base - remaining / planned_rate
    return backlog * read_per_token_s, saved_s


def first_read(costs: StepCosts, share: float, backlog: int, remaining: int, max_length: int) -> tuple[float, float]:
    """(read seconds, saved seconds) for a draft model that has never decoded on this pair.

    Its first draft is how its cost gets measured, but on a freshly loaded
    pair whose first question is a long document that draft would first read
    the whole prompt: 10.9 s for 2,000 tokens of the Q4_K_M demo pair on a
    2-core CPU, mid-reply, where the draft never pays. So a draft decode is
    priced at ``share`` of one target token (the two models' decodes timed at
    load), a read at :data:`PRIOR_CATCH_UP_RATIO` of a decode, and the
    saving is the best case: every draft accepted, at the best length up to
    ``max_length``, over the ``remaining`` tokens.
    """
    one_token_s = costs.verify(1)
    guess = replace(costs, draft_per_token_s=share * one_token_s)
    best = best_case_speedup(guess, max_length)
    saved_s = remaining * guess.step_time(0) * max(0.0, 1.0 - 1.0 / best)
    return backlog * PRIOR_CATCH_UP_RATIO * share * one_token_s, saved_s
