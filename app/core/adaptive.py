"""The adaptive draft-length controller.

Before each step :class:`AdaptiveDraftLength` picks the draft length K that
maximises expected tokens per second under the cost model of
:mod:`app.core.cost_model`, from

* live per-position acceptance (exponentially weighted, with priors), and
* measured costs: the target's verify cost per batch size and the drafter's
  cost per token, learned online from :class:`~app.core.events.StepTimings`
  and optionally seeded by the pre-flight check.

Acceptance is strongly correlated from one step to the next (a reply that
copies its input, or a stretch of boilerplate, accepts draft after draft), so
two estimates are kept: one for steps that follow a fully accepted draft (a
streak) and one for all others, and each step uses the one that matches.

K = 0 (drafting off) is a legal answer. While off, a probe step now and then
refreshes the acceptance estimate, with the interval doubling each time the
probe confirms that drafting loses; when the costs say that even a perfect
draft could not pay, no probe is spent at all. The controller also exposes a
confidence floor: the model drafter stops early once its own top probability
falls below the acceptance at which one more draft token pays for itself.

Costs belong to the machine and the pair, not to one reply, so they live in a
:class:`PairProfile` that every generation of a loaded pair shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.core.cost_model import StepCosts, best_case_speedup, expected_tokens, plan_with_streaks
from app.core.events import StepEvent

DEFAULT_MAX_LENGTH = 12
# Before anything is known: a middling acceptance, and a verify batch whose
# extra tokens cost 30 % of the first (between memory-bound GPUs and CPUs).
_PRIOR_ACCEPTANCE = 0.6
_PRIOR_VERIFY_SLOPE = 0.3
_EXPLORE_LENGTH = 4
_BASE_PROBE_INTERVAL = 8
_MAX_PROBE_INTERVAL = 256
# A probe costs a few target tokens' time, and a model drafter first catches
# its cache up on every token it missed: on the demo pair on a 2-core CPU that
# batch costs ~15 % of the time the target took for those tokens. Unless a
# perfectly accepted draft would be this much faster than target-only, no
# probe can repay itself.
_PROBE_MIN_CEILING = 1.3
# Drafting must beat target-only by this much to be switched on: it keeps the
# controller from flapping on noise when the two are nearly equal.
_SWITCH_MARGIN = 0.03
_MAX_CONFIDENCE_FLOOR = 0.9


class _EwMean:
    """An exponentially weighted mean whose weight saturates at ``1 / (1 - decay)``."""

    __slots__ = ("decay", "mean", "weight")

    def __init__(self, decay: float) -> None:
        self.decay = decay
        self.mean = 0.0
        self.weight = 0.0

    def add(self, value: float, weight: float = 1.0) -> None:
        self.weight = self.weight * self.decay + weight
        self.mean += (value - self.mean) * weight / self.weight


class VerifyCostEstimator:
    """The target's cost of evaluating n tokens in one batch, learned per n.

    Sizes never observed are read off a line fitted through the observed
    ones (or, with one size known, a line of the prior slope), and the
    curve is made non-decreasing: a bigger batch never costs less.
    """

    def __init__(self, max_n: int = 32, decay: float = 0.9) -> None:
        self.max_n = max_n
        self._means = [_EwMean(decay) for _ in range(max_n + 1)]
        self._curve: list[float] | None = None

    @property
    def known(self) -> bool:
        """True once at least one batch size has a measurement."""
        return any(m.weight > 0 for m in self._means)

    def seed(self, verify_s: Sequence[float], weight: float = 3.0) -> None:
        """Start from measured costs (pre-flight); ``weight`` is how many observations they count as."""
        for n, seconds in enumerate(verify_s[: self.max_n], start=1):
            self._means[n].add(seconds, weight)
        self._curve = None

    def observe(self, n: int, seconds: float) -> None:
        """One step verified ``n`` tokens in ``seconds``."""
        if not 1 <= n <= self.max_n or seconds <= 0:
            return
        slot = self._means[n]
        if slot.weight >= 2.0:
            # A single stall (another process took the cores) must not rewrite the curve.
            seconds = min(max(seconds, slot.mean / 3), slot.mean * 3)
        slot.add(seconds)
        self._curve = None

    def predict(self, n: int) -> float:
        """Predicted seconds for ``n`` tokens (needs :attr:`known`)."""
        curve = self._curve or self._fit()
        return curve[min(max(n, 1), self.max_n)]

    def _fit(self) -> list[float]:
        points = [(n, m.mean, m.weight) for n, m in enumerate(self._means) if n > 0 and m.weight > 0]
        if not points:
            raise ValueError("no verify cost has been observed yet")
        line = _weighted_line(points)
        curve = [0.0]
        for n in range(1, self.max_n + 1):
            slot = self._means[n]
            # A size with a full observation's weight uses its own mean; the line fills the gaps.
            share = min(1.0, slot.weight)
            value = share * slot.mean + (1.0 - share) * line(n)
            curve.append(max(value, curve[-1]))
        self._curve = curve
        return curve


def _weighted_line(points: list[tuple[int, float, float]]) -> _Line:
    """Least-squares line t = a + b (n - 1) through (n, t, weight), with a non-negative slope."""
    if len({n for n, _, _ in points}) == 1:
        n, t, _ = points[0]
        first = t / (1.0 + _PRIOR_VERIFY_SLOPE * (n - 1))
        return _Line(first, first * _PRIOR_VERIFY_SLOPE)
    total = sum(w for _, _, w in points)
    mean_x = sum(w * (n - 1) for n, _, w in points) / total
    mean_y = sum(w * t for _, t, w in points) / total
    sxx = sum(w * (n - 1 - mean_x) ** 2 for n, _, w in points)
    sxy = sum(w * (n - 1 - mean_x) * (t - mean_y) for n, t, w in points)
    slope = max(0.0, sxy / sxx)
    return _Line(max(1e-6, mean_y - slope * mean_x), slope)


@dataclass(frozen=True, slots=True)
class _Line:
    first: float
    slope: float

    def __call__(self, n: int) -> float:
        return self.first + self.slope * (n - 1)


class DraftCostEstimator:
    """A drafter's cost per step outside the target: ``fixed + per_token * decodes``.

    ``fixed`` is the step's Python bookkeeping (learned from K = 0 steps);
    ``per_token`` is one draft decode including its sampling work.
    """

    def __init__(self, decay: float = 0.9) -> None:
        self._fixed = _EwMean(decay)
        self._per_token = _EwMean(decay)

    @property
    def known(self) -> bool:
        """True once a drafting step has been measured (or seeded)."""
        return self._per_token.weight > 0

    @property
    def fixed_s(self) -> float:
        """Per-step cost that does not grow with K."""
        return self._fixed.mean

    @property
    def per_token_s(self) -> float:
        """Cost of one more draft token."""
        return self._per_token.mean

    def seed(self, per_token_s: float, fixed_s: float = 0.0, weight: float = 3.0) -> None:
        """Start from measured costs (pre-flight)."""
        self._per_token.add(per_token_s, weight)
        self._fixed.add(fixed_s, weight)

    def observe(self, decodes: int, seconds: float) -> None:
        """A step spent ``seconds`` outside the target's verify call with ``decodes`` draft decodes."""
        if seconds < 0:
            return
        if decodes == 0:
            self._fixed.add(seconds)
        else:
            self._per_token.add(max(0.0, seconds - self._fixed.mean) / decodes)


