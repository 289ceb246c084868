"""Each draft-length policy says why it chose its length, in words with the numbers it weighed."""

from __future__ import annotations

import re

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.adaptive.cost_model import StepCosts
from app.core.adaptive.profile import PairProfile
from app.core.decoding.draft_policy import FixedDraftLength

COMPUTE_BOUND = StepCosts(tuple(0.025 * (1 + 0.7 * n) for n in range(17)), draft_per_token_s=0.015)
MEMORY_BOUND = StepCosts(tuple(0.040 * (1 + 0.02 * n) for n in range(17)), draft_per_token_s=0.009)


def _seeded(costs: StepCosts, acceptance: list[float]) -> AdaptiveDraftLength:
    profile = PairProfile()
    profile.seed("model", costs, acceptance)
    return AdaptiveDraftLength(12, profile.for_drafter("model", True))


def test_a_fixed_length_is_a_setting() -> None:
    assert FixedDraftLength(4).reason == "fixed at 4"


def test_an_unmeasured_controller_says_it_is_measuring() -> None:
    policy = AdaptiveDraftLength()
    k = policy.next_length()
    assert policy.reason == f"measuring what a draft costs: K={k} until it is known"


def test_a_paying_draft_names_its_length_acceptance_and_costs() -> None:
    policy = _seeded(MEMORY_BOUND, [0.72] * 12)
    k = policy.next_length()
    assert k > 0
    found = re.fullmatch(
        r"expected speed best at K=(\d+) \(acceptance (0\.\d\d), draft (\d+) ms/token, verify (\d+) ms\)", policy.reason
    )
    assert found is not None, policy.reason
    assert int(found.group(1)) == k and found.group(2) == "0.72" and found.group(3) == "9"
    assert int(found.group(4)) == round(MEMORY_BOUND.verify(k + 1) * 1000)


def test_a_draft_that_cannot_pay_turns_drafting_off_and_says_why() -> None:
    policy = _seeded(COMPUTE_BOUND, [0.9] * 12)
    assert policy.next_length() == 0
    assert policy.reason.startswith("drafting off: ")
