"""Honest verdicts for the tools: is a measured difference real, and what did the sweep show?

Pure decisions the A/B and sweep dialogs only display. A speed difference
counts only when the repeated runs of the two arms do not overlap (their
min-max ranges are disjoint); otherwise, or when the drafter proposed
nothing, the answer is "no difference measured", never "faster".

Every sentence is :class:`~app.core.display.wording.Words` (``str`` is the English the
CLI and the tests read; the window renders it in its language, numbers with
its locale's marks); :func:`sweep_conclusion` keeps its English string and
:func:`sweep_conclusion_words` gives the sentence to the window.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words

NO_DIFFERENCE = "no difference measured"
# The A/B verdict: what may be claimed, and why nothing is when nothing may be.
_NOT_MEASURED = QT_TRANSLATE_NOOP("BenchVerdict", "not measured: a run is missing")
_NO_TOKENS = QT_TRANSLATE_NOOP("BenchVerdict", "no difference measured: the drafter proposed no tokens")
_ONE_RUN = QT_TRANSLATE_NOOP(
    "BenchVerdict", "no difference measured: one run per side measures no spread (repeat the runs)"
)
_WITHIN_SPREAD = QT_TRANSLATE_NOOP(
    "BenchVerdict", "no difference measured: the difference is within the run-to-run spread"
)
_FASTER = QT_TRANSLATE_NOOP("BenchVerdict", "{ratio:.2f}× faster with the drafter")
_SLOWER = QT_TRANSLATE_NOOP("BenchVerdict", "{ratio:.2f}× slower with the drafter")
# One arm's spread; a count of one is its own sentence (no %n outside QObject.tr).
_SPREAD_ONE = QT_TRANSLATE_NOOP("BenchVerdict", "{median:.1f} {unit} ({low:.1f}–{high:.1f}, 1 run)")
_SPREAD_MANY = QT_TRANSLATE_NOOP("BenchVerdict", "{median:.1f} {unit} ({low:.1f}–{high:.1f}, {count} runs)")
# The sweep in one sentence, at the hottest temperature both rules were measured at.
_NO_POINTS = QT_TRANSLATE_NOOP("BenchVerdict", "no sweep points to compare yet")
_SAME = QT_TRANSLATE_NOOP("BenchVerdict", "exact verification and sample-and-match keep the same acceptance at T={t:g}")
_EXACT_MORE = QT_TRANSLATE_NOOP(
    "BenchVerdict", "exact verification keeps {points} points more acceptance than sample-and-match at T={t:g}"
)
_MATCH_MORE = QT_TRANSLATE_NOOP(
    "BenchVerdict", "sample-and-match keeps {points} points more acceptance than exact verification at T={t:g}"
)


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
        return str(self.words(unit))

    def words(self, unit: str = "tok/s") -> Words:
        """The same as :meth:`text`, for the window to render in its language."""
        phrase = _SPREAD_ONE if self.count == 1 else _SPREAD_MANY
        return phrase.fill(median=self.median, unit=unit, low=self.low, high=self.high, count=self.count)


@dataclass(frozen=True, slots=True)
class ABVerdict:
    """What the A/B comparison may claim: a ratio only when the arms' ranges are disjoint."""

    ratio: float | None  # speculative median / baseline median; None when not claimed
    words: Words | Phrase  # the sentence, for the window

    @property
    def text(self) -> str:
        """The verdict in English."""
        return str(self.words)


def ab_verdict(baseline: Sequence[float], speculative: Sequence[float], drafted: int) -> ABVerdict:
    """The verdict on repeated tokens/s of the target-only and drafter arms.

    ``drafted`` is how many tokens the drafter proposed over all speculative
    runs: with none, both arms ran the same target-only passes and any gap is
    noise. Ranges that overlap are within the run-to-run spread. A single run
    per arm has no measured spread, so it cannot support a claim either.
    """
    if not baseline or not speculative:
        return ABVerdict(None, _NOT_MEASURED)
    if drafted <= 0:
        return ABVerdict(None, _NO_TOKENS)
    base, spec = Spread.of(baseline), Spread.of(speculative)
    if base.count < 2 or spec.count < 2:
        return ABVerdict(None, _ONE_RUN)
    if base.overlaps(spec) or base.median <= 0:
        return ABVerdict(None, _WITHIN_SPREAD)
    ratio = spec.median / base.median
    return ABVerdict(ratio, (_FASTER if ratio > 1 else _SLOWER).fill(ratio=ratio))


def sweep_conclusion(exact: Sequence[tuple[float, float]], match: Sequence[tuple[float, float]]) -> str:
    """One sentence in English: see :func:`sweep_conclusion_words`."""
    return str(sweep_conclusion_words(exact, match))


def sweep_conclusion_words(
    exact: Sequence[tuple[float, float]], match: Sequence[tuple[float, float]]
) -> Words | Phrase:
    """One sentence: how much acceptance exact verification keeps over sample-and-match at the hottest point.

    ``exact`` and ``match`` are (temperature, expected acceptance in 0..1)
    points from the same rows; the sentence speaks of the highest temperature
    both have, in percentage points.
    """
    exact_at, match_at = dict(exact), dict(match)
    shared = exact_at.keys() & match_at.keys()
    if not shared:
        return _NO_POINTS
    hottest = max(shared)
    points = round((exact_at[hottest] - match_at[hottest]) * 100.0)
    if points == 0:
        return _SAME.fill(t=hottest)
    if points > 0:
        return _EXACT_MORE.fill(points=points, t=hottest)
    return _MATCH_MORE.fill(points=-points, t=hottest)