class AcceptanceEstimator:
    """Per-position acceptance with exponential forgetting and priors.

    Position i's estimate is a Beta-style mean ``(hits + w * prior) / (trials + w)``
    over decayed counts. Position 0's prior is the given one (pre-flight, or
    the last generation); every deeper position borrows the estimate of the
    position before it. Acceptance given an accepted prefix rarely falls with
    depth, and a position nobody has tried yet must not stay pinned to an old
    figure, or a controller that drafts 2 would never learn that 8 pays.
    """

    def __init__(
        self,
        positions: int,
        prior: Sequence[float] | None = None,
        prior_weight: float = 2.0,
        decay: float = 0.95,
    ) -> None:
        self.positions = positions
        self.prior = list(prior) if prior else None
        self.prior_weight = prior_weight
        self.decay = decay
        self._hits = [0.0] * positions
        self._trials = [0.0] * positions

    def observe(self, drafted: int, accepted: int) -> None:
        """A step verified a draft of ``drafted`` tokens and accepted the first ``accepted``."""
        verified = min(drafted, accepted + 1, self.positions)
        for i in range(verified):
            self._hits[i] = self._hits[i] * self.decay + (1.0 if i < accepted else 0.0)
            self._trials[i] = self._trials[i] * self.decay + 1.0

    def rates(self) -> list[float]:
        """Current ``a_0..a_{positions-1}``."""
        out: list[float] = []
        for i in range(self.positions):
            if out:
                prior = out[-1]
            elif self.prior:
                prior = self.prior[0]
            else:
                prior = _PRIOR_ACCEPTANCE
            out.append((self._hits[i] + self.prior_weight * prior) / (self._trials[i] + self.prior_weight))
        return out


