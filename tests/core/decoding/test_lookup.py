"""Prompt lookup that drafts where copying happens, and the hybrid drafter, on hand-built token sequences."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.adaptive.cost_model import StepCosts, best_lookup_length
from app.core.adaptive.estimators import DraftCostEstimator, VerifyCostEstimator
from app.core.adaptive.profile import DrafterProfile
from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import LOOKUP_SOURCE, MODEL_SOURCE, ModelDrafter
from app.core.decoding.events import FinishedEvent, StepEvent, StepTimings, TokenOrigin
from app.core.decoding.lookup import (
    LookupMatch,
    LookupRecord,
    continuation_confidence,
    find_match,
    length_prior,
    trusted_prefix,
)
from app.core.decoding.lookup_drafters import HybridDrafter, NgramDrafter
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from tests.core.fakes import BigramLM, random_table

GREEDY = SamplingParams(temperature=0)


def _match(tokens: list[int], min_n: int = 2, extent: int = 8) -> LookupMatch | None:
    return find_match(np.asarray(tokens, dtype=np.int64), min_n, extent)


# -- find_match ------------------------------------------------------------------


def test_the_longest_agreeing_occurrence_wins_over_a_later_shorter_one() -> None:
    #          0  1  2  3  4  5  6  7  8  9 10 11
    tokens = [7, 1, 2, 3, 9, 5, 2, 3, 8, 7, 1, 2, 3]
    match = _match(tokens)
    assert match is not None
    # "2 3" occurs at 1-3 (preceded by 7 1, as the tail is) and at 6-7 (preceded by 5): the first agrees over 4.
    assert match.start == 4 and match.length == 4 and match.key == (2, 3)
    assert match.rivals == 0


def test_among_equally_long_matches_the_latest_is_used_and_disagreement_counted() -> None:
    tokens = [1, 2, 3, 4, 1, 2, 5, 0, 1, 2]
    match = _match(tokens)
    assert match is not None and match.start == 6 and match.length == 2
    assert match.rivals == 1  # the other "1 2" continued with 3, not 5


def test_agreement_is_counted_only_up_to_the_extent() -> None:
    tokens = [*range(10), 99, *range(10)]
    match = _match(tokens, min_n=3, extent=5)
    assert match is not None and match.start == 10 and match.length == 5


def test_no_match_when_the_tail_never_occurred_or_the_context_is_short() -> None:
    assert _match([1, 2, 3, 4, 5]) is None
    assert _match([1, 2]) is None
    assert _match([1, 1, 1]) == LookupMatch(2, 2, 0, (1, 1))  # overlapping repeats still continue


# -- trust and confidence --------------------------------------------------------


def test_trust_grows_with_match_length_and_shrinks_with_rivals() -> None:
    record = LookupRecord()
    short, long = LookupMatch(5, 3, 0, (1, 2, 3)), LookupMatch(5, 20, 0, (1, 2, 3))
    assert record.trust(short) == pytest.approx(length_prior(3))
    assert record.trust(long) > record.trust(short)
    assert record.trust(LookupMatch(5, 3, 2, (1, 2, 3))) == pytest.approx(length_prior(3) / 3)


def test_a_key_that_misses_loses_trust_and_earns_it_back() -> None:
    record = LookupRecord()
    match = LookupMatch(5, 6, 0, (4, 5, 6))
    other = LookupMatch(9, 6, 0, (7, 8, 9))
    fresh = record.trust(match)
    record.observe(match, proposed=4, accepted=0)
    after_miss = record.trust(match)
    assert after_miss < fresh
    # A key never proposed after keeps the band's prior, which one miss only dents.
    assert after_miss < record.trust(other) < fresh
    for _ in range(3):
        record.observe(match, proposed=4, accepted=4)
    assert record.trust(match) > after_miss
    record.clear()
    assert record.trust(match) == pytest.approx(fresh)


def test_later_positions_of_a_copy_follow_what_this_replys_copies_did() -> None:
    match = LookupMatch(5, 4, 0, (4, 5, 6))
    prior = LookupRecord().confidences(match, 4)
    assert prior[1:] == pytest.approx(continuation_confidence(1.0, 4, 4)[1:])
    good, bad = LookupRecord(), LookupRecord()
    for _ in range(10):
        good.observe(match, proposed=8, accepted=8)
        bad.observe(match, proposed=8, accepted=1)  # the second position missed every time
    assert good.confidences(match, 4)[1] > prior[1] > bad.confidences(match, 4)[1]


def test_continuation_confidence_follows_the_rule_of_succession() -> None:
    assert continuation_confidence(0.4, 3, 0) == []
    confidence = continuation_confidence(0.4, 3, 3)
    assert confidence == pytest.approx([0.4, 5 / 6, 6 / 7])
    assert trusted_prefix([0.9, 0.8, 0.3, 0.9], 0.5) == 2
    assert trusted_prefix([0.9, 0.8], 0.5) == 2


# -- how many proposals pay ------------------------------------------------------

COMPUTE_BOUND = StepCosts(tuple(0.04 * (1 + 0.6 * (n - 1)) for n in range(1, 18)), 0.0)  # 1 + 0.6 per extra token
MEMORY_BOUND = StepCosts(tuple(0.07 * (1 + 0.05 * (n - 1)) for n in range(1, 18)), 0.0)


def test_a_trusted_long_copy_is_proposed_at_length_and_a_weak_one_not_at_all() -> None:
    plain = 1.0 / COMPUTE_BOUND.step_time(0)
    strong = continuation_confidence(0.95, 30, 16)
    weak = continuation_confidence(0.4, 3, 16)
    # Where each extra token costs 0.6 of a plain step, a strong copy pays for a few tokens, a weak one for none.
    assert 4 <= best_lookup_length(COMPUTE_BOUND, strong, plain) < 16
    assert best_lookup_length(COMPUTE_BOUND, weak, plain) == 0
    assert best_lookup_length(MEMORY_BOUND, strong, 1.0 / MEMORY_BOUND.step_time(0)) == 16
    # Where a verify slot is almost free, even a doubtful match is worth a few tokens.
    assert best_lookup_length(MEMORY_BOUND, weak, 1.0 / MEMORY_BOUND.step_time(0)) > 0
    # A better rival (the draft model's plan) raises the bar.
    assert best_lookup_length(COMPUTE_BOUND, strong, 100.0) == 0


def _controller(verify_slope: float = 0.6) -> AdaptiveDraftLength:
    verify, draft = VerifyCostEstimator(), DraftCostEstimator()
    verify.seed([0.04 * (1 + verify_slope * (n - 1)) for n in range(1, 17)])
    draft.seed(0.0001, 0.04)
    return AdaptiveDraftLength(8, DrafterProfile(verify, draft, key=("ngram", True)))


# -- the drafter in the loop -----------------------------------------------------


def _events(decoder: SpeculativeDecoder, prompt: list[int], n: int) -> tuple[list[StepEvent], FinishedEvent]:
    events = list(decoder.generate(GenerationRequest(prompt, max_tokens=n)))
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    return [e for e in events if isinstance(e, StepEvent)], finished


def test_lookup_drafts_where_the_reply_copies_and_is_quiet_elsewhere() -> None:
    """A cycling bigram target repeats itself: once the reply reaches a repeat, lookup proposes long runs."""
    table = random_table(12, seed=3)
    baseline, _ = _events(SpeculativeDecoder(BigramLM(table), None, GREEDY), [1, 2, 3], 80)
    # The judge weighs proposals against seeded costs (the fake models' own timings are microseconds);
    # the decoder's policy drafts nothing, so every draft below is a lookup the judge let through.
    judge = _controller(verify_slope=0.05).lookup_length
    drafter = NgramDrafter(32, 3, lookup_length=16, judge=judge)
    steps, finished = _events(SpeculativeDecoder(BigramLM(table), drafter, GREEDY, FixedDraftLength(0)), [1, 2, 3], 80)
    assert [t.id for s in steps for t in s.tokens] == [t.id for s in baseline for t in s.tokens]
    drafted = [s for s in steps if s.drafted]
    assert drafted and all(s.draft_source == LOOKUP_SOURCE for s in drafted)
    assert max(s.drafted for s in drafted) > 8  # a long repeat earns a long proposal
    assert finished.stats.acceptance_rate > 0.8
    assert finished.stats.by_source == {LOOKUP_SOURCE: [finished.stats.drafted, finished.stats.accepted]}
    tokens = [t for s in steps for t in s.tokens]
    assert all((t.source == LOOKUP_SOURCE) == (t.origin is TokenOrigin.DRAFT) for t in tokens)


def test_one_miss_does_not_switch_lookup_off_for_the_rest_of_the_reply() -> None:
    """The controller's plan for lookup may be K = 0 after misses; trusted matches are still proposed."""
    policy = _controller()
    for _ in range(6):  # a run of misses drives the lookup's acceptance estimate down
        policy.next_length()
        policy.observe(
            StepEvent(
                tokens=(),
                drafted=4,
                accepted=0,
                draft_length=4,
                timings=StepTimings(0.0, 0.1, 0.1),
                draft_source=LOOKUP_SOURCE,
            )
        )
    assert policy.next_length() == 0
    assert policy.lookup_length(continuation_confidence(0.95, 30, 16)) > 0


