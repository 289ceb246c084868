"""What the adaptive controller learns online: costs, acceptance and calibration.

Small estimators with exponential forgetting, each kept apart from the
controller so that it can be tested with hand-built observations:

* :class:`VerifyCostEstimator`: the target's cost of a verify batch of n tokens;
* :class:`DraftCostEstimator`: a drafter's cost per step and per draft token;
* :class:`AcceptanceEstimator`: per-position acceptance with priors;
* :class:`ConfidenceCalibration`: acceptance as a function of the draft's confidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# Before anything is known: a middling acceptance, and a verify batch whose
# extra tokens cost 30 % of the first (between memory-bound GPUs and CPUs).
PRIOR_ACCEPTANCE = 0.6
_PRIOR_VERIFY_SLOPE = 0.3


# Reading a token in a batch (a prefill) against decoding one: on a 2-core CPU llama.cpp reads a 0.5B
# model's prompt about 8-10x faster per token than it decodes; a GPU widens the gap. The first
# catch-up measures it.
PRIOR_CATCH_UP_RATIO = 0.125


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

    def state(self) -> list[float]:
        """``[mean, weight]``: what :meth:`restore` reads back."""
        return [self.mean, self.weight]

    def restore(self, state: object, max_weight: float) -> None:
        """Take a :meth:`state` back, its weight capped at ``max_weight`` observations."""
        mean, weight = checked_numbers(state, 2)
        self.mean = mean
        self.weight = min(weight, max_weight)


def checked_numbers(value: object, length: int | None = None) -> list[float]:
    """``value`` as a list of finite, non-negative numbers (of ``length`` when given), else ValueError."""
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise ValueError(f"expected a list of {length or 'some'} numbers, got {value!r:.80}")
    out: list[float] = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int | float) or not 0.0 <= item < float("inf"):
            raise ValueError(f"not a finite non-negative number: {item!r:.40}")
        out.append(float(item))
    return out


class VerifyCostEstimator:
    """The target's cost of evaluating n tokens in one batch: a scale times a shape.

    The scale is the cost of one token, ``v1``, which every target-only step
    measures. The shape is each size's cost relative to one token, learned
    when that size is verified. Keeping the two apart matters: when another
    process slows the machine, or the context grows, v1 moves at once and
    every size moves with it, instead of a fresh v1 meeting stale absolute
    costs of the other sizes and making big batches look cheap. Sizes never
    observed are read off a line through the observed ratios (or the prior
    slope), and the curve never falls as n grows.
    """

    def __init__(self, max_n: int = 32, decay: float = 0.9) -> None:
        self.max_n = max_n
        self._decay = decay
        self._v1 = _EwMean(decay)
        self._v1_guessed = False  # v1 inferred from a bigger batch, not yet measured
        self._ratios = [_EwMean(decay) for _ in range(max_n + 1)]
        self._curve: list[float] | None = None

    @property
    def known(self) -> bool:
        """True once a cost has been measured (or seeded)."""
        return self._v1.weight > 0

    @property
    def one_token_measured(self) -> bool:
        """False while the one-token cost is only inferred from a bigger batch."""
        return self.known and not self._v1_guessed

    @property
    def one_token_s(self) -> float:
        """The current cost of verifying one token: the scale of every cost."""
        return self._v1.mean

    def seed(self, verify_s: Sequence[float], weight: float = 3.0) -> None:
        """Start from measured costs (pre-flight); ``weight`` is how many observations they count as."""
        first = verify_s[0]
        self._v1.add(first, weight)
        for n, seconds in enumerate(verify_s[1 : self.max_n], start=2):
            self._ratios[n].add(seconds / first, weight)
        self._curve = None

    def observe(self, n: int, seconds: float) -> float:
        """One step verified ``n`` tokens in ``seconds``.

        Returns the factor by which costs kept relative to v1 must be
        re-expressed (1 unless this replaced a guessed v1 by a measured one).
        """
        factor = 1.0
        if not 1 <= n <= self.max_n or seconds <= 0:
            return factor
        if n == 1:
            if self._v1_guessed:
                # The first real measurement: re-express the ratios taken against the guess.
                factor = self._v1.mean / seconds
                for slot in self._ratios:
                    slot.mean *= factor
                self._v1 = _EwMean(self._decay)
                self._v1_guessed = False
            self._v1.add(_clipped(seconds, self._v1))
        else:
            if not self.known:  # nothing but this size yet: guess v1 from the prior slope
                self._v1.add(seconds / (1.0 + _PRIOR_VERIFY_SLOPE * (n - 1)))
                self._v1_guessed = True
            self._ratios[n].add(_clipped(seconds / self._v1.mean, self._ratios[n]))
        self._curve = None
        return factor

    def state(self) -> dict[str, object]:
        """What was learned, as JSON-ready values (:meth:`restore` reads them back)."""
        return {
            "one_token": self._v1.state(),
            "one_token_guessed": self._v1_guessed,
            "ratios": {str(n): slot.state() for n, slot in enumerate(self._ratios) if slot.weight > 0},
        }

    def restore(self, state: dict[str, object], max_weight: float) -> None:
        """Start from a :meth:`state`, each figure counting as at most ``max_weight`` observations."""
        guessed = state["one_token_guessed"]
        ratios = state["ratios"]
        if not isinstance(guessed, bool) or not isinstance(ratios, dict):
            raise ValueError("a verify cost state needs a flag and a table of ratios")
        self._v1.restore(state["one_token"], max_weight)
        self._v1_guessed = guessed
        for key, slot in ratios.items():
            n = int(key)
            if not 2 <= n <= self.max_n:
                raise ValueError(f"no verify batch of {n} tokens is kept")
            self._ratios[n].restore(slot, max_weight)
        self._curve = None

    def predict(self, n: int) -> float:
        """Predicted seconds for ``n`` tokens (needs :attr:`known`)."""
        return self._v1.mean * self.relative(n)

    def relative(self, n: int) -> float:
        """What verifying ``n`` tokens costs relative to one (the prior slope before anything is known)."""
        if not self.known:
            return 1.0 + _PRIOR_VERIFY_SLOPE * (max(n, 1) - 1)
        curve = self._curve or self._fit()
        return curve[min(max(n, 1), self.max_n)]

    def _fit(self) -> list[float]:
        points = [(1, 1.0, 3.0)] + [(n, m.mean, m.weight) for n, m in enumerate(self._ratios) if m.weight > 0]
        line = _weighted_line(points) if len(points) > 1 else _Line(1.0, _PRIOR_VERIFY_SLOPE)
        curve = [0.0, 1.0]
        for n in range(2, self.max_n + 1):
            slot = self._ratios[n]
            # A size with a full observation's weight uses its own ratio; the line fills the gaps.
            share = min(1.0, slot.weight)
            curve.append(max(share * slot.mean + (1.0 - share) * line(n), curve[-1]))
        self._curve = curve
        return curve


def _clipped(value: float, current: _EwMean) -> float:
    """``value`` limited to within 50 % of an established mean: one stall must not rewrite the costs."""
    if current.weight < 2.0:
        return value
    return min(max(value, current.mean / 1.5), current.mean * 1.5)


def _weighted_line(points: list[tuple[int, float, float]]) -> _Line:
    """Least-squares line t = a + b (n - 1) through (n, t, weight), with a non-negative slope."""
    total = sum(w for _, _, w in points)
    mean_x = sum(w * (n - 1) for n, _, w in points) / total
    mean_y = sum(w * t for _, t, w in points) / total
    sxx = sum(w * (n - 1 - mean_x) ** 2 for n, _, w in points)
    sxy = sum(w * (n - 1 - mean_x) * (t - mean_y) for n, t, w in points)
    slope = max(0.0, sxy / sxx) if sxx > 0 else _PRIOR_VERIFY_SLOPE
    return _Line(max(1e-6, mean_y - slope * mean_x), slope)


@dataclass(frozen=True, slots=True)
class _Line:
    """t = first + slope * (n - 1)."""

    first: float
    slope: float

    def __call__(self, n: int) -> float:
        return self.first + self.slope * (n - 1)


class DraftCostEstimator:
    """A drafter's cost per step outside the target: ``fixed + per_token * decodes``.

    ``fixed`` is the step's Python bookkeeping (learned from K = 0 steps).
    The per-token cost (one draft decode with its sampling work) is kept
    relative to the target's one-token cost at the time, for the reason
    :class:`VerifyCostEstimator` gives: a slower machine slows both models.
    """

    def __init__(self, decay: float = 0.9) -> None:
        self._fixed = _EwMean(decay)
        self._per_token = _EwMean(decay)  # in units of the target's one-token cost
        self._catch_up = _EwMean(decay)  # per token read in one batch, in units of one draft decode

    @property
    def known(self) -> bool:
        """True once a drafting step has been measured (or seeded)."""
        return self._per_token.weight > 0

    @property
    def fixed_s(self) -> float:
        """Per-step cost that does not grow with K."""
        return self._fixed.mean

    def per_token_s(self, one_token_s: float) -> float:
        """Cost of one more draft token when the target's one-token cost is ``one_token_s``."""
        return self._per_token.mean * one_token_s

    def seed(self, per_token_s: float, one_token_s: float, fixed_s: float = 0.0, weight: float = 3.0) -> None:
        """Start from measured costs (pre-flight)."""
        self._per_token.add(per_token_s / one_token_s, weight)
        self._fixed.add(fixed_s, weight)

    def rescale(self, factor: float) -> None:
        """Re-express the per-token cost after the target's one-token cost was corrected."""
        self._per_token.mean *= factor

    def observe(self, decodes: int, seconds: float, one_token_s: float) -> None:
        """A step spent ``seconds`` outside the target's verify call with ``decodes`` draft decodes."""
        if seconds < 0:
            return
        if decodes == 0:
            self._fixed.add(_clipped(seconds, self._fixed))
        elif one_token_s > 0:
            ratio = max(0.0, seconds - self._fixed.mean) / decodes / one_token_s
            self._per_token.add(_clipped(ratio, self._per_token))

    def state(self) -> dict[str, list[float]]:
        """What was learned, as JSON-ready values (:meth:`restore` reads them back)."""
        return {"fixed": self._fixed.state(), "per_token": self._per_token.state(), "catch_up": self._catch_up.state()}

    def restore(self, state: dict[str, object], max_weight: float) -> None:
        """Start from a :meth:`state`, each figure counting as at most ``max_weight`` observations."""
        self._fixed.restore(state["fixed"], max_weight)
        self._per_token.restore(state["per_token"], max_weight)
        self._catch_up.restore(state["catch_up"], max_weight)

    def catch_up_per_token_s(self, one_token_s: float) -> float:
        """What reading one missed token costs the draft model (a batched read, cheaper than a decode)."""
        ratio = self._catch_up.mean if self._catch_up.weight > 0 else PRIOR_CATCH_UP_RATIO
        return ratio * self.per_token_s(one_token_s)

    def observe_catch_up(self, tokens: int, decodes: int, seconds: float, one_token_s: float) -> None:
        """A step read ``tokens`` missed tokens and made ``decodes`` decodes in ``seconds`` outside the verify call."""
        per_decode = self.per_token_s(one_token_s)
        if tokens <= 0 or per_decode <= 0:
            return
        read_s = seconds - self._fixed.mean - decodes * per_decode
        if read_s > 0:
            self._catch_up.add(read_s / tokens / per_decode)


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
        """A step verified a draft of ``drafted`` tokens and accepted the first ``accepted``.

        Positions this step did not reach forget too: a deep position judged
        once on a bad stretch would otherwise keep its low figure for good,
        since the short drafts it causes never reach it again.
        """
        verified = min(drafted, accepted + 1, self.positions)
        for i in range(self.positions):
            self._hits[i] = self._hits[i] * self.decay + (1.0 if i < accepted else 0.0) * (i < verified)
            self._trials[i] = self._trials[i] * self.decay + (1.0 if i < verified else 0.0)

    def forget(self) -> None:
        """One step's forgetting without an observation: old evidence fades toward the priors."""
        self._hits = [h * self.decay for h in self._hits]
        self._trials = [t * self.decay for t in self._trials]

    def rates(self, fallback: Sequence[float] | None = None) -> list[float]:
        """Current ``a_0..a_{positions-1}``; ``fallback`` is the prior when none was given."""
        out: list[float] = []
        for i in range(self.positions):
            if out:
                prior = out[-1]
            elif self.prior:
                prior = self.prior[0]
            elif fallback:
                prior = fallback[0]
            else:
                prior = PRIOR_ACCEPTANCE
            out.append((self._hits[i] + self.prior_weight * prior) / (self._trials[i] + self.prior_weight))
        return out


