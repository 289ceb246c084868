"""The sampling transform at a real vocabulary size: exact results, no vocabulary-sized allocations."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from app.core.decoding.sampling import LogitsWarper, SamplingParams

V = 151_936  # Qwen2.5


def _rows(seed: int) -> list[np.ndarray]:
    """A flat row, a peaked one shaped like real LM logits (the bulk far below the top) and a skewed one."""
    rng = np.random.default_rng(seed)
    flat = (rng.normal(size=V) * 2).astype(np.float32)
    peaked = flat - 10.0
    peaked[rng.integers(V, size=3)] += np.array([24.0, 21.0, 19.0], dtype=np.float32)
    skewed = (rng.gumbel(size=V) * 3).astype(np.float32)
    return [flat, peaked, skewed]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 40, 200])
def test_top_k_is_exactly_the_k_largest(seed: int, k: int) -> None:
    warper = LogitsWarper(SamplingParams(temperature=1.0, top_k=k, top_p=1.0, min_p=0.0), V)
    for row in _rows(seed):
        dist = warper.warp(row)
        expected = set(np.argsort(row)[-k:].tolist())
        assert set(dist.ids.tolist()) == expected
        logits = row[dist.ids].astype(np.float64)
        probs = np.exp(logits - logits.max())
        np.testing.assert_allclose(dist.probs, probs / probs.sum(), rtol=1e-6)


def test_top_k_survives_ties_and_infinite_logits() -> None:
    row = np.full(V, -np.inf, dtype=np.float32)
    row[:10] = 1.0  # fewer finite logits than k, all tied
    dist = LogitsWarper(SamplingParams(temperature=1.0, top_k=40, top_p=1.0, min_p=0.0), V).warp(row)
    assert set(dist.ids[dist.probs > 0].tolist()) == set(range(10))


def test_confidence_matches_the_exact_softmax_maximum() -> None:
    warper = LogitsWarper(SamplingParams(), V)
    for row in _rows(3):
        exact = 1.0 / np.exp(row.astype(np.float64) - row.max()).sum()
        assert warper.top_probability(row) == pytest.approx(exact, rel=1e-3)  # the window ignores < 0.1 %


@pytest.mark.parametrize("temperature", [0.0, 0.8])
def test_warping_a_row_allocates_no_vocabulary_sized_array(temperature: float) -> None:
    warper = LogitsWarper(SamplingParams(temperature=temperature), V)
    row = _rows(4)[1]
    warper.warp(row)  # warm up lazily created state
    tracemalloc.start()
    try:
        warper.warp(row)
        warper.top_probability(row)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < V  # far below one float32 row (4 * V bytes), let alone an index array (8 * V)
