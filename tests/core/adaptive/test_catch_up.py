"""The draft model's catch-up after a long prompt: read it only when the plan can repay the read."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.adaptive.cost_model import StepCosts
from app.core.adaptive.estimators import PRIOR_CATCH_UP_RATIO, DraftCostEstimator
from app.core.adaptive.profile import PairProfile
from app.core.decoding.decoder import FIRST_STEP_MAX_BACKLOG, GenerationRequest, SpeculativeDecoder
from app.core.decoding.drafters import ModelDrafter
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from tests.core.adaptive.policy_runs import MEMORY_BOUND, seeded, step
from tests.core.fakes import BigramLM, random_table

# A draft that is nearly free and nearly always right: its plan makes the target ~3x faster.
CHEAP_DRAFT = StepCosts(tuple(0.075 * (1 + 0.02 * n) for n in range(17)), draft_per_token_s=0.002)


def test_the_catch_up_cost_starts_from_the_prior_and_learns_from_a_measured_read() -> None:
    draft = DraftCostEstimator()
    draft.seed(per_token_s=0.02, one_token_s=0.1)
    assert draft.catch_up_per_token_s(0.1) == pytest.approx(0.02 * PRIOR_CATCH_UP_RATIO)
    # A step read 1,000 missed tokens and made 5 decodes in 5.1 s: 5.0 s of reading, 5 ms a token.
    draft.observe_catch_up(1000, 5, 5.1, one_token_s=0.1)
    assert draft.catch_up_per_token_s(0.1) == pytest.approx(0.005)
    # Relative to a decode, so a machine that slows down (one-token cost doubled) reads slower too.
    assert draft.catch_up_per_token_s(0.2) == pytest.approx(0.010)


def test_a_small_gain_does_not_repay_reading_a_long_document() -> None:
    policy = seeded(MEMORY_BOUND, [0.75] * 12)
    assert policy.next_length() > 0  # drafting pays step by step...
    assert not policy.catch_up_pays(3000, 120)  # ...but not enough to read 3,000 missed tokens first
    assert "stays off" in policy.reason and "3000 tokens" in policy.reason
    policy.next_length()  # the next step plans again
    assert policy.catch_up_pays(FIRST_STEP_MAX_BACKLOG + 4, 120)  # a short prompt is worth reading


def test_a_large_gain_over_a_long_reply_repays_the_read() -> None:
    policy = seeded(CHEAP_DRAFT, [0.95] * 12)
    assert policy.next_length() > 0
    assert policy.catch_up_pays(3000, 500)
    policy.next_length()
    assert not policy.catch_up_pays(3000, 3)  # three tokens left cannot repay it


def test_a_probe_never_reads_a_long_backlog() -> None:
    policy = seeded(MEMORY_BOUND, [0.0] * 12)
    probes = refused = 0
    for _ in range(40):
        if policy.next_length() > 0:
            probes += 1
            refused += not policy.catch_up_pays(3000, 200)
        policy.observe(step(0, 0, MEMORY_BOUND))
    assert probes > 0  # drafting off, it still probes now and then...
    assert refused == probes  # ...and a probe, which plans no gain, never reads 3,000 tokens for it


def _until_a_probe(policy: AdaptiveDraftLength) -> None:
    for _ in range(40):
        if policy.next_length() > 0:
            return
        policy.observe(step(0, 0, MEMORY_BOUND))
    raise AssertionError("no probe in 40 steps")


def test_a_probe_reads_a_short_backlog() -> None:
    # The pre-flight judged drafting not worth it; a probe is how that verdict gets corrected, and a
    # model that never drafted has the prompt to read first. A short read for a long reply goes ahead.
    policy = seeded(MEMORY_BOUND, [0.0] * 12)
    _until_a_probe(policy)
    assert policy.catch_up_pays(100, 200)
    # A read that costs more than a tenth of the rest of the reply does not.
    policy = seeded(MEMORY_BOUND, [0.0] * 12)
    _until_a_probe(policy)
    assert not policy.catch_up_pays(100, 10)


def test_a_probe_a_lookup_took_the_place_of_is_still_due() -> None:
    policy = seeded(MEMORY_BOUND, [0.0] * 12)
    _until_a_probe(policy)
    lookup = replace(step(5, 5, MEMORY_BOUND), draft_source="lookup")
    policy.observe(lookup)  # the hybrid's lookup proposed instead of the model
    assert policy.next_length() > 0  # the probe comes again
    policy.observe(replace(step(4, 0, MEMORY_BOUND), draft_source="model"))  # the model drafted: probe made
    assert policy.next_length() == 0


def test_costs_not_yet_measured_let_the_first_draft_measure_them() -> None:
    assert AdaptiveDraftLength(8).catch_up_pays(3000, 100)


# A freshly loaded pair after its first, plain step: one target token measured (77 ms, the Q4_K_M demo
# target at a 5,000-token context on a 2-core CPU), the draft never run.
Q4_PLAIN = StepCosts((0.077,), draft_per_token_s=0.0)


def _fresh(share: float | None) -> AdaptiveDraftLength:
    profile = PairProfile()
    profile.draft_share_prior = share
    policy = AdaptiveDraftLength(12, profile.for_drafter("model", True))
    policy.next_length()
    policy.observe(step(0, 0, Q4_PLAIN))
    assert profile.verify.known and not profile.drafts["model"].known
    return policy


def test_a_fresh_pair_does_not_read_a_long_document_only_to_measure_its_draft() -> None:
    # The Q4_K_M demo draft decodes in 0.68 of its target's time (timed at load on a 2-core CPU): even
    # drafts accepted whole every step could not win back, over the 511 tokens a reply may still have,
    # what reading 4,000 tokens costs.
    policy = _fresh(0.68)
    assert not policy.catch_up_pays(4000, 511)
    assert "stays off" in policy.reason and "4000 tokens" in policy.reason
    policy.next_length()
    assert policy.catch_up_pays(300, 511)  # a short prompt is read, and the first draft measures the cost
    policy.next_length()
    assert not policy.catch_up_pays(300, 3)  # ...unless almost nothing is left to write


def test_a_draft_much_smaller_than_its_target_reads_the_document() -> None:
    # An F16 target and the same draft (a fifth of its time): the best case repays the read.
    assert _fresh(0.2).catch_up_pays(4000, 511)


def test_a_draft_as_slow_as_its_target_still_reads_a_short_prompt_to_measure_itself() -> None:
    # No draft length could pay (the draft decodes in 95 % of the target's time), but 30 tokens cost a
    # sliver of a 48-token reply: the first draft goes ahead and measures what drafting really costs.
    assert _fresh(0.95).catch_up_pays(30, 47)
    assert not _fresh(0.95).catch_up_pays(1000, 47)


def test_without_a_timed_draft_the_first_draft_still_measures_it() -> None:
    assert _fresh(None).catch_up_pays(4000, 511)


class _Refusing:
    """A policy that drafts 4 every step but never lets the draft model catch up."""

    first_token_first = True
    reason = "scripted"

    def __init__(self) -> None:
        self.asked: list[tuple[int, int]] = []

    def next_length(self) -> int:
        return 4

    def confidence_floor(self) -> float | None:
        return None

    def catch_up_pays(self, backlog: int, remaining: int) -> bool:
        self.asked.append((backlog, remaining))
        return False

    def observe(self, event: StepEvent) -> None:
        pass


def test_the_decoder_keeps_the_draft_model_off_when_the_policy_refuses_its_catch_up() -> None:
    table = random_table(20, seed=3)
    greedy = SamplingParams(temperature=0)
    prompt = [t % 19 + 1 for t in range(60)]
    baseline = [e for e in SpeculativeDecoder(BigramLM(table), None, greedy).generate(GenerationRequest(prompt, 12))]
    draft_model = BigramLM(table)
    rng = np.random.default_rng(0)
    policy = _Refusing()
    drafter = ModelDrafter(draft_model, LogitsWarper(greedy, 20), rng)
    decoder = SpeculativeDecoder(BigramLM(table), drafter, greedy, policy, rng)
    events = list(decoder.generate(GenerationRequest(prompt, 12)))
    assert draft_model.decode_calls == []  # never read the prompt, never drafted
    assert policy.asked and policy.asked[0][0] > len(prompt)  # asked from the second step, the prompt still unread
    assert policy.asked[0][1] < 12  # with the tokens the reply may still make
    finished = [e for e in events if isinstance(e, FinishedEvent)][-1]
    assert finished.text == [e for e in baseline if isinstance(e, FinishedEvent)][-1].text


def _first_lengths(acceptance: float, accept_drafts: bool, steps: int = 12) -> list[int]:
    policy = seeded(MEMORY_BOUND, [acceptance] * 12)
    chosen = []
    for _ in range(steps):
        k = policy.next_length()
        chosen.append(k)
        policy.observe(step(k, k if accept_drafts else 0, MEMORY_BOUND))
    return chosen


def test_a_reply_near_break_even_opens_with_drafts_and_follows_what_they_show() -> None:
    # Seeded at 0.15 the best draft is ~6 % slower than the target alone: "off", but by a margin that
    # timing noise moves. The reply's own first drafts decide, since its text may accept far more.
    opened = _first_lengths(0.15, accept_drafts=True)
    assert all(k > 0 for k in opened[:3])
    assert all(k > 0 for k in opened[3:])  # fully accepted, drafting stays on
    refused = _first_lengths(0.15, accept_drafts=False)
    assert all(k > 0 for k in refused[:3])
    assert refused[3:7] == [0, 0, 0, 0]  # never accepted, it is off after the opening


def test_a_reply_far_from_break_even_does_not_open_with_drafts() -> None:
    # Seeded at 0.0 the best draft is ~18 % slower: the verdict stands and no opening draft is spent.
    assert _first_lengths(0.0, accept_drafts=True)[:7] == [0] * 7