class ConfidenceCalibration:
    """How often a draft token is accepted, by the draft's own confidence in it.

    A draft model's top probability is a poor acceptance estimate by itself:
    measured on the demo pair at temperature 0, tokens drafted with a
    confidence of 0.3-0.6 agree with the target 40-65 % of the time. The
    early-stop floor therefore asks this table, not the raw confidence. Each
    bin starts at its own midpoint (the raw confidence, a cautious prior) and
    moves toward what verification shows.
    """

    def __init__(self, bins: int = 10, prior_weight: float = 3.0, decay: float = 0.995) -> None:
        self.bins = bins
        self.prior_weight = prior_weight
        self.decay = decay
        self._hits = [0.0] * bins
        self._trials = [0.0] * bins

    def _bin(self, confidence: float) -> int:
        return min(self.bins - 1, max(0, int(confidence * self.bins)))

    def observe(self, confidences: Sequence[float], accepted: int) -> None:
        """The draft proposed tokens with ``confidences``; the target kept the first ``accepted``."""
        for i, confidence in enumerate(confidences[: accepted + 1]):
            b = self._bin(confidence)
            self._hits[b] = self._hits[b] * self.decay + (1.0 if i < accepted else 0.0)
            self._trials[b] = self._trials[b] * self.decay + 1.0

    def seed(self, samples: Sequence[tuple[float, float]]) -> None:
        """Start from measured (confidence, acceptance) pairs, e.g. pre-flight's scored continuations."""
        for confidence, accepted in samples:
            b = self._bin(confidence)
            self._hits[b] += accepted
            self._trials[b] += 1.0

    def state(self) -> dict[str, list[float]]:
        """The decayed counts per bin, as JSON-ready values (:meth:`restore` reads them back)."""
        return {"hits": list(self._hits), "trials": list(self._trials)}

    def restore(self, state: dict[str, object], max_trials: float) -> None:
        """Start from a :meth:`state`, each bin scaled down to at most ``max_trials`` tokens of evidence."""
        hits = checked_numbers(state["hits"], self.bins)
        trials = checked_numbers(state["trials"], self.bins)
        if any(h > t for h, t in zip(hits, trials, strict=True)):
            raise ValueError("a calibration bin has more hits than trials")
        scale = [min(1.0, max_trials / t) if t > 0 else 1.0 for t in trials]
        self._hits = [h * f for h, f in zip(hits, scale, strict=True)]
        self._trials = [t * f for t, f in zip(trials, scale, strict=True)]

    def acceptance(self, confidence: float) -> float:
        """Estimated chance that a token drafted with ``confidence`` is accepted."""
        b = self._bin(confidence)
        prior = (b + 0.5) / self.bins
        return (self._hits[b] + self.prior_weight * prior) / (self._trials[b] + self.prior_weight)

    def floor_for(self, required: float) -> float:
        """The lowest confidence from which every bin up is accepted at least ``required`` of the time."""
        floor = 1.0
        for b in range(self.bins - 1, -1, -1):
            if self.acceptance((b + 0.5) / self.bins) < required:
                break
            floor = b / self.bins
        return floor