def test_hybrid_uses_the_lookup_where_trusted_and_the_model_elsewhere() -> None:
    table = random_table(12, seed=3)
    draft_table = table + random_table(12, seed=1, scale=1.0)
    rng = np.random.default_rng(0)
    baseline, _ = _events(SpeculativeDecoder(BigramLM(table), None, GREEDY), [1, 2, 3], 80)
    judge = _controller(verify_slope=0.05).lookup_length  # memory-bound: a trusted copy pays at length
    lookup = NgramDrafter(32, 3, lookup_length=16, judge=judge)
    model = ModelDrafter(BigramLM(draft_table), LogitsWarper(GREEDY, 12), rng)
    hybrid = HybridDrafter(model, lookup)
    decoder = SpeculativeDecoder(BigramLM(table), hybrid, GREEDY, FixedDraftLength(3), rng)
    steps, finished = _events(decoder, [1, 2, 3], 80)
    assert [t.id for s in steps for t in s.tokens] == [t.id for s in baseline for t in s.tokens]
    sources = {s.draft_source for s in steps if s.drafted}
    assert sources == {LOOKUP_SOURCE, MODEL_SOURCE}
    by_source = finished.stats.by_source
    assert sum(d for d, _ in by_source.values()) == finished.stats.drafted
    assert finished.stats.source_acceptance(LOOKUP_SOURCE) > 0.8


