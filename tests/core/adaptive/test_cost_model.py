"""The expected-speed model: expected tokens, step times, predictions, acceptance replay."""

from __future__ import annotations

import pytest

from app.core.adaptive.cost_model import (
    StepCosts,
    best_case_speedup,
    best_prediction,
    break_even_acceptance,
    expected_tokens,
    per_position_acceptance,
    plan_with_streaks,
    predict,
)


def test_expected_tokens_is_one_plus_the_chained_products() -> None:
    assert expected_tokens([1.0], 4) == 5
    assert expected_tokens([0.0], 4) == 1
    assert expected_tokens([0.5], 2) == pytest.approx(1 + 0.5 + 0.25)
    assert expected_tokens([0.9, 0.5, 1.0], 3) == pytest.approx(1 + 0.9 + 0.45 + 0.45)
    assert expected_tokens([], 3) == 1  # nothing known: no draft token counts


def test_verify_cost_extrapolates_linearly_past_the_measured_sizes() -> None:
    costs = StepCosts((1.0, 1.2, 1.4), draft_per_token_s=0.1, overhead_s=0.01)
    assert costs.verify(2) == 1.2
    assert costs.verify(5) == pytest.approx(1.8)
    assert costs.step_time(0) == pytest.approx(1.01)
    assert costs.step_time(2) == pytest.approx(0.01 + 0.2 + 1.4)
    with pytest.raises(ValueError):
        costs.verify(0)


def test_predictions_compare_each_length_with_target_only() -> None:
    # Memory-bound: verifying more tokens is nearly free, the draft costs a tenth.
    costs = StepCosts(tuple(1.0 + 0.02 * n for n in range(16)), draft_per_token_s=0.1)
    predictions = predict(costs, [0.8], 8)
    assert predictions[0].speedup == pytest.approx(1.0)
    assert [p.k for p in predictions] == list(range(9))
    best = best_prediction(predictions)
    assert best.k > 2 and best.speedup > 1.5


def test_compute_bound_costs_recommend_no_draft() -> None:
    # Verify cost grows like the number of tokens and the draft costs 60 % of the target.
    costs = StepCosts(tuple(0.025 * (1 + 0.7 * n) for n in range(16)), draft_per_token_s=0.015)
    assert best_case_speedup(costs, 15) < 1.0
    assert best_prediction(predict(costs, [0.9], 15)).k == 0
    assert break_even_acceptance(costs, 4) is None


def test_small_gains_within_the_margin_are_not_recommended() -> None:
    costs = StepCosts((1.0, 1.0), draft_per_token_s=0.0)
    predictions = predict(costs, [0.02], 1)
    assert predictions[1].speedup == pytest.approx(1.02)
    assert best_prediction(predictions).k == 0


def test_break_even_acceptance() -> None:
    costs = StepCosts((1.0, 1.5), draft_per_token_s=0.0)
    # K = 1 costs 1.5 target tokens, so it needs 1.5 tokens per step: acceptance 0.5.
    assert break_even_acceptance(costs, 1) == pytest.approx(0.5, abs=1e-9)


def _replay(bits: list[int], max_k: int, hits: list[int], attempts: list[int]) -> None:
    """Straightforward replay of greedy steps over agreement bits, counted as the decoder counts them."""
    j = 0
    while j < len(bits):
        for i in range(max_k):
            if j + i >= len(bits):
                j = len(bits)
                break
            attempts[i] += 1
            if not bits[j + i]:
                j += i + 1  # rejected: the correction takes this position
                break
            hits[i] += 1
        else:
            j += max_k + 1  # all accepted, plus the bonus token


@pytest.mark.parametrize("max_k", [1, 3, 5])
def test_per_position_acceptance_matches_a_step_by_step_replay(max_k: int) -> None:
    sequences = [[1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1], [0, 1, 1, 1, 1, 1, 1, 1, 0, 1]]
    hits, attempts = [0] * max_k, [0] * max_k
    for bits in sequences:
        _replay(bits, max_k, hits, attempts)
    got = per_position_acceptance(sequences, max_k)
    for i in range(max_k):
        if attempts[i]:
            assert got[i] == pytest.approx(hits[i] / attempts[i])


def test_constant_agreement_gives_constant_acceptance() -> None:
    rates = per_position_acceptance([[0.7] * 200], 4)
    assert rates == pytest.approx([0.7] * 4)


def test_extreme_agreement() -> None:
    assert per_position_acceptance([[1.0] * 50], 3) == pytest.approx([1.0] * 3)
    assert per_position_acceptance([[0.0] * 50], 3)[0] == 0.0


