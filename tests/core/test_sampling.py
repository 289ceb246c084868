"""The sampling transform shared by p_target and q_draft."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.decoding.sampling import LogitsWarper, SamplingParams


def warp(logits: list[float] | np.ndarray, history: list[int] | tuple[int, ...] = (), **params: float) -> np.ndarray:
    row = np.asarray(logits, dtype=np.float32)
    return LogitsWarper(SamplingParams(**params), row.size).warp(row, history).to_dense(row.size)


def test_temperature_zero_is_one_hot_on_the_argmax() -> None:
    np.testing.assert_array_equal(warp([0.1, 2.0, 1.9], temperature=0), [0, 1, 0])


def test_plain_softmax_without_truncation() -> None:
    logits = np.array([1.0, 2.0, 3.0])
    expected = np.exp(logits) / np.exp(logits).sum()
    np.testing.assert_allclose(warp(logits, temperature=1, top_k=0, top_p=1, min_p=0), expected, rtol=1e-6)


def test_temperature_sharpens() -> None:
    logits = np.array([1.0, 2.0, 3.0])
    expected = np.exp(logits / 0.5) / np.exp(logits / 0.5).sum()
    np.testing.assert_allclose(warp(logits, temperature=0.5, top_k=0, top_p=1, min_p=0), expected, rtol=1e-6)


def test_top_k_keeps_the_k_best() -> None:
    probs = warp([0.0, 5.0, 1.0, 4.0, 3.0], temperature=1, top_k=2, top_p=1, min_p=0)
    assert set(np.flatnonzero(probs)) == {1, 3}


def test_top_p_keeps_the_token_that_crosses_the_threshold() -> None:
    logits = np.log([0.5, 0.3, 0.15, 0.05])
    probs = warp(logits, temperature=1, top_k=0, top_p=0.7, min_p=0)
    np.testing.assert_allclose(probs, [0.5 / 0.8, 0.3 / 0.8, 0, 0], rtol=1e-6)


def test_min_p_is_relative_to_the_top_token() -> None:
    logits = np.log([0.5, 0.3, 0.15, 0.05])
    probs = warp(logits, temperature=1, top_k=0, top_p=1, min_p=0.2)
    assert set(np.flatnonzero(probs)) == {0, 1, 2}


def test_repetition_penalty_lowers_seen_tokens() -> None:
    logits = [2.0, 2.0, -1.0]
    probs = warp(logits, history=[0, 2], temperature=1, top_k=0, top_p=1, min_p=0, repeat_penalty=2.0)
    assert probs[1] > probs[0]
    expected = np.exp([1.0, 2.0, -2.0])
    np.testing.assert_allclose(probs, expected / expected.sum(), rtol=1e-6)


def test_penalty_does_not_modify_the_callers_logits() -> None:
    row = np.array([2.0, 1.0], dtype=np.float32)
    LogitsWarper(SamplingParams(temperature=1, repeat_penalty=3.0), 2).warp(row, [0])
    np.testing.assert_array_equal(row, [2.0, 1.0])


def test_nucleus_probe_matches_a_full_sort_on_a_large_vocabulary() -> None:
    rng = np.random.default_rng(5)
    logits = (rng.normal(size=50_000) * 4).astype(np.float32)
    fast = warp(logits, temperature=0.8, top_k=0, top_p=0.9, min_p=0)
    # Reference: the nucleus computed by hand with a full sort.
    order = np.argsort(-logits.astype(np.float64))
    p1 = np.exp(logits[order] - logits[order][0]).astype(np.float64)
    p1 /= p1.sum()
    n_keep = int(np.searchsorted(np.cumsum(p1), 0.9)) + 1
    kept = order[:n_keep]
    expected = np.zeros_like(fast)
    weights = np.exp((logits[kept].astype(np.float64) - logits[kept].max()) / 0.8)
    expected[kept] = weights / weights.sum()
    np.testing.assert_allclose(fast, expected, rtol=1e-6, atol=1e-12)


def test_top_probability_is_the_temperature_one_maximum() -> None:
    warper = LogitsWarper(SamplingParams(), 3)
    row = np.log(np.array([0.2, 0.7, 0.1], dtype=np.float32))
    assert warper.top_probability(row) == pytest.approx(0.7, rel=1e-5)


@pytest.mark.parametrize(
    "bad",
    [
        {"top_p": 0.0},
        {"min_p": 1.0},
        {"top_k": -1},
        {"repeat_penalty": 0.0},
        {"temperature": -0.1},
        {"temperature": float("nan")},
    ],
)
def test_invalid_parameters_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        SamplingParams(**bad)
