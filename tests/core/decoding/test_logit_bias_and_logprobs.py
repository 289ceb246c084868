"""OpenAI's logit_bias on both models' logits, and each token's log-probabilities from the target's rows."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy import stats

from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import ModelDrafter
from app.core.decoding.events import FinishedEvent, StepEvent, TokenOrigin
from app.core.decoding.logprobs import token_logprobs
from app.core.decoding.lookup_drafters import NgramDrafter
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from tests.core.fakes import BigramLM, random_table

V = 12


def _ids(decoder: SpeculativeDecoder, prompt: list[int], max_tokens: int, **kwargs: object) -> list[int]:
    events = list(decoder.generate(GenerationRequest(prompt, max_tokens=max_tokens, **kwargs)))  # type: ignore[arg-type]
    assert isinstance(events[-1], FinishedEvent)
    return [t.id for e in events if isinstance(e, StepEvent) for t in e.tokens if t.id is not None]


def _speculative(target: np.ndarray, draft: np.ndarray, params: SamplingParams, seed: int = 0) -> SpeculativeDecoder:
    rng = np.random.default_rng(seed)
    drafter = ModelDrafter(BigramLM(draft), LogitsWarper(params, V), rng)
    return SpeculativeDecoder(BigramLM(target), drafter, params, FixedDraftLength(4), rng)


def test_the_bias_is_added_to_the_logits_before_truncation() -> None:
    logits = np.array([3.0, 2.0, 1.0, 0.0], dtype=np.float32)
    greedy = LogitsWarper(SamplingParams(temperature=0, logit_bias=((0, -100.0), (2, 1.5))), 4)
    assert greedy.warp(logits).argmax() == 2  # 0 is all but banned, 2 now leads 2 + 0 over 1 + 1.5
    assert logits.tolist() == [3.0, 2.0, 1.0, 0.0]  # the model's own row is never written
    plain = LogitsWarper(SamplingParams(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, logit_bias=((3, 2.0),)), 4)
    expected = np.exp([3.0, 2.0, 1.0, 2.0])
    np.testing.assert_allclose(plain.warp(logits).to_dense(4), expected / expected.sum(), rtol=1e-6)


@pytest.mark.parametrize(
    "bias",
    [((2, 1.0), (1, 1.0)), ((1, 1.0), (1, 2.0)), ((-1, 1.0),), ((1, 100.5),), ((1, float("nan")),)],
)
def test_a_bias_out_of_order_twice_negative_or_past_100_is_refused(bias: tuple[tuple[int, float], ...]) -> None:
    with pytest.raises(ValueError, match="logit_bias"):
        SamplingParams(logit_bias=bias)


@pytest.mark.parametrize("draft_seed", [1, 2])
def test_greedy_speculation_with_a_bias_equals_the_biased_target_alone(draft_seed: int) -> None:
    table = random_table(V, seed=0)
    draft_table = table + random_table(V, seed=draft_seed, scale=2.0)
    plain = SamplingParams(temperature=0)
    unbiased = _ids(SpeculativeDecoder(BigramLM(table), None, plain), [1, 2, 3], 40)
    favourite = Counter(unbiased).most_common(1)[0][0]
    # Ban the reply's most common token and push another one up: the reply must change.
    params = SamplingParams(temperature=0, logit_bias=tuple(sorted({(favourite, -100.0), ((favourite + 5) % V, 1.5)})))
    alone = _ids(SpeculativeDecoder(BigramLM(table), None, params), [1, 2, 3], 40)
    assert alone != unbiased and favourite not in alone
    assert _ids(_speculative(table, draft_table, params), [1, 2, 3], 40) == alone
    # A draft equal to the target has every proposal kept only if its logits get the same bias.
    events = list(_speculative(table, table, params).generate(GenerationRequest([1, 2, 3], max_tokens=40)))
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert [t.id for s in steps for t in s.tokens] == alone
    assert all(s.accepted == s.drafted > 0 for s in steps[:-1])
    assert Counter(t.origin for s in steps for t in s.tokens)[TokenOrigin.CORRECTED] == 0
    lookup = SpeculativeDecoder(BigramLM(table), NgramDrafter(), params, FixedDraftLength(5))
    assert _ids(lookup, [1, 2, 3], 40) == alone  # a lookup knows no bias: verification holds its proposals to it


def test_sampled_speculation_with_a_bias_follows_the_biased_target() -> None:
    """Chi-square on two sampled tokens (V=4 -> 16 cells) against the biased target's own distribution."""
    v = 4
    table = random_table(v, seed=11, scale=1.0)
    bias = ((1, 2.0), (2, -1.5))
    params = SamplingParams(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, logit_bias=bias)
    rng = np.random.default_rng(5)
    drafter = ModelDrafter(BigramLM(-table), LogitsWarper(params, v), rng)  # a draft far from the target
    decoder = SpeculativeDecoder(BigramLM(table), drafter, params, FixedDraftLength(2), rng)
    biased = table.astype(np.float64).copy()
    for token, value in bias:
        biased[:, token] += value
    probs = np.exp(biased)
    probs /= probs.sum(axis=1, keepdims=True)
    trials = 4000
    counts = Counter(tuple(_ids(decoder, [0], 2)) for _ in range(trials))
    cells = [(a, b) for a in range(v) for b in range(v)]
    expected = np.array([probs[0, a] * probs[a, b] for a, b in cells]) * trials
    result = stats.chisquare([counts[c] for c in cells], expected)
    assert result.pvalue > 1e-3, result


def test_logprobs_are_the_biased_targets_at_temperature_one_whatever_the_sampling() -> None:
    table = random_table(V, seed=4)
    bias = ((3, 1.0),)
    params = SamplingParams(temperature=0.3, top_k=2, seed=1, logit_bias=bias)
    decoder = _speculative(table, table + random_table(V, seed=9, scale=1.0), params)
    events = list(decoder.generate(GenerationRequest([1, 2], max_tokens=12, top_logprobs=3)))
    steps = [e for e in events if isinstance(e, StepEvent)]
    tokens = [t for s in steps for t in s.tokens]
    entries = [e for s in steps for e in s.logprobs]
    assert len(entries) == len(tokens) == 12
    context = [1, 2, *[t.id for t in tokens]]
    for i, (token, entry) in enumerate(zip(tokens, entries, strict=True)):
        row = table[context[i + 1]].astype(np.float64)
        row[3] += 1.0
        expected = row - np.log(np.exp(row).sum())  # temperature 1: neither 0.3 nor top_k shape them
        assert entry.token.id == token.id
        assert entry.token.logprob == pytest.approx(expected[token.id], abs=1e-5)
        assert [c.id for c in entry.top] == list(np.argsort(-expected, kind="stable")[:3])
        assert entry.token.piece == BigramLM(table).token_bytes(token.id)
    quiet = list(decoder.generate(GenerationRequest([1, 2], max_tokens=4)))
    assert all(not e.logprobs for e in quiet if isinstance(e, StepEvent))  # none unless asked


def test_token_logprobs_orders_ties_by_id_and_bounds_the_count() -> None:
    log_probs = np.log(np.array([0.1, 0.3, 0.3, 0.3]))
    entry = token_logprobs(log_probs, 0, 50, lambda t: bytes([65 + t]))
    assert [c.id for c in entry.top] == [1, 2, 3, 0] and entry.token.piece == b"A"
    assert token_logprobs(log_probs, 2, 0, lambda t: b"").top == ()
