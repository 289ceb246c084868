"""The two acceptance rules on hand-built p_target and q_draft."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.decoding.acceptance_rules import rejection_sampling_acceptance, sample_and_match_acceptance
from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.verification import verify_draft

D = TokenDistribution.from_dense


def test_rejection_sampling_acceptance_is_the_overlap_of_p_and_q() -> None:
    p = D([0.5, 0.3, 0.2, 0.0])
    q = D([0.1, 0.6, 0.1, 0.2])
    # min: 0.1 + 0.3 + 0.1 + 0.0
    assert rejection_sampling_acceptance(p, q) == pytest.approx(0.5)


def test_sample_and_match_acceptance_is_the_sum_of_products() -> None:
    p = D([0.5, 0.3, 0.2, 0.0])
    q = D([0.1, 0.6, 0.1, 0.2])
    # 0.05 + 0.18 + 0.02 + 0
    assert sample_and_match_acceptance(p, q) == pytest.approx(0.25)


def test_identical_spread_distributions_accept_always_under_rejection_sampling_only() -> None:
    uniform = D([1, 1, 1, 1])
    assert rejection_sampling_acceptance(uniform, uniform) == pytest.approx(1.0)
    assert sample_and_match_acceptance(uniform, uniform) == pytest.approx(0.25)


def test_one_hot_rows_agree_under_both_rules() -> None:
    # Greedy decoding, and an n-gram draft against a one-hot target: both rules are p(x).
    assert rejection_sampling_acceptance(D([0, 1, 0]), D([0, 1, 0])) == 1.0
    assert sample_and_match_acceptance(D([0, 1, 0]), D([0, 1, 0])) == 1.0
    assert rejection_sampling_acceptance(D([0.3, 0.7, 0]), D([0, 1, 0])) == pytest.approx(0.7)
    assert sample_and_match_acceptance(D([0.3, 0.7, 0]), D([0, 1, 0])) == pytest.approx(0.7)


def test_disjoint_supports_accept_nothing() -> None:
    p = TokenDistribution(np.array([0, 1]), np.array([0.5, 0.5]))
    q = TokenDistribution(np.array([2, 3]), np.array([0.5, 0.5]))
    assert rejection_sampling_acceptance(p, q) == 0.0
    assert sample_and_match_acceptance(p, q) == 0.0


def test_order_of_sparse_ids_does_not_matter() -> None:
    p = TokenDistribution(np.array([7, 2, 5]), np.array([0.2, 0.5, 0.3]))
    q = TokenDistribution(np.array([5, 7]), np.array([0.6, 0.4]))
    assert rejection_sampling_acceptance(p, q) == pytest.approx(0.3 + 0.2)
    assert sample_and_match_acceptance(p, q) == pytest.approx(0.3 * 0.6 + 0.2 * 0.4)


def test_rejection_sampling_acceptance_matches_the_verifier_empirically() -> None:
    p = D([0.5, 0.3, 0.2, 0.0])
    q = D([0.1, 0.6, 0.1, 0.2])
    rng = np.random.default_rng(3)
    n = 20000
    kept = sum(verify_draft([q.sample(rng)], [q], [p, p], rng).n_accepted for _ in range(n))
    assert kept / n == pytest.approx(rejection_sampling_acceptance(p, q), abs=0.015)
