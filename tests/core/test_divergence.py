"""Run comparison and near-tie detection."""

from __future__ import annotations

import numpy as np

from app.core.decoding.divergence import NEAR_TIE_LOGIT_GAP, compare_runs, is_near_tie, top_two_gap


def test_identical_runs_match_fully() -> None:
    result = compare_runs([1, 2, 3], [1, 2, 3])
    assert result.diverged_at is None and result.match_rate == 1.0


def test_first_difference_is_reported() -> None:
    result = compare_runs([1, 2, 3, 4], [1, 2, 9, 4])
    assert (result.diverged_at, result.matched_prefix, result.match_rate) == (2, 2, 0.5)


def test_early_stop_counts_as_divergence() -> None:
    assert compare_runs([1, 2, 3], [1, 2]).diverged_at == 2


def test_top_two_gap_and_near_tie() -> None:
    row = np.array([0.0, 3.0, 2.9, -1.0])
    assert abs(top_two_gap(row) - 0.1) < 1e-9
    assert is_near_tie(row)
    assert not is_near_tie(np.array([0.0, 3.0, 3.0 - 2 * NEAR_TIE_LOGIT_GAP]))
