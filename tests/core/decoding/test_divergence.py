"""Run comparison and near-tie detection."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.decoding.divergence import (
    NEAR_TIE_LOGIT_GAP,
    choice_spread,
    divergence_explained,
    first_divergence,
    top_two,
    top_two_gap,
)


def test_top_two_gap_and_near_tie() -> None:
    row = np.array([0.0, 3.0, 2.9, -1.0])
    assert abs(top_two_gap(row) - 0.1) < 1e-9
    assert top_two_gap(row) < NEAR_TIE_LOGIT_GAP


def test_first_divergence() -> None:
    assert first_divergence([1, 2, 3], [1, 2, 3]) is None
    assert first_divergence([1, 2, 3], [1, 5, 3]) == 1
    assert first_divergence([1, 2], [1, 2, 3]) == 2  # one run ended on an end-of-generation token
    assert first_divergence([1, 2, 3], [1, 2]) == 2
    assert first_divergence([], []) is None


def test_top_two_orders_best_first_whatever_the_partition_returns() -> None:
    assert top_two([0.0, 2.0, 3.0]) == (1.0, (2, 1))
    assert top_two([3.0, 2.0, 0.0]) == (1.0, (0, 1))


def test_divergence_explained_needs_a_near_tie_and_both_choices_among_the_best_two() -> None:
    never_ends = lambda token: False  # noqa: E731 - a one-line predicate
    assert divergence_explained(0.1, (4, 7), (4, 7), never_ends)
    assert not divergence_explained(NEAR_TIE_LOGIT_GAP, (4, 7), (4, 7), never_ends)
    assert not divergence_explained(0.1, (4, 7), (4, 9), never_ends)
    # A run that ended there chose an end-of-generation token: explained only if one of the two ends.
    assert not divergence_explained(0.1, (4, 7), (4, None), never_ends)
    assert divergence_explained(0.1, (4, 7), (4, None), lambda token: token == 7)
    assert divergence_explained(0.5, (4, 7), (4, 7), never_ends, threshold=0.6)


def test_choice_spread_is_how_far_the_lower_choice_lies_below_the_best() -> None:
    never_ends = lambda token: False  # noqa: E731
    row = np.array([5.0, 4.97, 4.95, 1.0, -2.0])  # three tokens within 0.05 of each other
    assert choice_spread(row, (0, 1), never_ends) == pytest.approx(0.03)  # the top two: their gap
    assert choice_spread(row, (1, 2), never_ends) == pytest.approx(0.05)  # a third as close: still a near-tie
    assert choice_spread(row, (0, 3), never_ends) == pytest.approx(4.0)  # a real disagreement
    assert choice_spread(row, (0, 0), never_ends) == 0.0
    # A run that ended there chose the best end token among the likeliest; none of them ending is no tie.
    assert choice_spread(row, (0, None), lambda token: token == 2) == pytest.approx(0.05)
    assert choice_spread(row, (0, None), never_ends) == float("inf")