def test_streak_plan_explores_after_a_miss_when_streaks_pay() -> None:
    # Compute-bound verify, nearly free drafts (prompt lookup): a lone miss-state draft loses,
    # but it is worth it for the long, cheap-to-verify streaks it starts.
    costs = StepCosts(tuple(1.0 + 0.5 * n for n in range(17)), draft_per_token_s=0.0)
    assert best_prediction(predict(costs, [0.2], 12)).k == 0
    plan = plan_with_streaks(costs, [0.2] * 12, [0.97] * 12, 12)
    assert plan.k_after_miss >= 1 and plan.k_in_streak > plan.k_after_miss
    assert plan.tokens_per_s > 1.0 / costs.step_time(0)
    assert 0 < plan.streak_share < 1


def test_streak_plan_stays_off_when_nothing_pays() -> None:
    costs = StepCosts(tuple(1.0 + 0.9 * n for n in range(17)), draft_per_token_s=0.6)
    plan = plan_with_streaks(costs, [0.9] * 12, [0.99] * 12, 12)
    assert (plan.k_after_miss, plan.tokens_per_s) == (0, pytest.approx(1.0))


def test_streak_plan_reduces_to_the_single_state_optimum_when_states_agree() -> None:
    costs = StepCosts(tuple(1.0 + 0.02 * n for n in range(17)), draft_per_token_s=0.1)
    plan = plan_with_streaks(costs, [0.8] * 12, [0.8] * 12, 12)
    single = max(predict(costs, [0.8], 12), key=lambda p: p.tokens_per_s)
    assert plan.tokens_per_s == pytest.approx(single.tokens_per_s, rel=0.02)


def _plan_by_loops(costs: StepCosts, after_miss: list[float], in_streak: list[float], max_k: int) -> tuple:
    """The streak plan by the plain nested loops: the reference the vectorised search must equal."""
    from app.core.adaptive.cost_model import acceptance_at

    step = [costs.step_time(k) for k in range(max_k + 1)]

    def table(rates: list[float]) -> tuple[list[float], list[float]]:
        tokens, full, chain = [1.0], [0.0], 1.0
        for i in range(max_k):
            chain *= acceptance_at(rates, i)
            tokens.append(tokens[-1] + chain)
            full.append(chain)
        return tokens, full

    tokens_m, full_m = table(after_miss)
    tokens_s, full_s = table(in_streak)
    best = (0, 0, 1.0 / step[0], 0.0)
    for k_m in range(max_k + 1):
        for k_s in range(max_k + 1):
            denominator = 1.0 - full_s[k_s] + full_m[k_m]
            share = full_m[k_m] / denominator if denominator > 0 else 0.0
            rate = (share * tokens_s[k_s] + (1 - share) * tokens_m[k_m]) / (share * step[k_s] + (1 - share) * step[k_m])
            if rate > best[2]:
                best = (k_m, k_s, rate, share)
    return best


@pytest.mark.parametrize("seed", range(40))
def test_streak_plan_equals_the_nested_loops_exactly(seed: int) -> None:
    import numpy as np

    rng = np.random.default_rng(seed)
    max_k = int(rng.integers(1, 17))
    slope = float(rng.choice([0.01, 0.1, 0.5, 1.0]))
    costs = StepCosts(
        tuple(1.0 + slope * n for n in range(max_k + 2)),
        draft_per_token_s=float(rng.uniform(0, 0.5)),
        overhead_s=float(rng.uniform(0, 0.05)),
    )
    # Rates with ones in them (full acceptance: a denominator of 0) and zeros.
    after_miss = [float(x) for x in rng.choice([0.0, 0.3, 0.7, 0.95, 1.0], size=int(rng.integers(0, 13)))]
    in_streak = [float(x) for x in rng.choice([0.0, 0.5, 0.9, 1.0], size=int(rng.integers(0, 13)))]
    plan = plan_with_streaks(costs, after_miss, in_streak, max_k)
    k_m, k_s, rate, share = _plan_by_loops(costs, after_miss, in_streak, max_k)
    assert (plan.k_after_miss, plan.tokens_per_s) == (k_m, rate)
    if share > 0.0:
        assert (plan.k_in_streak, plan.streak_share) == (k_s, share)


@pytest.mark.parametrize("seed", range(20))
def test_predictions_and_lookup_length_equal_the_direct_sums_exactly(seed: int) -> None:
    import numpy as np

    from app.core.adaptive.cost_model import best_lookup_length

    rng = np.random.default_rng(seed)
    acceptance = [float(x) for x in rng.uniform(0, 1, size=int(rng.integers(0, 12)))]
    costs = StepCosts(tuple(1.0 + 0.1 * n for n in range(17)), draft_per_token_s=float(rng.uniform(0, 0.3)))
    for prediction in predict(costs, acceptance, 14):
        assert prediction.expected_tokens == expected_tokens(acceptance, prediction.k)
    rival = float(rng.uniform(0.5, 1.5))
    direct = [expected_tokens(acceptance, k) / costs.step_time(k) for k in range(1, len(acceptance) + 1)]
    best = max(range(len(direct)), key=lambda i: direct[i], default=None)
    expected = 0 if best is None or direct[best] <= rival else best + 1
    assert best_lookup_length(costs, acceptance, rival) == expected
