"""The expected-speed model of speculative decoding: pure arithmetic, no timing.

One step drafts K tokens and verifies ``[last] + draft`` (K + 1 tokens) on the
target in one batch. With per-position acceptance ``a_i`` (the probability that
draft token i is accepted given that tokens 0..i-1 were):

    E[tokens per step] = 1 + sum_{k=1..K} prod_{i<k} a_i
    time per step      = overhead + draft_cost * K + verify_cost(K + 1)

K = 0 is target-only decoding: one token per ``overhead + verify_cost(1)``.
The predicted speedup of K is the ratio of the two rates. Everything here is
deterministic so the pre-flight check, the adaptive controller and the tests
agree on one formula.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# A draft length must beat target-only by this much before it is recommended:
# smaller predicted gains drown in timing noise and are not worth the memory.
RECOMMEND_MARGIN = 0.05


@dataclass(frozen=True, slots=True)
class StepCosts:
    """Measured costs of one step's parts, in seconds."""

    verify_s: tuple[float, ...]  # verify_s[n - 1]: the target evaluating n tokens in one batch
    draft_per_token_s: float  # one draft-model decode (0 for prompt lookup)
    overhead_s: float = 0.0  # Python bookkeeping per step, outside both models

    def __post_init__(self) -> None:
        if not self.verify_s:
            raise ValueError("need the verify cost of at least one batch size")

    def verify(self, n: int) -> float:
        """Cost of verifying ``n`` tokens; linear extrapolation past the measured sizes."""
        if n < 1:
            raise ValueError("a verify batch has at least one token")
        measured = self.verify_s
        if n <= len(measured):
            return measured[n - 1]
        if len(measured) == 1:
            return measured[0] * n  # nothing to extrapolate from: assume fully compute-bound
        slope = max(0.0, (measured[-1] - measured[0]) / (len(measured) - 1))
        return measured[-1] + slope * (n - len(measured))

    def step_time(self, k: int) -> float:
        """Wall time of one step that drafts ``k`` tokens."""
        return self.overhead_s + self.draft_per_token_s * k + self.verify(k + 1)


@dataclass(frozen=True, slots=True)
class Prediction:
    """What the model expects of one draft length."""

    k: int
    expected_tokens: float  # per step
    step_s: float
    tokens_per_s: float
    speedup: float  # against K = 0 under the same costs


def acceptance_at(acceptance: Sequence[float], i: int) -> float:
    """``a_i``, reusing the deepest known position for deeper ones (0 when nothing is known)."""
    if not acceptance:
        return 0.0
    return float(acceptance[min(i, len(acceptance) - 1)])


def expected_tokens(acceptance: Sequence[float], k: int) -> float:
    """E[tokens per step] when drafting ``k`` tokens: the bonus or correction plus the accepted run."""
    total = 1.0
    chain = 1.0
    for i in range(k):
        chain *= acceptance_at(acceptance, i)
        total += chain
    return total


def best_lookup_length(costs: StepCosts, confidences: Sequence[float], rival_tokens_per_s: float) -> int:
    """The number of lookup proposals that maximises tokens/s, or 0 unless that beats ``rival_tokens_per_s``.

    ``confidences[i]`` is the estimated acceptance of proposal i given that the
    ones before it were accepted, so they serve as the ``a_i`` of the model.
    """
    best_k, best_rate = 0, rival_tokens_per_s
    tokens, chain = 1.0, 1.0  # expected_tokens(confidences, k), built up as k grows
    for k in range(1, len(confidences) + 1):
        chain *= acceptance_at(confidences, k - 1)
        tokens += chain
        rate = tokens / costs.step_time(k)
        if rate > best_rate:
            best_k, best_rate = k, rate
    return best_k


def predict(costs: StepCosts, acceptance: Sequence[float], max_k: int) -> list[Prediction]:
    """Predictions for K = 0..max_k (index K)."""
    base_rate = 1.0 / costs.step_time(0)
    out = []
    # expected_tokens(acceptance, k) for every k, built up in one pass (the same sums in the same
    # order, so the same floats): this runs each verify step, and the direct form is quadratic.
    tokens, chain = 1.0, 1.0
    for k in range(max_k + 1):
        if k > 0:
            chain *= acceptance_at(acceptance, k - 1)
            tokens += chain
        step = costs.step_time(k)
        rate = tokens / step
        out.append(Prediction(k, tokens, step, rate, rate / base_rate))
    return out


def best_prediction(predictions: Sequence[Prediction], margin: float = RECOMMEND_MARGIN) -> Prediction:
    """The fastest draft length, or K = 0 unless some K beats target-only by ``margin``."""
    baseline = predictions[0]
    fastest = max(predictions, key=lambda p: p.tokens_per_s)
    return fastest if fastest.speedup >= 1.0 + margin else baseline


def best_case_speedup(costs: StepCosts, max_k: int) -> float:
    """The speedup with every draft accepted: below 1, drafting can never pay with these costs."""
    drafting = predict(costs, [1.0], max_k)[1:]
    return max((p.speedup for p in drafting), default=1.0)


