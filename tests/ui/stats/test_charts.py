"""The line chart's axes: round tick labels, the 1x line on a tick, the sweep's rates zoomed to their range."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from app.core.display.axis_ticks import round_axis
from app.ui import theme
from app.ui.stats.charts import LineChart, Series, times


def _labels(chart: LineChart) -> list[str]:
    axis = chart.y_axis()
    return [chart.y_format(y, axis.decimals) for y in axis.ticks]


def test_the_speedup_chart_ticks_at_whole_times_with_1x_on_a_tick(qapp: QApplication) -> None:
    chart = LineChart("draft length", "predicted speedup", y_format=times, y_bounds=None, y_marks=(1.0,))
    predicted = [(1.0, 1.9), (2.0, 2.7), (3.0, 3.4), (4.0, 3.1)]
    chart.set_series([Series("predicted", predicted), Series("target alone (1×)", [(1.0, 1.0), (4.0, 1.0)])])
    assert _labels(chart) == ["0×", "1×", "2×", "3×", "4×"]  # not 0.94×, 1.87×... (quarters of 1.1 x 3.4)
    chart.resize(520, 300)
    chart.show()
    assert not chart.grab().toImage().isNull()
    chart.close()


def test_the_1x_line_keeps_an_exact_label_where_no_round_step_reaches_it(qapp: QApplication) -> None:
    chart = LineChart("draft length", "predicted speedup", y_format=times, y_bounds=None, y_marks=(1.0,))
    chart.set_series([Series("predicted", [(1.0, 6.0), (8.0, 11.2)])])
    axis = chart.y_axis()
    assert 1.0 not in axis.ticks and axis.step == 2.5
    assert _labels(chart) == ["0.0×", "2.5×", "5.0×", "7.5×", "10.0×", "12.5×"]
    assert chart.y_format(1.0, 0) == "1×"  # drawn as its own labelled line at exactly 1


def test_the_sweep_zooms_to_the_measured_rates_with_round_percent_ticks(qapp: QApplication) -> None:
    chart = LineChart("temperature", "acceptance rate", y_from_zero=False)
    chart.set_series(
        [
            Series("measured", [(0.0, 0.71), (0.7, 0.66), (1.0, 0.62)]),
            Series("exact rejection sampling", [(0.0, 0.71), (0.7, 0.68), (1.0, 0.65)], theme.OKABE_ITO["blue"]),
            Series("sample-and-match", [(0.0, 0.71), (0.7, 0.64), (1.0, 0.63)], theme.OKABE_ITO["orange"]),
        ]
    )
    axis = chart.y_axis()
    assert axis == round_axis(0.62, 0.71, bounds=(0.0, 1.0))
    assert _labels(chart) == ["62%", "64%", "66%", "68%", "70%", "72%"]  # not 0-100 %
    assert chart.x_ticks() == [0.0, 0.7, 1.0]  # the temperatures swept, as they were
    # Rates near the top never push the axis past 100 %.
    chart.set_series([Series("measured", [(0.0, 0.93), (1.0, 0.998)])])
    assert chart.y_axis().high <= 1.0 and _labels(chart)[-1] == "100%"
