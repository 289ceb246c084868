"""Hand-built step events for the adaptive policy: two cost regimes, a step of given acceptance, seeded policies.

Not a test module: the adaptive tests in tests/core and the profile store's tests share these.
"""

from __future__ import annotations

import numpy as np

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.adaptive.cost_model import StepCosts
from app.core.adaptive.profile import PairProfile
from app.core.decoding.events import StepEvent, StepTimings

# Per-token costs of two physical regimes (seconds), in the proportions measured on CPUs:
# a quantised target is compute-bound (each verified token costs ~70 % of a full step) and its
# draft costs 60 % of it; an F16 target is memory-bound (extra verified tokens cost ~2 %).
COMPUTE_BOUND = StepCosts(tuple(0.025 * (1 + 0.7 * n) for n in range(17)), draft_per_token_s=0.015)
MEMORY_BOUND = StepCosts(tuple(0.075 * (1 + 0.02 * n) for n in range(17)), draft_per_token_s=0.015)


def step(k: int, accepted: int, costs: StepCosts, drafted: int | None = None) -> StepEvent:
    """A step that asked for ``k`` drafts, got ``drafted`` (default k) and accepted ``accepted``."""
    drafted = k if drafted is None else drafted
    draft_s = costs.draft_per_token_s * min(drafted + 1, k) if k else 0.0
    verify_s = costs.verify(drafted + 1)
    return StepEvent(
        tokens=(),
        drafted=drafted,
        accepted=accepted,
        draft_length=k,
        timings=StepTimings(draft_s, verify_s, draft_s + verify_s + 0.0005),
    )


def run_policy(policy: AdaptiveDraftLength, costs: StepCosts, accept: float, steps: int, seed: int = 0) -> list[int]:
    """Drive the policy with i.i.d. acceptance ``accept`` per draft position; returns the chosen lengths."""
    rng = np.random.default_rng(seed)
    chosen = []
    for _ in range(steps):
        k = policy.next_length()
        chosen.append(k)
        accepted = 0
        while accepted < k and rng.random() < accept:
            accepted += 1
        policy.observe(step(k, accepted, costs))
    return chosen


def seeded(costs: StepCosts, acceptance: list[float] | None = None, max_length: int = 12) -> AdaptiveDraftLength:
    """A policy whose pair profile is seeded with ``costs`` (and ``acceptance`` per position, if given)."""
    profile = PairProfile()
    profile.seed("model", costs, acceptance)
    return AdaptiveDraftLength(max_length, profile.for_drafter("model", True))


def learned_profile() -> PairProfile:
    """A profile after a reply of hand-built steps: costs of MEMORY_BOUND, acceptance about 0.8, confidences."""
    profile = PairProfile()
    policy = AdaptiveDraftLength(12, profile.for_drafter("model", True))
    run_policy(policy, MEMORY_BOUND, accept=0.8, steps=120)
    profile.calibrations[("model", True)].observe([0.95, 0.9, 0.4], 2)
    return profile