@dataclass(slots=True)
class DrafterProfile:
    """What is known about one drafter on one pair: shared costs, typical acceptance.

    ``acceptance`` maps "after a fully accepted draft" (True) or not (False)
    to the latest estimates; a new generation starts from them as its priors,
    and ``memory`` (the pair's table, when there is one) keeps them.
    """

    verify: VerifyCostEstimator
    draft: DraftCostEstimator
    acceptance: dict[bool, list[float]] = field(default_factory=dict)
    memory: dict[tuple[str, bool], dict[bool, list[float]]] | None = None
    key: tuple[str, bool] = ("model", True)

    def remember(self, streak: bool, rates: Sequence[float]) -> None:
        """Keep the latest acceptance estimates for the next generation."""
        self.acceptance[streak] = list(rates)
        if self.memory is not None:
            self.memory[self.key] = self.acceptance


@dataclass(slots=True)
class PairProfile:
    """Everything the adaptive controller learns about a loaded pair, kept across generations."""

    verify: VerifyCostEstimator = field(default_factory=VerifyCostEstimator)
    drafts: dict[str, DraftCostEstimator] = field(default_factory=dict)
    acceptance: dict[tuple[str, bool], dict[bool, list[float]]] = field(default_factory=dict)

    def for_drafter(self, kind: str, greedy: bool) -> DrafterProfile:
        """The view one generation uses; acceptance is kept apart for greedy and sampled decoding."""
        draft = self.drafts.setdefault(kind, DraftCostEstimator())
        key = (kind, greedy)
        return DrafterProfile(self.verify, draft, dict(self.acceptance.get(key, {})), self.acceptance, key)

    def seed(self, kind: str, costs: StepCosts, acceptance: Sequence[float] | None = None, greedy: bool = True) -> None:
        """Seed with pre-flight measurements."""
        self.verify.seed(costs.verify_s)
        self.drafts.setdefault(kind, DraftCostEstimator()).seed(costs.draft_per_token_s, costs.overhead_s)
        if acceptance:
            self.acceptance[(kind, greedy)] = {False: list(acceptance), True: list(acceptance)}


