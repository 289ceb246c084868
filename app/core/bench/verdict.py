"""Honest verdicts for the tools: is a measured difference real, and what did the sweep show?

Pure decisions the A/B and sweep dialogs only display. A speed difference
counts only when the repeated runs of the two arms do not overlap (their
min-max ranges are disjoint); otherwise, or when the drafter proposed
nothing, the answer is "no difference measured", never "faster".
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

NO_DIFFERENCE = "no difference measured"


@dataclass(frozen=True, slots=True)
class Spread:
    """The median and the run-to-run range (min-max) of repeated measurements."""

    median: float
    low: float
    high: float
    count: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        """The spread of ``values``; at least one value is required."""
        if not values:
            raise ValueError("a spread needs at least one measurement")
        return cls(float(statistics.median(values)), float(min(values)), float(max(values)), len(values))

    def overlaps(self, other: Spread) -> bool:
        """True when the two ranges share any value (their difference is within the spread)."""
        return self.low <= other.high and other.low <= self.high

    def text(self, unit: str = "tok/s") -> str:
        """'12.3 tok/s (11.9-12.8, 3 runs)'."""
        runs = f"{self.count} run{'s' if self.count != 1 else ''}"
        return f"{self.median:.1f} {unit} ({self.low:.1f}–{self.high:.1f}, {runs})"


@dataclass(frozen=True, slots=True)
class ABVerdict:
    """What the A/B comparison may claim: a ratio only when the arms' ranges are disjoint."""

    ratio: float | None  # speculative median / baseline median; None when not claimed
    text: str


def ab_verdict(baseline: Sequence[float], speculative: Sequence[float], drafted: int) -> ABVerdict:
    """The verdict on repeated tokens/s of the target-only and drafter arms.

    ``drafted`` is how many tokens the drafter proposed over all speculative
    runs: with none, both arms ran the same target-only passes and any gap is
    noise. Ranges that overlap are within the run-to-run spread. A single run
    per arm has no measured spread, so it cannot support a claim either.
    """
    if not baseline or not speculative:
        return ABVerdict(None, "not measured: a run is missing")
    if drafted <= 0:
        return ABVerdict(None, f"{NO_DIFFERENCE}: the drafter proposed no tokens")
    base, spec = Spread.of(baseline), Spread.of(speculative)
    if base.count < 2 or spec.count < 2:
        return ABVerdict(None, f"{NO_DIFFERENCE}: one run per side measures no spread (repeat the runs)")
    if base.overlaps(spec) or base.median <= 0:
        return ABVerdict(None, f"{NO_DIFFERENCE}: the difference is within the run-to-run spread")
    ratio = spec.median / base.median
    word = "faster" if ratio > 1 else "slower"
    return ABVerdict(ratio, f"{ratio:.2f}× {word} with the drafter")


def sweep_conclusion(exact: Sequence[tuple[float, float]], match: Sequence[tuple[float, float]]) -> str:
    """One sentence: how much acceptance exact verification keeps over sample-and-match at the hottest point.

    ``exact`` and ``match`` are (temperature, expected acceptance in 0..1)
    points from the same rows; the sentence speaks of the highest temperature
    both have, in percentage points.
    """
    exact_at, match_at = dict(exact), dict(match)
    shared = exact_at.keys() & match_at.keys()
    if not shared:
        return "no sweep points to compare yet"
    hottest = max(shared)
    gap = (exact_at[hottest] - match_at[hottest]) * 100.0
    points = round(gap)
    where = f"at T={hottest:g}"
    if points == 0:
        return f"exact verification and sample-and-match keep the same acceptance {where}"
    if points > 0:
        return f"exact verification keeps {points} points more acceptance than sample-and-match {where}"
    return f"sample-and-match keeps {-points} points more acceptance than exact verification {where}"
