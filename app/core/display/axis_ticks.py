"""Round tick values for a chart's axis: steps of 1, 2, 2.5 or 5 times a power of ten.

A chart that divides its range in quarters labels its grid 3.75 and 11.25,
and a line at 1.0 then reads as 0.96 against the nearest label. The axis
here starts and ends on a multiple of its step, so every label is a round
number; a value that must be read exactly (the 1x line of a speedup chart)
is put on a tick whenever a round step allows it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

# The mantissas of a round step, smallest first.
_MANTISSAS = (1.0, 2.0, 2.5, 5.0)
# Float noise below this fraction of a step is treated as none (0.1 * 3 is 0.30000000000000004).
_EPSILON = 1e-9


@dataclass(frozen=True, slots=True)
class Axis:
    """An axis from ``low`` to ``high`` with a tick every ``step``; ``ticks`` lists them, both ends included."""

    low: float
    high: float
    step: float
    ticks: tuple[float, ...]

    @property
    def decimals(self) -> int:
        """How many decimals a label needs to write every tick exactly (0 for whole steps)."""
        return step_decimals(self.step)

    def fraction(self, value: float) -> float:
        """Where ``value`` lies between ``low`` (0.0) and ``high`` (1.0), not clamped."""
        return (value - self.low) / (self.high - self.low)


def step_decimals(step: float) -> int:
    """Decimals that write every multiple of ``step`` exactly: 0.25 needs 2, 2.5 needs 1, 5 needs 0."""
    for decimals in range(0, 10):
        scaled = step * 10**decimals
        if abs(scaled - round(scaled)) <= _EPSILON * max(1.0, scaled):
            return decimals
    return 10


def round_steps(smallest: float) -> Iterable[float]:
    """Round steps (1, 2, 2.5, 5 x 10^n) from the largest not above ``smallest`` upwards, without end."""
    exponent = math.floor(math.log10(smallest))
    while True:
        for mantissa in _MANTISSAS:
            yield mantissa * 10.0**exponent
        exponent += 1


def _on_step(value: float, step: float) -> bool:
    ratio = value / step
    return abs(ratio - round(ratio)) <= _EPSILON * max(1.0, abs(ratio))


def round_axis(
    low: float,
    high: float,
    max_ticks: int = 6,
    exact: Iterable[float] = (),
    bounds: tuple[float, float] | None = None,
) -> Axis:
    """The round axis that covers ``low``..``high`` with at most ``max_ticks`` ticks.

    Values in ``exact`` are covered too, and lie on a tick where a round step
    with at most two ticks more allows it. ``bounds`` keeps the axis inside
    a range the values cannot leave (0..1 for a rate), so a rate of 98 % does
    not grow an axis to 120 %.
    """
    marks = [float(v) for v in exact]
    lo = min([float(low), *marks])
    hi = max([float(high), *marks])
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"an axis needs finite values, not {low!r}..{high!r}")
    if hi - lo <= _EPSILON * max(1.0, abs(hi)):
        pad = abs(hi) * 0.1 or 1.0  # one value: a little room around it
        lo, hi = lo - pad, hi + pad
        if bounds is not None:
            lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    wanted = max(2, max_ticks)
    plain = _first_fitting(lo, hi, wanted, bounds)
    assert plain is not None  # without marks some round step always fits
    if marks and not all(_on_step(m - plain.low, plain.step) for m in marks):
        with_marks = _first_fitting(lo, hi, wanted + 2, bounds, marks)
        if with_marks is not None:
            return with_marks
    return plain


def _first_fitting(
    lo: float, hi: float, max_ticks: int, bounds: tuple[float, float] | None, marks: list[float] | None = None
) -> Axis | None:
    """The axis of the smallest round step with at most ``max_ticks`` ticks (and ``marks`` on ticks, if given)."""
    for step in round_steps((hi - lo) / (max_ticks - 1)):
        start = math.floor(lo / step + _EPSILON) * step
        end = math.ceil(hi / step - _EPSILON) * step
        if bounds is not None:
            start, end = max(start, bounds[0]), min(end, bounds[1])
        count = round((end - start) / step) + 1
        if count > max_ticks:
            continue
        if marks is not None and not all(_on_step(m - start, step) for m in marks):
            if step > hi - lo:
                return None  # from here on the axis only widens: no round step puts the marks on ticks
            continue  # a larger step may (5 is on a tick of 2.5, not of 2)
        ticks = tuple(_clean(start + i * step, step) for i in range(count))
        return Axis(low=ticks[0], high=ticks[-1], step=step, ticks=ticks)
    raise AssertionError("unreachable: round steps grow without end")


def _clean(value: float, step: float) -> float:
    """``value`` without the float noise of adding up steps (0.30000000000000004 becomes 0.3)."""
    cleaned = round(value, step_decimals(step) + 1)
    return 0.0 if cleaned == 0 else cleaned
