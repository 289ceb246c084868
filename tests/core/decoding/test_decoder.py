"""The decoding loop on hand-built bigram models."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy import stats

from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import ModelDrafter
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent, TokenOrigin
from app.core.decoding.lookup_drafters import NgramDrafter
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.core.errors import PromptTooLongError
from tests.core.fakes import BigramLM, random_table

V = 12
GREEDY = SamplingParams(temperature=0)


def run(decoder: SpeculativeDecoder, prompt: list[int], max_tokens: int = 40, **kwargs: object):
    events = list(decoder.generate(GenerationRequest(prompt, max_tokens=max_tokens, **kwargs)))
    steps = [e for e in events if isinstance(e, StepEvent)]
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    return [t.id for s in steps for t in s.tokens], steps, finished


def model_decoder(target_table, draft_table, params=GREEDY, k=4, seed=0, **lm):
    target = BigramLM(target_table, **lm)
    draft = BigramLM(draft_table, **lm)
    rng = np.random.default_rng(seed)
    drafter = ModelDrafter(draft, LogitsWarper(params, draft.n_vocab), rng)
    return SpeculativeDecoder(target, drafter, params, FixedDraftLength(k), rng), target, draft


@pytest.mark.parametrize("k", [1, 3, 6])
@pytest.mark.parametrize("draft_seed", [1, 2])
def test_greedy_speculative_output_equals_target_only(k: int, draft_seed: int) -> None:
    table = random_table(V, seed=0)
    # A draft that mostly agrees: the target's table plus noise large enough to flip some argmaxes.
    draft_table = table + random_table(V, seed=draft_seed, scale=2.0)
    baseline, _, _ = run(SpeculativeDecoder(BigramLM(table), None, GREEDY), [1, 2, 3])
    spec, steps, _ = run(model_decoder(table, draft_table, k=k)[0], [1, 2, 3])
    assert spec == baseline
    origins = Counter(t.origin for s in steps for t in s.tokens)
    assert origins[TokenOrigin.DRAFT] > 0 and origins[TokenOrigin.CORRECTED] > 0  # both paths exercised


def test_greedy_ngram_output_equals_target_only() -> None:
    table = random_table(V, seed=3)
    prompt = [5, 6, 7, 8, 5, 6, 7, 8, 9, 1, 2]
    baseline, _, _ = run(SpeculativeDecoder(BigramLM(table), None, GREEDY), prompt, 60)
    decoder = SpeculativeDecoder(BigramLM(table), NgramDrafter(), GREEDY, FixedDraftLength(5))
    spec, _steps, finished = run(decoder, prompt, 60)
    assert spec == baseline
    assert finished.stats.accepted > 0  # a bigram model cycles, so lookups hit


def test_caches_hold_exactly_the_committed_tokens_after_every_step() -> None:
    table = random_table(V, seed=4)
    decoder, target, draft = model_decoder(table, table + random_table(V, seed=9, scale=2.5), k=5)
    prompt = [0, 1]
    committed = list(prompt)
    for event in decoder.generate(GenerationRequest(prompt, max_tokens=30)):
        if isinstance(event, StepEvent):
            committed += [t.id for t in event.tokens]
            assert list(target.kv_tokens) == committed[:-1]
            assert list(draft.kv_tokens) == committed[: len(draft.kv_tokens)]
            assert len(draft.kv_tokens) >= len(committed) - 2  # at most the bonus/correction is missing


def test_stats_add_up() -> None:
    table = random_table(V, seed=6)
    decoder, _, _ = model_decoder(table, table + random_table(V, seed=7, scale=2.0), k=3)
    ids, steps, finished = run(decoder, [3], 50)
    s = finished.stats
    assert s.emitted == len(ids) == 50
    assert s.steps == len(steps)
    assert s.accepted == sum(e.accepted for e in steps)
    assert s.acceptance_rate == pytest.approx(s.accepted / s.drafted)
    assert s.mean_accepted_length == pytest.approx(s.accepted / s.steps)
    assert s.per_position_acceptance[0] == pytest.approx(
        sum(e.accepted > 0 for e in steps if e.drafted) / sum(1 for e in steps if e.drafted)
    )
    for event in steps:
        origins = [t.origin for t in event.tokens]
        assert origins[: event.accepted] == [TokenOrigin.DRAFT] * event.accepted
        if event.accepted < event.drafted and event.accepted < len(event.tokens):  # a proposal turned down
            corrected = event.tokens[event.accepted]
            assert corrected.origin is TokenOrigin.CORRECTED and corrected.rejected is not None
            assert corrected.id != corrected.rejected.id
        assert all(t.rejected is None for t in event.tokens if t.origin is not TokenOrigin.CORRECTED)


def test_stops_on_end_of_generation_without_emitting_it() -> None:
    table = np.full((V, V), -5.0, dtype=np.float32)
    table[1, 2] = table[2, 3] = table[3, 11] = 5.0
    decoder = SpeculativeDecoder(BigramLM(table, eog=11), NgramDrafter(), GREEDY, FixedDraftLength(3))
    ids, _, finished = run(decoder, [1])
    assert ids == [2, 3]
    assert finished.reason is FinishReason.EOG
    assert finished.text == "<2><3>"


class _EmojiLM(BigramLM):
    """Token 2 is the first half of a 4-byte character and token 3 its second half; token 11 is end-of-generation."""

    def token_bytes(self, token: int) -> bytes:
        return {2: "🍎".encode()[:2], 3: "🍎".encode()[2:]}.get(token, f"<{token}>".encode())


def test_a_reply_cut_inside_a_character_keeps_whole_characters_and_an_ended_one_shows_it() -> None:
    table = np.full((V, V), -5.0, dtype=np.float32)
    table[1, 4] = table[4, 2] = table[2, 3] = table[3, 11] = 5.0
    cut = SpeculativeDecoder(_EmojiLM(table, eog=11), None, GREEDY)
    ids, _, finished = run(cut, [1], max_tokens=2)
    assert ids == [4, 2] and finished.reason is FinishReason.MAX_TOKENS
    assert finished.text == "<4>"  # no U+FFFD for the half character: Continue would read it as text
    whole = SpeculativeDecoder(_EmojiLM(table, eog=11), None, GREEDY)
    assert run(whole, [1])[2].text == "<4>🍎"
    table[2, 11], table[2, 3] = 9.0, -5.0  # the model ends inside the character: its bytes are shown
    ended = SpeculativeDecoder(_EmojiLM(table, eog=11), None, GREEDY)
    _ids, _, finished = run(ended, [1])
    assert finished.reason is FinishReason.EOG and finished.text == "<4>\ufffd"


def test_stop_string_cuts_the_text() -> None:
    table = random_table(V, seed=8)
    baseline, _, full = run(SpeculativeDecoder(BigramLM(table), None, GREEDY), [4], 10)
    stop = f"<{baseline[3]}>"
    _ids, steps, finished = run(SpeculativeDecoder(BigramLM(table), None, GREEDY), [4], 10, stop_strings=(stop,))
    assert finished.reason is FinishReason.STOP_STRING
    assert finished.text == full.text[: full.text.index(stop)]
    assert "".join(s.text for s in steps) == finished.text


def test_cancellation_is_checked_between_steps() -> None:
    calls = {"n": 0}

    def should_stop() -> bool:
        calls["n"] += 1
        return calls["n"] > 3

    _ids, steps, finished = run(
        SpeculativeDecoder(BigramLM(random_table(V, seed=1)), None, GREEDY), [0], 100, should_stop=should_stop
    )
    assert finished.reason is FinishReason.CANCELLED
    assert len(steps) == 3


def test_prompt_that_fills_the_context_is_refused() -> None:
    decoder = SpeculativeDecoder(BigramLM(random_table(V, seed=1), n_ctx=8), None, GREEDY)
    with pytest.raises(PromptTooLongError, match="8"):
        list(decoder.generate(GenerationRequest(list(range(8)))))


def test_generation_ends_cleanly_when_the_context_is_full() -> None:
    decoder, target, _ = model_decoder(random_table(V, seed=2), random_table(V, seed=3), k=4, n_ctx=16)
    ids, _, finished = run(decoder, [1, 2, 3], 100)
    assert finished.reason is FinishReason.CONTEXT_FULL
    assert len(ids) == 16 - 3 + 1  # the last position's token is sampled but never cached
    assert len(target.kv_tokens) <= 16


def test_second_generation_reuses_the_cached_prefix() -> None:
    table = random_table(V, seed=2)
    decoder, target, _ = model_decoder(table, table, k=2)
    first, _, _ = run(decoder, [1, 2, 3, 4], 5)
    target.decode_calls.clear()
    run(decoder, [1, 2, 3, 4, *first, 5], 5)
    prefill = target.decode_calls[0]
    assert prefill == (1, "none")  # only the new turn's token, everything else is reused


def test_speculative_sampling_preserves_the_target_distribution_end_to_end() -> None:
    """Chi-square on the joint distribution of three sampled tokens (V=4 -> 64 cells)."""
    v = 4
    target_table = random_table(v, seed=11, scale=1.0)
    draft_table = -target_table  # deliberately far from the target
    params = SamplingParams(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0)
    probs = np.exp(target_table.astype(np.float64))
    probs /= probs.sum(axis=1, keepdims=True)
    counts: Counter[tuple[int, ...]] = Counter()
    trials = 6000
    decoder, _, _ = model_decoder(target_table, draft_table, params=params, k=3, seed=99)
    for _ in range(trials):
        ids, _, _ = run(decoder, [0], 3)
        counts[tuple(ids)] += 1
    cells = [(a, b, c) for a in range(v) for b in range(v) for c in range(v)]
    expected = np.array([probs[0, a] * probs[a, b] * probs[b, c] for a, b, c in cells]) * trials
    observed = np.array([counts[cell] for cell in cells])
    result = stats.chisquare(observed, expected)
    assert result.pvalue > 1e-3, result


def test_ngram_drafter_copies_what_followed_the_latest_match() -> None:
    drafter = NgramDrafter(max_ngram=2)
    draft = drafter.propose([1, 2, 3, 4, 9, 1, 2, 7, 7, 1, 2], 3)
    assert draft.tokens == [7, 7, 1]
    assert all(q.prob_of(t) == 1.0 for q, t in zip(draft.q_draft, draft.tokens, strict=False))
    assert drafter.propose([1, 2, 3], 3).tokens == []


def test_each_step_reports_both_acceptance_rules_for_the_positions_it_verified() -> None:
    table = random_table(V, seed=6)
    params = SamplingParams(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0)
    decoder, _, _ = model_decoder(table, table + random_table(V, seed=7, scale=1.5), params=params, k=4, seed=5)
    _, steps, finished = run(decoder, [3], 1500)
    for step in steps:
        reached = min(step.drafted, step.accepted + 1)
        assert len(step.rejection_sampling_expected) == len(step.sample_and_match_expected) == reached
        for exact, match in zip(step.rejection_sampling_expected, step.sample_and_match_expected, strict=True):
            assert 0.0 <= match <= exact <= 1.0 + 1e-9
    s = finished.stats
    assert s.rule_positions == s.verified > 0
    # Exact verification keeps, on average, what the overlap promises; matching would keep less.
    assert s.verified_acceptance_rate == pytest.approx(s.rejection_sampling_expected, abs=0.04)
    assert s.sample_and_match_expected < s.rejection_sampling_expected - 0.1
    summary = s.to_dict()
    assert summary["rejection_sampling_expected"] == s.rejection_sampling_expected
    assert summary["sample_and_match_expected"] == s.sample_and_match_expected
