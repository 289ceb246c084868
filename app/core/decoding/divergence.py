"""Comparing a speculative greedy run with the target-only run, token by token.

Greedy speculative decoding is exactly target-only decoding in exact
arithmetic. llama.cpp's CPU kernels are not bit-identical between a batch
of K+1 tokens and one token at a time, so where the target's two best
logits are nearly tied the argmax can flip. A divergence is *explained*
when the target's top-two gap at that position is below a near-tie
threshold and both runs chose one of those two tokens: numerics, not the
algorithm (see docs/architecture.md, "Exactness"). Where three or more
tokens are that close, the batched argmax can land on any of them, so the
benchmark asks the general question (:func:`choice_spread`): how far below
the best logit is the lower of the two runs' tokens.

This module is the one place that finds where two runs part and judges
whether the parting is a near-tie; the self-test, the benchmark, the A/B
dialog and the tests all call it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

# Two thresholds on purpose, because the batch-vs-single drift they must cover differs by model:
#
# NEAR_TIE_LOGIT_GAP is for the SmolLM2-135M Q4_1 test pair (the self-test and the engine
# tests): every divergence observed there had a gap <= 0.125 logits, while typical greedy
# positions have gaps of 1-6. 0.25 leaves headroom without calling real disagreements ties,
# so a decoding bug on the small pair cannot hide under it.
NEAR_TIE_LOGIT_GAP = 0.25
# BENCH_NEAR_TIE_LOGIT_GAP is for the benchmark's real targets. Measured on the Q4_K_M
# Qwen2.5-Coder-1.5B target over 300 positions (a 5-token verify batch against one token at
# a time), the top-two gap moved by 0.06 logits at the median, 0.37 at the 99th percentile
# and 0.55 at most (its F16 copy: under 0.01). A flip needs the gap to change sign, so 0.6
# covers every change observed; each benchmark regime also measures the drift afresh.
BENCH_NEAR_TIE_LOGIT_GAP = 0.6


def first_divergence(baseline: Sequence[int], candidate: Sequence[int]) -> int | None:
    """Index of the first token where the runs differ, or None when they are equal.

    A run that stops where the other goes on (it chose an end-of-generation
    token there) differs at the shorter length.
    """
    for i, (a, b) in enumerate(zip(baseline, candidate, strict=False)):
        if a != b:
            return i
    return None if len(baseline) == len(candidate) else min(len(baseline), len(candidate))


def top_two(logits: npt.ArrayLike) -> tuple[float, tuple[int, int]]:
    """The gap between the two largest logits, and their token ids (best first)."""
    row = np.asarray(logits, dtype=np.float64)
    second, best = (int(i) for i in np.argpartition(row, row.size - 2)[row.size - 2 :])
    if row[second] > row[best]:
        best, second = second, best
    return float(row[best] - row[second]), (best, second)


def top_two_gap(logits: npt.ArrayLike) -> float:
    """Difference between the largest and second-largest logit."""
    return top_two(logits)[0]


def divergence_explained(
    gap: float,
    best_two: tuple[int, int],
    chosen: Sequence[int | None],
    is_end: Callable[[int], bool],
    threshold: float = NEAR_TIE_LOGIT_GAP,
) -> bool:
    """Is a divergence numerics? The gap is a near-tie and every run chose one of the two best tokens.

    ``chosen`` holds each run's token at the diverging position, ``None`` for a
    run that ended there: that run picked whichever end-of-generation token
    won, so it is explained when one of the two best tokens ends generation.
    """
    ends_allowed = any(is_end(t) for t in best_two)
    return gap < threshold and all(ends_allowed if t is None else t in best_two for t in chosen)


def choice_spread(logits: npt.ArrayLike, chosen: Sequence[int | None], is_end: Callable[[int], bool]) -> float:
    """How far below the best logit the least likely of the runs' tokens lies (0 when all chose the best).

    A run that ended there (``None``) chose the best end-of-generation token
    among the eight most likely; if none of those ends, the spread is infinite.
    A divergence is numerics when this is under the near-tie threshold: every
    run's token was within it of the best, so batched arithmetic could flip
    the argmax among them. With the two best tokens chosen, it is their gap.
    """
    row = np.asarray(logits, dtype=np.float64)
    best = float(row.max())
    top = np.argsort(row)[::-1][:8]
    spread = 0.0
    for token in chosen:
        if token is None:
            ends = [int(t) for t in top if is_end(int(t))]
            spread = max(spread, best - float(row[ends[0]]) if ends else float("inf"))
        else:
            spread = max(spread, best - float(row[token]))
    return spread