class AdaptiveDraftLength:
    """A :class:`~app.core.draft_policy.DraftLengthPolicy` that maximises expected tokens per second."""

    def __init__(self, max_length: int = DEFAULT_MAX_LENGTH, profile: DrafterProfile | None = None) -> None:
        if max_length < 1:
            raise ValueError("the adaptive controller needs a maximum draft length of at least 1")
        self.max_length = max_length
        self._attached = profile is not None
        self.profile = profile or DrafterProfile(VerifyCostEstimator(), DraftCostEstimator())
        self._estimators = self._fresh_estimators()
        self._streak = False
        self._chosen = 0
        self._best_rate = 0.0
        self._steps_off = 0
        self._probe_interval = _BASE_PROBE_INTERVAL
        self._last_requested = -1

    @property
    def attached(self) -> bool:
        """Whether a shared profile is in use (else costs are learned from scratch)."""
        return self._attached

    def attach(self, profile: DrafterProfile) -> None:
        """Use a loaded pair's shared profile (before the first step)."""
        self._attached = True
        self.profile = profile
        self._estimators = self._fresh_estimators()

    def _fresh_estimators(self) -> dict[bool, AcceptanceEstimator]:
        known = self.profile.acceptance
        return {state: AcceptanceEstimator(self.max_length, known.get(state)) for state in (False, True)}

    @property
    def acceptance(self) -> AcceptanceEstimator:
        """The estimate that applies to the coming step (after a fully accepted draft or not)."""
        return self._estimators[self._streak]

    # -- the policy protocol ---------------------------------------------------

    def next_length(self) -> int:
        """Draft length for the coming step."""
        if not (self.profile.verify.known and self.profile.draft.known):
            self._chosen = min(_EXPLORE_LENGTH, self.max_length)  # measure what a draft costs first
            return self._chosen
        costs = self.costs()
        best_k, best_rate = self._best(costs)
        self._best_rate = best_rate
        if best_k > 0:
            self._steps_off = 0
            self._probe_interval = _BASE_PROBE_INTERVAL
            self._chosen = best_k
            return best_k
        self._steps_off += 1
        if self._steps_off < self._probe_interval or self._hopeless_now(costs):
            self._chosen = 0
            return 0
        # Probe: one step at the best positive length refreshes the acceptance estimate.
        self._steps_off = 0
        self._probe_interval = min(2 * self._probe_interval, _MAX_PROBE_INTERVAL)
        rates = self.acceptance.rates()
        self._chosen = max(range(1, self.max_length + 1), key=lambda k: expected_tokens(rates, k) / costs.step_time(k))
        return self._chosen

    def observe(self, event: StepEvent) -> None:
        """Learn costs and acceptance from the step that just ran."""
        timings = event.timings
        self.profile.verify.observe(event.drafted + 1, timings.verify_s)
        requested = event.draft_length
        if requested == 0:
            self.profile.draft.observe(0, timings.total_s - timings.verify_s)
        elif self._last_requested != 0:
            # A model drafter's first step after an off stretch also catches its cache up on
            # every token it missed; that one-off cost is not the per-token cost.
            decodes = min(event.drafted + 1, requested)
            self.profile.draft.observe(decodes, timings.total_s - timings.verify_s)
        self._last_requested = requested
        if event.drafted:
            estimator = self._estimators[self._streak]  # the state this step was chosen in
            estimator.observe(event.drafted, event.accepted)
            self.profile.remember(self._streak, estimator.rates())
        self._streak = event.drafted > 0 and event.accepted == event.drafted

    # -- what the controller currently believes ----------------------------------

    def costs(self) -> StepCosts:
        """The cost model's view of the learned costs."""
        verify = self.profile.verify
        draft = self.profile.draft
        return StepCosts(
            tuple(verify.predict(n) for n in range(1, self.max_length + 2)),
            draft.per_token_s,
            draft.fixed_s,
        )

    @property
    def last_length(self) -> int:
        """The length chosen for the latest step."""
        return self._chosen

    @property
    def min_confidence(self) -> float:
        """The draft confidence below which one more draft token does not pay for itself.

        One more token costs a draft decode plus the verify batch's growth;
        at the best achievable rate R that time is worth R * dt tokens, so a
        token accepted with a lower probability is a loss. The draft's top
        probability stands in for that acceptance.
        """
        if self._chosen == 0 or self._best_rate <= 0.0:
            return 0.0
        verify = self.profile.verify
        extra = self.profile.draft.per_token_s + verify.predict(self._chosen + 1) - verify.predict(self._chosen)
        return min(_MAX_CONFIDENCE_FLOOR, max(0.0, self._best_rate * extra))

    def _best(self, costs: StepCosts) -> tuple[int, float]:
        """The length for the coming step and the long-run rate of the plan it belongs to."""
        base = 1.0 / costs.step_time(0)
        plan = plan_with_streaks(
            costs, self._estimators[False].rates(), self._estimators[True].rates(), self.max_length
        )
        k = plan.k_in_streak if self._streak else plan.k_after_miss
        if plan.tokens_per_s < base * (1.0 + _SWITCH_MARGIN) or k == 0:
            return 0, max(base, plan.tokens_per_s)
        return k, plan.tokens_per_s

    def _hopeless_now(self, costs: StepCosts) -> bool:
        """True when even a draft accepted in full could not repay a probe."""
        return best_case_speedup(costs, self.max_length) < _PROBE_MIN_CEILING


def policy_for_gui(draft_length: int) -> AdaptiveDraftLength:
    """The controller for the GUI's checkbox: its length box is a floor on the maximum, not a fixed K."""
    return AdaptiveDraftLength(max(draft_length, DEFAULT_MAX_LENGTH))
