"""The A/B verdict and the sweep's conclusion on hand-built numbers."""

from __future__ import annotations

import pytest

from app.core.bench.verdict import NO_DIFFERENCE, Spread, ab_verdict, sweep_conclusion


def test_spread_median_and_range():
    spread = Spread.of([12.0, 10.0, 11.0])
    assert (spread.median, spread.low, spread.high, spread.count) == (11.0, 10.0, 12.0, 3)
    assert spread.text() == "11.0 tok/s (10.0–12.0, 3 runs)"
    with pytest.raises(ValueError):
        Spread.of([])


def test_disjoint_ranges_give_a_ratio():
    verdict = ab_verdict([10.0, 10.5, 11.0], [20.0, 21.0, 22.0], drafted=40)
    assert verdict.ratio == pytest.approx(2.0)
    assert verdict.text == "2.00× faster with the drafter"


def test_disjoint_and_slower():
    verdict = ab_verdict([20.0, 21.0, 22.0], [10.0, 10.5, 11.0], drafted=40)
    assert verdict.ratio == pytest.approx(0.5)
    assert "slower" in verdict.text and "faster" not in verdict.text


def test_overlapping_ranges_are_no_difference():
    verdict = ab_verdict([10.0, 12.0, 14.0], [13.0, 15.0, 16.0], drafted=40)
    assert verdict.ratio is None
    assert verdict.text.startswith(NO_DIFFERENCE) and "spread" in verdict.text
    # Touching ranges share a value: still within the spread.
    assert ab_verdict([10.0, 12.0], [12.0, 13.0], drafted=5).ratio is None


def test_no_drafts_is_no_difference_even_when_disjoint():
    verdict = ab_verdict([10.0, 10.1], [30.0, 30.1], drafted=0)
    assert verdict.ratio is None
    assert "proposed no tokens" in verdict.text and "faster" not in verdict.text


def test_single_runs_claim_nothing():
    verdict = ab_verdict([10.0], [30.0], drafted=10)
    assert verdict.ratio is None and verdict.text.startswith(NO_DIFFERENCE)
    assert ab_verdict([], [30.0], drafted=10).ratio is None


def test_sweep_conclusion_at_the_hottest_shared_point():
    exact = [(0.0, 0.9), (1.0, 0.7), (1.5, 0.62)]
    match = [(0.0, 0.9), (1.0, 0.5), (1.5, 0.30)]
    assert sweep_conclusion(exact, match) == (
        "exact verification keeps 32 points more acceptance than sample-and-match at T=1.5"
    )
    assert sweep_conclusion([(0.0, 0.8)], [(0.0, 0.8)]) == (
        "exact verification and sample-and-match keep the same acceptance at T=0"
    )
    assert sweep_conclusion([(1.0, 0.2)], [(1.0, 0.3)]).startswith("sample-and-match keeps 10 points")
    assert sweep_conclusion([], []) == "no sweep points to compare yet"
