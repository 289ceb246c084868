"""The pure decisions behind a reply: the draft-length plan, the drafter fallback, the seed."""

from __future__ import annotations

import pytest

from app.core.adaptive.controller import DEFAULT_MAX_LENGTH, AdaptiveDraftLength
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import DrafterKind
from app.core.reply.plan import (
    DEMO_DRAFT_LENGTH,
    DraftMode,
    DraftPlan,
    adaptive_max_length,
    concrete_seed,
    effective_drafter,
)


def test_the_chats_length_is_a_floor_on_the_adaptive_maximum():
    assert adaptive_max_length(4) == DEFAULT_MAX_LENGTH == 12
    assert adaptive_max_length(16) == 16
    plan = DraftPlan.for_chat(DrafterKind.HYBRID, 4, adaptive=True)
    assert (plan.mode, plan.length, plan.words()) == (DraftMode.ADAPTIVE, 12, "adaptive, up to 12")
    policy = plan.policy()
    assert isinstance(policy, AdaptiveDraftLength) and policy.max_length == 12
    assert DraftPlan.for_chat(DrafterKind.MODEL, 20, adaptive=True).words() == "adaptive, up to 20"


def test_fixed_none_and_demo_plans_in_words_and_as_policies():
    fixed = DraftPlan.for_chat(DrafterKind.MODEL, 6, adaptive=False)
    assert fixed.words() == "fixed 6" and not fixed.is_adaptive
    policy = fixed.policy()
    assert isinstance(policy, FixedDraftLength) and policy.length == 6
    none = DraftPlan.for_chat(DrafterKind.NONE, 6, adaptive=True, demo=True)
    assert none.words() == "none" and none.length == 0  # no drafter: no demo either
    assert isinstance(none.policy(), FixedDraftLength) and none.policy().next_length() == 0
    demo = DraftPlan.for_chat(DrafterKind.HYBRID, 9, adaptive=True, demo=True)
    assert demo.words() == f"fixed {DEMO_DRAFT_LENGTH} (speculation demo)" and demo.length == DEMO_DRAFT_LENGTH
    assert DraftPlan.fixed(0) == DraftPlan.none()


def test_measuring_runs_plan_the_controllers_default_or_a_fixed_length():
    assert DraftPlan.for_run(DrafterKind.MODEL, None).words() == f"adaptive, up to {DEFAULT_MAX_LENGTH}"
    assert DraftPlan.for_run(DrafterKind.NGRAM, 3).words() == "fixed 3"
    assert DraftPlan.for_run(DrafterKind.NONE, 3) == DraftPlan.none()


@pytest.mark.parametrize(("mode", "length"), [(DraftMode.NONE, 3), (DraftMode.FIXED, 0), (DraftMode.ADAPTIVE, -1)])
def test_inconsistent_plans_are_refused(mode, length):
    with pytest.raises(ValueError):
        DraftPlan(mode, length)


@pytest.mark.parametrize(
    ("wanted", "draft_loaded", "loaded", "expected"),
    [
        (DrafterKind.HYBRID, True, DrafterKind.HYBRID, DrafterKind.HYBRID),
        (DrafterKind.MODEL, True, DrafterKind.HYBRID, DrafterKind.MODEL),
        (DrafterKind.NGRAM, True, DrafterKind.HYBRID, DrafterKind.NGRAM),  # lookup needs no draft model
        (DrafterKind.NONE, True, DrafterKind.HYBRID, DrafterKind.NONE),
        (DrafterKind.HYBRID, False, DrafterKind.NGRAM, DrafterKind.NGRAM),  # the pair's own stands in
        (DrafterKind.MODEL, False, DrafterKind.NONE, DrafterKind.NONE),
        (DrafterKind.MODEL, False, DrafterKind.MODEL, DrafterKind.NGRAM),  # a pair that lost its draft
    ],
)
def test_the_drafter_falls_back_to_the_pairs_own_when_the_draft_model_is_missing(
    wanted, draft_loaded, loaded, expected
):
    assert effective_drafter(wanted, draft_loaded, loaded) is expected


@pytest.mark.parametrize(
    ("wanted", "own_loaded", "loaded", "expected"),
    [
        (DrafterKind.MTP, True, DrafterKind.MTP, DrafterKind.MTP),
        (DrafterKind.HYBRID, True, DrafterKind.MTP, DrafterKind.MTP),  # no draft model: the MTP layers stand in
        (DrafterKind.MTP, False, DrafterKind.NONE, DrafterKind.NONE),  # a pair loaded without them
        (DrafterKind.MTP, False, DrafterKind.MTP, DrafterKind.NGRAM),
        (DrafterKind.NGRAM, True, DrafterKind.MTP, DrafterKind.NGRAM),
    ],
)
def test_a_chat_set_to_the_mtp_layers_falls_back_when_the_pair_has_none_loaded(wanted, own_loaded, loaded, expected):
    assert effective_drafter(wanted, False, loaded, own_layers_loaded=own_loaded) is expected


def test_a_fresh_seed_is_drawn_once_and_a_given_one_is_kept():
    assert concrete_seed(7) == 7 and concrete_seed(0) == 0
    drawn = {concrete_seed(None) for _ in range(50)} | {concrete_seed(-1) for _ in range(50)}
    assert all(0 <= seed < 2**31 for seed in drawn)
    assert len(drawn) > 90  # drawn from entropy, not a constant
