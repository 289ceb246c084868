"""The adaptive draft-length controller, driven by hand-built step events (no models, no clocks)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.adaptive.cost_model import StepCosts
from app.core.adaptive.estimators import (
    AcceptanceEstimator,
    ConfidenceCalibration,
    DraftCostEstimator,
    VerifyCostEstimator,
)
from app.core.adaptive.held_costs import DEAD_BAND
from app.core.adaptive.profile import PairProfile
from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import DraftStop
from app.core.decoding.drafters import ModelDrafter
from app.core.decoding.events import FinishedEvent, StepEvent, StepTimings
from app.core.decoding.lookup_drafters import NgramDrafter
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from tests.core.adaptive.policy_runs import COMPUTE_BOUND, MEMORY_BOUND, run_policy, seeded, step
from tests.core.fakes import BigramLM, random_table


def test_compute_bound_pair_never_drafts_once_costs_are_known() -> None:
    policy = seeded(COMPUTE_BOUND, [0.9] * 12)
    chosen = run_policy(policy, COMPUTE_BOUND, accept=0.95, steps=300)
    # Even a perfect draft cannot pay: no step drafts, not even a probe.
    assert chosen == [0] * 300


def test_memory_bound_pair_drafts_deep_when_acceptance_is_high() -> None:
    policy = seeded(MEMORY_BOUND)
    chosen = run_policy(policy, MEMORY_BOUND, accept=0.9, steps=200)
    assert np.median(chosen[-100:]) >= 4  # the optimum is flat around K = 5-7 for these costs


def test_draft_length_falls_with_acceptance() -> None:
    high = run_policy(seeded(MEMORY_BOUND), MEMORY_BOUND, accept=0.9, steps=200)
    low = run_policy(seeded(MEMORY_BOUND), MEMORY_BOUND, accept=0.55, steps=200)
    assert 0 < np.median(low[-100:]) < np.median(high[-100:])


def test_drafting_turns_off_at_low_acceptance_and_probes_with_growing_intervals() -> None:
    policy = seeded(MEMORY_BOUND)
    chosen = run_policy(policy, MEMORY_BOUND, accept=0.0, steps=400)
    tail = chosen[20:]
    probes = [i for i, k in enumerate(tail) if k > 0]
    assert 2 <= len(probes) <= 12  # mostly off, but it keeps looking
    gaps = np.diff(probes)
    assert all(b >= a for a, b in itertools.pairwise(gaps))  # intervals never shrink while it keeps failing


def test_a_nearly_free_drafter_probes_every_few_steps() -> None:
    # Prompt lookup: a probe costs one verify slot, so it looks again every couple of steps.
    lookup = StepCosts(COMPUTE_BOUND.verify_s, draft_per_token_s=0.0001)
    profile = PairProfile()
    profile.seed("ngram", lookup)
    policy = AdaptiveDraftLength(8, profile.for_drafter("ngram", True, remember=False))
    chosen = run_policy(policy, lookup, accept=0.0, steps=100)
    assert 20 <= sum(k > 0 for k in chosen[20:]) <= 45
    assert profile.acceptance == {}  # nothing carried over to the next generation


def test_drafting_comes_back_when_acceptance_recovers() -> None:
    policy = seeded(MEMORY_BOUND)
    off = run_policy(policy, MEMORY_BOUND, accept=0.0, steps=100)
    assert off[-20:].count(0) >= 15
    later = run_policy(policy, MEMORY_BOUND, accept=0.95, steps=200, seed=1)
    assert np.median(later[-50:]) >= 4


def test_drafts_longer_during_a_streak_of_full_acceptances() -> None:
    # Copying text: after a fully accepted draft the next one is almost surely right,
    # after a rejection it is mostly wrong. The controller keeps the two apart.
    costs = StepCosts(tuple(0.025 * (1 + 0.5 * n) for n in range(17)), draft_per_token_s=0.0005)
    policy = seeded(costs)
    rng = np.random.default_rng(0)
    by_state: dict[bool, list[int]] = {False: [], True: []}
    streak = False
    for _ in range(400):
        k = policy.next_length()
        by_state[streak].append(k)
        accept = 0.97 if streak else 0.2
        accepted = 0
        while accepted < k and rng.random() < accept:
            accepted += 1
        policy.observe(step(k, accepted, costs))
        streak = k > 0 and accepted == k
    # After a miss it drafts short (to find the next streak), in a streak longer.
    assert 0 < np.mean(by_state[False][-50:]) <= 2
    assert np.mean(by_state[True][-50:]) >= np.mean(by_state[False][-50:]) + 1


def test_cold_start_explores_then_learns_the_costs() -> None:
    policy = AdaptiveDraftLength(8)
    first = policy.next_length()
    assert first > 0  # nothing known yet: draft to measure what drafting costs
    chosen = run_policy(policy, COMPUTE_BOUND, accept=0.9, steps=60)
    assert chosen[-40:] == [0] * 40
    costs = policy.learned_costs()
    assert costs.draft_per_token_s == pytest.approx(COMPUTE_BOUND.draft_per_token_s, rel=0.05)
    assert costs.verify(1) == pytest.approx(COMPUTE_BOUND.verify(1), rel=0.05)


def test_catch_up_step_after_an_off_stretch_does_not_count_as_draft_cost() -> None:
    policy = seeded(MEMORY_BOUND)
    policy.observe(step(0, 0, MEMORY_BOUND))
    slow = step(4, 4, MEMORY_BOUND)
    slow = StepEvent(
        tokens=(),
        drafted=4,
        accepted=4,
        draft_length=4,
        timings=StepTimings(5.0, slow.timings.verify_s, 5.0 + slow.timings.verify_s),
    )
    policy.observe(slow)
    assert policy.costs().draft_per_token_s == pytest.approx(MEMORY_BOUND.draft_per_token_s)


def test_confidence_floor_follows_the_marginal_cost() -> None:
    policy = seeded(MEMORY_BOUND, [0.8] * 12)
    assert policy.min_confidence == 0.0  # nothing chosen yet
    run_policy(policy, MEMORY_BOUND, accept=0.8, steps=20)
    k = policy.next_length()
    assert k > 0
    floor = policy.min_confidence
    assert 0.0 < floor < 0.9
    # The floor prices a token at the rate achieved: R * (draft decode + verify growth).
    # Uncalibrated, a confidence counts as its own acceptance, so the floor is that
    # price rounded up to the calibration's bin.
    costs = policy.costs()
    rate = policy._recent_tokens / policy._recent_s
    required = rate * (costs.draft_per_token_s + costs.verify(k + 1) - costs.verify(k))
    assert required <= floor < required + 0.1
    assert floor == policy.profile.calibration.floor_for(required)
    compute = seeded(COMPUTE_BOUND, [0.8] * 12)
    assert compute.next_length() == 0 and compute.min_confidence == 0.0


def test_after_a_miss_the_first_token_needs_only_the_acceptance_the_plan_assumed() -> None:
    # Right after a miss the plan may draft a short draft for the streak a full acceptance opens. The
    # per-token price of this step alone can exceed any acceptance then; the first token's bar is the
    # plan's own after-miss estimate, so a token as likely as the plan assumed is drafted.
    policy = seeded(MEMORY_BOUND, [0.8] * 12)
    run_policy(policy, MEMORY_BOUND, accept=0.8, steps=20)
    for _ in range(12):
        k = policy.next_length()
        stop = policy.confidence_floor() if k > 0 else None
        if stop is not None and not policy._streak and stop.survival > 0.0:  # not the now-and-then explorer
            break
        policy.observe(step(k, 0, MEMORY_BOUND))  # a miss: the next step is an after-miss one
    else:
        pytest.fail("no after-miss draft with a survival stop")
    assert stop is not None
    assert not policy._streak
    assert stop.first == pytest.approx(min(policy._required_acceptance(), policy.rates(False)[0]))
    assert stop.stops_at(0, 0.5, stop.first - 0.01) and not stop.stops_at(0, 0.5, stop.first)
    # In a streak the first token is kept instead.
    policy.observe(step(2, 2, MEMORY_BOUND))
    if policy.next_length() > 0:
        assert policy.confidence_floor().first is None


def test_calibration_lowers_the_floor_when_unsure_drafts_are_accepted_anyway() -> None:
    calibration = ConfidenceCalibration()
    assert calibration.floor_for(0.46) == pytest.approx(0.5)  # prior: a confidence is its acceptance
    rng = np.random.default_rng(1)
    for _ in range(300):
        # Tokens drafted at 0.3-0.4 confidence are accepted 70 % of the time, those below 0.3 only 10 %.
        accepted = int(rng.random() < 0.7)
        calibration.observe([0.95, 0.35], 1 + accepted)
        calibration.observe([0.95, 0.2], 1 + int(rng.random() < 0.1))
    assert calibration.acceptance(0.35) == pytest.approx(0.7, abs=0.08)
    assert calibration.floor_for(0.45) == pytest.approx(0.3)
    assert calibration.floor_for(0.86) == pytest.approx(0.9)  # the untouched middle bins keep their priors
    # Tokens after the first rejection were never verified and teach nothing.
    before = calibration.acceptance(0.75)
    calibration.observe([0.2, 0.75, 0.75], 0)
    assert calibration.acceptance(0.75) == before


def test_the_floor_lets_the_bin_below_through_now_and_then() -> None:
    policy = seeded(MEMORY_BOUND, [0.8] * 12)
    run_policy(policy, MEMORY_BOUND, accept=0.8, steps=20)
    assert policy.next_length() > 0
    floor = policy.min_confidence
    assert floor >= 0.1
    stops = [policy.confidence_floor() for _ in range(12)]
    lowered = [stop for stop in stops if stop.floor < floor]
    assert len(lowered) == 2 and lowered[0].floor == pytest.approx(floor - 0.1)
    assert all(stop.survival == 0.0 and stop.acceptance is None for stop in lowered)  # exploring: no survival rule
    usual = [stop for stop in stops if stop.floor >= floor]
    assert all(stop.floor == floor for stop in usual)
    # The usual stop also wants the whole draft to survive with at least the acceptance one more token needs.
    assert all(0.0 < stop.survival <= floor and stop.acceptance is not None for stop in usual)
    assert usual[0].acceptance(0.95) == policy.profile.calibration.acceptance(0.95)


def test_a_low_streak_estimate_fades_so_streaks_are_tried_again() -> None:
    # A streak state judged on one bad stretch must not stay off for good: while the
    # controller drafts after misses, the streak estimate forgets toward its prior.
    policy = seeded(MEMORY_BOUND, [0.9] * 12)
    streak = policy._estimators[True]
    for _ in range(10):
        streak.observe(4, 0)
    low = streak.rates()[0]
    assert low < 0.3
    for _ in range(60):
        policy._streak = False
        policy.observe(step(4, 2, MEMORY_BOUND))
    assert streak.rates()[0] > low + 0.3
    # And what the controller plans with is never below the after-miss estimate.
    assert all(s >= m for s, m in zip(policy.rates(True), policy.rates(False), strict=True))


def test_acceptance_estimator_counts_only_verified_positions() -> None:
    estimator = AcceptanceEstimator(4, prior=[0.5], prior_weight=1.0, decay=1.0)
    estimator.observe(drafted=4, accepted=2)  # positions 0, 1 accepted, 2 rejected, 3 never verified
    rates = estimator.rates()
    assert rates[0] == pytest.approx((1 + 0.5) / 2)  # prior 0.5
    assert rates[1] == pytest.approx((1 + rates[0]) / 2)  # prior: the position before
    assert rates[2] == pytest.approx((0 + rates[1]) / 2)
    assert rates[3] == pytest.approx(rates[2])  # never verified: no better than the one before


def test_acceptance_prior_chains_to_deeper_positions() -> None:
    estimator = AcceptanceEstimator(3, prior=None, prior_weight=2.0, decay=1.0)
    for _ in range(20):
        estimator.observe(drafted=1, accepted=0)
    rates = estimator.rates()
    assert rates[0] < 0.1
    assert rates[2] == pytest.approx(rates[0])  # never tried: no better than the position before


def test_verify_estimator_fits_a_monotone_curve_and_resists_stalls() -> None:
    verify = VerifyCostEstimator(max_n=16)
    for _ in range(5):
        verify.observe(1, 0.10)
        verify.observe(5, 0.14)
    assert verify.predict(3) == pytest.approx(0.12, rel=0.05)
    assert verify.predict(9) > verify.predict(5)
    assert all(verify.predict(n + 1) >= verify.predict(n) for n in range(1, 16))
    verify.observe(1, 10.0)  # another process stole the cores for one step
    assert verify.predict(1) < 0.2


def test_draft_cost_estimator_separates_fixed_and_per_token_costs() -> None:
    draft = DraftCostEstimator(decay=1.0)
    draft.observe(0, 0.001, one_token_s=0.1)
    draft.observe(4, 0.041, one_token_s=0.1)
    assert draft.fixed_s == pytest.approx(0.001)
    assert draft.per_token_s(0.1) == pytest.approx(0.01)
    assert draft.per_token_s(0.2) == pytest.approx(0.02)  # a slower machine slows the draft alike


def test_costs_scale_together_when_the_machine_slows_down() -> None:
    # Drafting off for a long stretch: only one-token steps are seen, and they got 40 % slower.
    # The other sizes and the draft must follow, or big batches would suddenly look cheap.
    policy = seeded(COMPUTE_BOUND, [0.9] * 12)
    for _ in range(100):
        policy.next_length()
        slow = COMPUTE_BOUND.verify(1) * 1.4
        policy.observe(
            StepEvent(
                tokens=(),
                drafted=0,
                accepted=0,
                draft_length=0,
                timings=StepTimings(0.0, slow, slow + 0.0005),
            )
        )
    costs = policy.learned_costs()
    assert costs.verify(1) == pytest.approx(COMPUTE_BOUND.verify(1) * 1.4, rel=0.02)
    assert policy.costs().verify(1) == pytest.approx(costs.verify(1), rel=DEAD_BAND)  # what decisions use
    assert costs.verify(5) / costs.verify(1) == pytest.approx(
        COMPUTE_BOUND.verify(5) / COMPUTE_BOUND.verify(1), rel=0.02
    )
    assert costs.draft_per_token_s == pytest.approx(COMPUTE_BOUND.draft_per_token_s * 1.4, rel=0.02)


def test_profile_is_shared_across_generations() -> None:
    profile = PairProfile()
    first = AdaptiveDraftLength(8, profile.for_drafter("model", True))
    run_policy(first, MEMORY_BOUND, accept=0.9, steps=50)
    second = AdaptiveDraftLength(8, profile.for_drafter("model", True))
    assert second.profile.verify is first.profile.verify
    assert second.acceptance.rates()[0] > 0.7  # starts from what the first one saw
    assert profile.for_drafter("model", False).acceptance == {}  # sampled decoding keeps its own


def test_a_zero_maximum_is_refused() -> None:
    with pytest.raises(ValueError):
        AdaptiveDraftLength(0)


def _tokens(decoder: SpeculativeDecoder, prompt: list[int], n: int) -> list[int]:
    events = list(decoder.generate(GenerationRequest(prompt, max_tokens=n)))
    assert isinstance(events[-1], FinishedEvent)
    return [t.id for e in events if isinstance(e, StepEvent) for t in e.tokens]


@pytest.mark.parametrize("regime", [COMPUTE_BOUND, MEMORY_BOUND])
def test_greedy_output_is_unchanged_under_the_adaptive_policy(regime: StepCosts) -> None:
    table = random_table(12, seed=0)
    draft_table = table + random_table(12, seed=1, scale=1.0)
    greedy = SamplingParams(temperature=0)
    baseline = _tokens(SpeculativeDecoder(BigramLM(table), None, greedy), [1, 2, 3], 60)
    policy = seeded(regime, [0.7] * 12, max_length=6)
    rng = np.random.default_rng(0)
    drafter = ModelDrafter(BigramLM(draft_table), LogitsWarper(greedy, 12), rng)
    assert _tokens(SpeculativeDecoder(BigramLM(table), drafter, greedy, policy, rng), [1, 2, 3], 60) == baseline
    ngram_policy = AdaptiveDraftLength(6)
    ngram = SpeculativeDecoder(BigramLM(table), NgramDrafter(), greedy, ngram_policy)
    assert _tokens(ngram, [1, 2, 3], 60) == baseline


def test_model_drafter_stops_below_the_floor_passed_with_each_draft() -> None:
    table = np.zeros((4, 4), dtype=np.float32)  # uniform: top probability 0.25
    drafter = ModelDrafter(BigramLM(table), LogitsWarper(SamplingParams(), 4), np.random.default_rng(0))
    drafter.begin([0, 1])
    assert len(drafter.propose([0, 1], 4, min_confidence=0.5)) == 0
    draft = drafter.propose([0, 1], 4, min_confidence=0.2)
    assert len(draft) == 4 and draft.confidence == pytest.approx([0.25] * 4)
    # A stop that also wants the whole draft to survive: tokens at 0.25 with a chance of 0.25 each (the
    # calibration's prior, a confidence is its acceptance) give 0.25, 0.0625, ...: at 0.05 the third stops.
    stop = DraftStop(0.2, 0.05, lambda confidence: confidence)
    draft = drafter.propose([0, 1], 4, min_confidence=stop)
    assert len(draft) == 2 and draft.confidence == pytest.approx([0.25] * 2)
    assert len(drafter.propose([0, 1], 4, min_confidence=DraftStop(0.2, 0.3, lambda confidence: confidence))) == 0
    # A stop that keeps the first token (a streak's draft) drafts it whatever its confidence, then stops.
    draft = drafter.propose([0, 1], 4, min_confidence=DraftStop(0.5, keep=1))
    assert len(draft) == 1 and draft.confidence == pytest.approx([0.25])
    # A first-token bar in place of the floor and survival rules (a plan that drafts after a miss for the
    # streak it opens): the first token at 0.25 clears 0.2, the second meets the floor of 0.5.
    draft = drafter.propose([0, 1], 4, min_confidence=DraftStop(0.5, 0.9, lambda confidence: confidence, first=0.2))
    assert len(draft) == 1
    assert len(drafter.propose([0, 1], 4, min_confidence=DraftStop(0.0, 0.0, lambda c: c, first=0.3))) == 0
    # No floor: a full draft, and no confidences measured (a fixed length learns nothing from them).
    draft = drafter.propose([0, 1], 4)
    assert len(draft) == 4 and draft.confidence == []


def test_a_draft_after_a_full_acceptance_keeps_its_first_token() -> None:
    # The plan chose a streak's length from the streak's own acceptance; the early stop, calibrated on
    # all drafts by confidence alone, must not turn that step into a plain one.
    policy = seeded(MEMORY_BOUND, [0.8] * 12)
    policy.observe(step(4, 4, MEMORY_BOUND))
    assert policy.next_length() > 0
    assert policy.confidence_floor().keep == 1
    policy.observe(step(4, 1, MEMORY_BOUND))  # a miss: every token must earn its place again
    assert policy.next_length() > 0
    assert policy.confidence_floor().keep == 0


def test_steps_without_a_draft_leave_the_draft_cache_alone() -> None:
    """A K = 0 step must not cut the draft's cache back: the next draft would re-read the whole prompt.

    The prompt itself is read lazily, once, by the first draft (with the three tokens the target-only steps added).
    """
    table = random_table(12, seed=0)
    draft_model = BigramLM(table)
    greedy = SamplingParams(temperature=0)
    rng = np.random.default_rng(0)
    drafter = ModelDrafter(draft_model, LogitsWarper(greedy, 12), rng)
    prompt = [1, 2, 3, 4, 5, 6, 7, 8]
    lengths = iter([0, 0, 0, 3, 0, 2] + [0] * 20)

    class Script:
        first_token_first = False

        def next_length(self) -> int:
            return next(lengths)

        def confidence_floor(self) -> float | None:
            return None

        def catch_up_pays(self, backlog: int, remaining: int) -> bool:
            return True

        def observe(self, event: StepEvent) -> None:
            pass

    decoder = SpeculativeDecoder(BigramLM(table), drafter, greedy, Script(), rng)
    list(decoder.generate(GenerationRequest(prompt, max_tokens=12)))
    assert [n for n, outputs in draft_model.decode_calls if outputs == "none"] == []  # no prefill before drafting
    catch_up = [n for n, outputs in draft_model.decode_calls if outputs == "last" and n > 1]
    assert catch_up[0] == len(prompt) + 3  # the first draft, after three target-only steps: all of it, once
    assert max(catch_up[1:]) <= 4  # the next draft: the steps since, not the prompt again