def test_a_hybrid_lookup_step_teaches_neither_the_model_cost_nor_its_acceptance() -> None:
    verify, draft = VerifyCostEstimator(), DraftCostEstimator()
    verify.seed([0.04 * (1 + 0.05 * (n - 1)) for n in range(1, 17)])
    draft.seed(0.01, 0.04)
    policy = AdaptiveDraftLength(8, DrafterProfile(verify, draft, key=("model", True)))
    before = (draft.per_token_s(0.04), policy.rates(False))
    policy.next_length()
    policy.observe(
        StepEvent(
            tokens=(),
            drafted=12,
            accepted=0,
            draft_length=12,
            timings=StepTimings(0.0, 0.05, 0.0501),
            draft_source=LOOKUP_SOURCE,
        )
    )
    assert (draft.per_token_s(0.04), policy.rates(False)) == before


def test_without_a_judge_a_fixed_length_lookup_proposes_only_trusted_matches() -> None:
    drafter = NgramDrafter(32, 3, min_trust=0.6)
    drafter.begin([])
    weak = [1, 2, 3, 4, 9, 1, 2, 3]  # a 3-token match: trust 0.5
    assert len(drafter.propose(weak, 4)) == 0
    strong = [5, 6, 7, 8, 1, 2, 3, 4, 9, 5, 6, 7, 8, 1, 2, 3]  # agrees over 7 tokens: trust 0.7
    draft = drafter.propose(strong, 4)
    assert draft.tokens == [4, 9, 5, 6] and draft.source == LOOKUP_SOURCE
    assert NgramDrafter(32, 3).propose(weak, 4).tokens == [4, 9, 1, 2]  # no minimum: the old behaviour


def test_the_fixed_policy_keeps_lookup_at_its_length() -> None:
    table = random_table(12, seed=3)
    decoder = SpeculativeDecoder(BigramLM(table), NgramDrafter(32, 3), GREEDY, FixedDraftLength(3))
    steps, _ = _events(decoder, [1, 2, 3], 60)
    assert max(s.drafted for s in steps) <= 3