def break_even_acceptance(costs: StepCosts, k: int) -> float | None:
    """The constant acceptance at which drafting ``k`` tokens matches target-only (None: never)."""
    target = costs.step_time(k) / costs.step_time(0)  # tokens per step needed to break even
    if expected_tokens([1.0], k) < target:
        return None
    low, high = 0.0, 1.0
    for _ in range(40):  # expected_tokens is increasing in the acceptance: bisect
        mid = (low + high) / 2
        if expected_tokens([mid], k) < target:
            low = mid
        else:
            high = mid
    return high


def per_position_acceptance(agreement: Sequence[Sequence[float]], max_k: int) -> list[float]:
    """Per-position acceptance ``a_0..a_{max_k-1}`` simulated over teacher-forced sequences.

    ``agreement[s][j]`` is the probability that the target accepts token j of
    sequence s given the tokens before it (0/1 at temperature 0, the overlap
    sum(min(p, q)) otherwise). Steps of up to ``max_k`` drafts are replayed
    along each sequence, tracking the probability of each step start, so a
    position is counted only where a real step would have verified it: steps
    begin after rejections, not anywhere inside an easy run.
    """
    attempts = [0.0] * max_k
    hits = [0.0] * max_k
    for sequence in agreement:
        n = len(sequence)
        start_p = [0.0] * (n + max_k + 2)
        start_p[0] = 1.0
        for j in range(n):
            weight = start_p[j]
            if weight == 0.0:
                continue
            chain = 1.0
            for i in range(max_k):
                if j + i >= n:
                    # The sequence ends: whatever chain survives closes the step here.
                    start_p[n] += weight * chain
                    break
                attempts[i] += weight * chain
                accepted = chain * sequence[j + i]
                hits[i] += weight * accepted
                # Rejected at position i: one corrected token, the next step starts after it.
                start_p[j + i + 1] += weight * (chain - accepted)
                chain = accepted
            else:
                start_p[j + max_k + 1] += weight * chain  # all accepted: the bonus token follows
    rates: list[float] = []
    for i in range(max_k):
        if attempts[i] <= 0.0:
            rates.append(rates[-1] if rates else 0.0)
        else:
            rates.append(hits[i] / attempts[i])
    return rates


@dataclass(frozen=True, slots=True)
class StreakPlan:
    """Draft lengths for the two states of a step, and the long-run rate they give."""

    k_after_miss: int  # after a rejection, or after a step that drafted nothing
    k_in_streak: int  # after a fully accepted draft
    tokens_per_s: float
    streak_share: float  # long-run share of steps taken in a streak


def plan_with_streaks(
    costs: StepCosts, after_miss: Sequence[float], in_streak: Sequence[float], max_k: int
) -> StreakPlan:
    """The pair of draft lengths that maximises the long-run tokens per second.

    Acceptance runs in streaks: a reply that copies its input accepts draft
    after draft, then misses for a while. With separate per-position
    acceptance for the two states, a fully accepted draft moves to the streak
    state and anything else to the other, a two-state Markov chain. Its
    stationary share of streak steps is ``p_miss / (1 - p_streak + p_miss)``
    where ``p_s`` is the chance that state s's draft is accepted in full; the
    rate is expected tokens over expected time under that share. Unlike
    choosing each state's best length alone, this values a short exploratory
    draft after a miss for the streak it may start.
    """
    step = [costs.step_time(k) for k in range(max_k + 1)]

    def table(rates: Sequence[float]) -> tuple[list[float], list[float]]:
        tokens, full, chain = [1.0], [0.0], 1.0  # K = 0 never starts a streak
        for i in range(max_k):
            chain *= acceptance_at(rates, i)
            tokens.append(tokens[-1] + chain)
            full.append(chain)
        return tokens, full

    tokens_m, full_m = table(after_miss)
    tokens_s, full_s = table(in_streak)
    # Every (k_m, k_s) pair at once (this runs on every verify step, so the (K+1)^2 loop in
    # Python cost a tenth of a millisecond). Rows are k_m, columns k_s; argmax keeps the first
    # best in row-major order, which is what a strict ">" over the nested loops chose.
    step_a = np.asarray(step)
    enter = np.asarray(full_m)[:, None]
    denominator = 1.0 - np.asarray(full_s)[None, :] + enter
    share = np.divide(enter, denominator, out=np.zeros_like(denominator), where=denominator > 0)
    rate = (share * np.asarray(tokens_s)[None, :] + (1 - share) * np.asarray(tokens_m)[:, None]) / (
        share * step_a[None, :] + (1 - share) * step_a[:, None]
    )
    best = StreakPlan(0, 0, 1.0 / step[0], 0.0)
    flat = int(np.argmax(rate))
    k_m, k_s = divmod(flat, max_k + 1)
    if float(rate[k_m, k_s]) > best.tokens_per_s:
        best = StreakPlan(k_m, k_s, float(rate[k_m, k_s]), float(share[k_m, k_s]))
    if best.streak_share == 0.0:
        # No streak in the long run; if one is under way anyway, use it while it lasts.
        k_s = max(range(max_k + 1), key=lambda k: tokens_s[k] / step[k])
        best = StreakPlan(best.k_after_miss, k_s, best.tokens_per_s, 0.0)
    return best
