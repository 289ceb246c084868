"""Measures how responsive the GUI thread stays: a 10 ms timer whose late ticks are stalls.

Every tick records the time since the previous one. With an idle event loop
the gaps sit at the interval; anything that blocks the GUI thread (a long
slot, a model call by mistake, a slow document update) shows up as a long
gap. Used by ``scripts/measure_gui_stall.py`` and the GUI tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, QTimer


@dataclass(frozen=True, slots=True)
class StallSummary:
    """Gaps between ticks, in milliseconds."""

    ticks: int
    interval_ms: float
    p50_ms: float
    p99_ms: float
    max_ms: float

    def line(self) -> str:
        """One human-readable line."""
        return (
            f"{self.ticks} ticks of a {self.interval_ms:.0f} ms timer: gap p50 {self.p50_ms:.1f} ms, "
            f"p99 {self.p99_ms:.1f} ms, max {self.max_ms:.1f} ms"
        )


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


class StallProbe(QObject):
    """Start it, do the work, stop it, read the summary."""

    def __init__(self, interval_ms: int = 10, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.interval_ms = interval_ms
        self.gaps_ms: list[float] = []
        self._last = 0.0
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        """Begin recording (clears earlier gaps)."""
        self.gaps_ms.clear()
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> StallSummary:
        """Stop recording and summarise."""
        self._timer.stop()
        return self.summary()

    def summary(self) -> StallSummary:
        """Percentiles of the gaps so far."""
        gaps = self.gaps_ms
        return StallSummary(
            len(gaps),
            float(self.interval_ms),
            _percentile(gaps, 0.5),
            _percentile(gaps, 0.99),
            max(gaps, default=0.0),
        )

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps_ms.append(1000.0 * (now - self._last))
        self._last = now
