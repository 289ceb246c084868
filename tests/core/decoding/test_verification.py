"""Rejection sampling on hand-built distributions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.events import TokenOrigin
from app.core.decoding.verification import (
    acceptance_probability,
    probabilities_at,
    residual_distribution,
    verify_draft,
)

D = TokenDistribution.from_dense


def test_acceptance_probability_is_min_one_ratio() -> None:
    assert acceptance_probability(0.3, 0.6) == pytest.approx(0.5)
    assert acceptance_probability(0.6, 0.3) == 1.0
    assert acceptance_probability(0.0, 0.4) == 0.0


def test_accepts_every_draft_and_adds_a_bonus_from_the_last_row() -> None:
    p_rows = [D([0, 1, 0]), D([0, 0, 1]), D([1, 0, 0])]
    q_rows = [D([0, 1, 0]), D([0, 0, 1])]
    verdict = verify_draft([1, 2], q_rows, p_rows, np.random.default_rng(0))
    assert verdict.n_accepted == 2
    assert verdict.next_token == 0
    assert verdict.next_origin is TokenOrigin.BONUS
    assert verdict.rejected_token is None


@pytest.mark.parametrize("reject_at", [0, 1, 2])
def test_rejects_at_the_first_position_the_target_rules_out(reject_at: int) -> None:
    draft = [0, 1, 2]
    q_rows = [D(np.eye(4)[t]) for t in draft]
    p_rows = [D(np.eye(4)[t]) for t in draft] + [D([1, 1, 1, 1])]
    # The target gives the draft token zero mass at reject_at and prefers token 3.
    p_rows[reject_at] = D([0.0 if i == draft[reject_at] else 1.0 if i == 3 else 0.0 for i in range(4)])
    verdict = verify_draft(draft, q_rows, p_rows, np.random.default_rng(1))
    assert verdict.n_accepted == reject_at
    assert verdict.next_token == 3
    assert verdict.next_origin is TokenOrigin.CORRECTED
    assert verdict.rejected_token == draft[reject_at]


def test_residual_is_normalised_positive_part_of_p_minus_q() -> None:
    p = D([0.5, 0.3, 0.2, 0.0])
    q = D([0.1, 0.6, 0.1, 0.2])
    residual = residual_distribution(p, q).to_dense(4)
    np.testing.assert_allclose(residual, np.array([0.4, 0.0, 0.1, 0.0]) / 0.5)


def test_zero_residual_falls_back_to_the_target_distribution() -> None:
    p = D([0.25, 0.25, 0.5])
    residual = residual_distribution(p, D([0.25, 0.25, 0.5]))
    np.testing.assert_allclose(residual.to_dense(3), p.to_dense(3))


def test_probabilities_at_handles_ids_outside_the_support() -> None:
    dist = TokenDistribution(np.array([7, 2, 9]), np.array([0.2, 0.5, 0.3]))
    np.testing.assert_allclose(probabilities_at(dist, np.array([2, 3, 9, 100])), [0.5, 0.0, 0.3, 0.0])


def test_greedy_distributions_accept_exactly_on_argmax_agreement() -> None:
    one = TokenDistribution.one_hot
    verdict = verify_draft([4, 5], [one(4), one(5)], [one(4), one(6), one(1)], np.random.default_rng(2))
    assert (verdict.n_accepted, verdict.next_token, verdict.rejected_token) == (1, 6, 5)


def test_rejects_wrong_row_counts() -> None:
    with pytest.raises(ValueError):
        verify_draft([1], [D([0, 1])], [D([0, 1])], np.random.default_rng(0))


@pytest.mark.parametrize("n_draft", [1, 3])
def test_emitted_tokens_follow_the_target_distribution(n_draft: int) -> None:
    """Chi-square: the first emitted token ~ p_target[0] even with a misleading draft."""
    rng = np.random.default_rng(1234)
    p0 = np.array([0.05, 0.40, 0.30, 0.15, 0.10, 0.0])
    q0 = np.array([0.50, 0.02, 0.03, 0.05, 0.20, 0.20])  # far from p0, even mass where p0 has none
    p_rows = [D(p0)] + [D(rng.dirichlet(np.ones(6))) for _ in range(n_draft)]
    q_rows = [D(q0)] + [D(rng.dirichlet(np.ones(6))) for _ in range(n_draft - 1)]
    counts = np.zeros(6)
    trials = 20000
    for _ in range(trials):
        draft = [q.sample(rng) for q in q_rows]
        verdict = verify_draft(draft, q_rows, p_rows, rng)
        first = draft[0] if verdict.n_accepted > 0 else verdict.next_token
        counts[first] += 1
    assert counts[5] == 0  # never emits what the target forbids
    support = p0 > 0
    result = stats.chisquare(counts[support], trials * p0[support])
    assert result.pvalue > 1e-3, (counts, result)
