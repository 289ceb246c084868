"""Round axis ticks: steps of 1, 2, 2.5 or 5 x 10^n, ends on a tick, the 1x mark on a tick, rates kept in 0..1."""

from __future__ import annotations

import math

import pytest

from app.core.display.axis_ticks import round_axis, round_steps, step_decimals

ROUND_MANTISSAS = {1.0, 2.0, 2.5, 5.0}


def _mantissa(step: float) -> float:
    return round(step / 10 ** math.floor(math.log10(step)), 6)


def test_round_steps_run_1_2_2_5_5_through_the_powers_of_ten() -> None:
    steps = round_steps(0.03)
    assert [next(steps) for _ in range(6)] == pytest.approx([0.01, 0.02, 0.025, 0.05, 0.1, 0.2])


@pytest.mark.parametrize(
    ("low", "high"), [(0.0, 3.4), (0.0, 12.1), (0.62, 0.71), (0.0, 1.0), (3.0, 3.0), (-2.0, 7.5), (0.9, 4.1)]
)
def test_every_tick_is_a_round_multiple_of_a_round_step(low: float, high: float) -> None:
    axis = round_axis(low, high, max_ticks=6)
    assert _mantissa(axis.step) in ROUND_MANTISSAS
    assert 2 <= len(axis.ticks) <= 6
    assert axis.low <= low and axis.high >= high
    for tick in axis.ticks:
        assert tick / axis.step == pytest.approx(round(tick / axis.step), abs=1e-9)  # on a multiple of the step
        assert float(f"{tick:.{axis.decimals}f}") == pytest.approx(tick, abs=1e-12)  # written whole by its decimals


def test_the_quarter_ticks_that_made_the_1x_line_read_0_96_are_gone() -> None:
    # The pre-flight chart's old axis: 0 to 1.1 x the best speedup (3.4), in quarters: 0.935, 1.87, 2.805...
    axis = round_axis(0.0, 3.4, max_ticks=6, exact=(1.0,))
    assert axis.ticks == (0.0, 1.0, 2.0, 3.0, 4.0)
    # Five ticks would step by 2 (0, 2, 4, 6): the mark takes two ticks more and a step of 1.
    assert round_axis(0.0, 5.4, max_ticks=5).ticks == (0.0, 2.0, 4.0, 6.0)
    assert round_axis(0.0, 5.4, max_ticks=5, exact=(1.0,)).ticks == (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    # Where no round step with a few ticks more reaches 1.0 (0..12 in steps of 2.5), the ticks stay round
    # and the chart draws the 1x line labelled on its own.
    wide = round_axis(0.0, 11.25, max_ticks=6, exact=(1.0,))
    assert wide.ticks == (0.0, 2.5, 5.0, 7.5, 10.0, 12.5)
    assert all(_mantissa(s) in ROUND_MANTISSAS for s in (axis.step, wide.step))


def test_a_rate_axis_zooms_to_the_data_and_stays_inside_0_to_100_percent() -> None:
    axis = round_axis(0.62, 0.71, max_ticks=6, bounds=(0.0, 1.0))
    assert axis.low > 0.5 and axis.high < 0.8  # zoomed: not 0..1
    assert axis.ticks == pytest.approx((0.62, 0.64, 0.66, 0.68, 0.7, 0.72))
    assert axis.decimals == 2  # 64 %, 66 %... written exactly as percentages
    near_top = round_axis(0.93, 0.99, bounds=(0.0, 1.0))
    assert near_top.high <= 1.0 and near_top.low <= 0.93
    alone = round_axis(0.5, 0.5, bounds=(0.0, 1.0))  # one point still gets an axis around it
    assert alone.low < 0.5 < alone.high


def test_decimals_follow_the_step() -> None:
    assert [step_decimals(s) for s in (5.0, 2.5, 0.25, 0.2, 0.025, 100.0)] == [0, 1, 2, 1, 3, 0]


def test_no_finite_range_is_refused() -> None:
    with pytest.raises(ValueError, match="finite"):
        round_axis(0.0, math.inf)
