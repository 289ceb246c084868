"""Two small charts drawn with QPainter: a bar chart and a line chart.

Both are deliberately plain (no chart library): the statistics panel needs
per-position acceptance as a few bars, and the temperature sweep needs one or
two lines over a handful of points. Colours come from the palette so the
charts follow the theme.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.core.display.axis_ticks import Axis, round_axis, step_decimals
from app.ui import theme
from app.ui.i18n.words import number

# A label format for an axis value, given the decimals its step needs.
AxisFormat = Callable[[float, int], str]


def _percent(value: float, decimals: int = 2) -> str:
    """A rate as a percentage with the decimals a tick of this step needs ("62%", "62.5%")."""
    return number(value * 100, f".{max(0, decimals - 2)}f") + "%"


def times(value: float, decimals: int = 1) -> str:
    """A speedup as "1.5×", with the decimals a tick of this step needs."""
    return number(value, f".{decimals}f") + "×"


def tick_label(x: float) -> str:
    """An x-axis tick as the window's locale writes it ("0,7" in German)."""
    return number(x, "g")


class BarChart(QWidget):
    """Bars for values in [0, 1], one per labelled category (per-position acceptance)."""

    def __init__(self, parent: QWidget | None = None, empty_text: str | None = None) -> None:
        super().__init__(parent)
        self._values: list[float] = []
        self._labels: list[str] = []
        self._empty_text = empty_text if empty_text is not None else self.tr("no data yet")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(120)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Wide and short."""
        return QSize(260, 120)

    def set_values(self, values: Sequence[float], labels: Sequence[str] | None = None) -> None:
        """Show ``values`` (clamped to [0, 1]) with ``labels`` (default 1, 2, 3...)."""
        self._values = [max(0.0, min(1.0, float(v))) for v in values]
        self._labels = list(labels) if labels is not None else [str(i + 1) for i in range(len(values))]
        self.update()

    @property
    def values(self) -> list[float]:
        """What is drawn."""
        return list(self._values)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """Axis, bars, value labels."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        muted = theme.muted_text(palette)
        metrics = painter.fontMetrics()
        line = metrics.height()
        plot = QRectF(self.rect()).adjusted(4, line + 2, -4, -(line + 4))
        painter.setPen(QPen(muted, 1))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        if not self._values:
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, self._empty_text)
            return
        n = len(self._values)
        slot = plot.width() / n
        width = min(44.0, slot * 0.7)
        colour = theme.chart_colour(palette)
        for i, value in enumerate(self._values):
            x = plot.left() + slot * i + (slot - width) / 2
            height = value * plot.height()
            bar = QRectF(x, plot.bottom() - height, width, height)
            painter.fillRect(bar, colour)
            painter.setPen(text)
            label_box = QRectF(x - 8, bar.top() - line - 1, width + 16, line)
            painter.drawText(label_box, Qt.AlignmentFlag.AlignCenter, _percent(value))
            painter.setPen(muted)
            painter.drawText(
                QRectF(x - 8, plot.bottom() + 2, width + 16, line), Qt.AlignmentFlag.AlignCenter, self._labels[i]
            )


@dataclass(slots=True)
class Series:
    """One line: labelled points and its colour."""

    label: str
    points: list[tuple[float, float]]
    colour: QColor | None = None


class LineChart(QWidget):
    """Lines over a shared x axis with grid, markers and a legend; both axes tick at round values.

    The y axis covers the data (from zero when ``y_from_zero``, else zoomed to
    the values), kept inside ``y_bounds`` (0..1 for a rate), with the values
    in ``y_marks`` (the 1x of a speedup) on a tick where a round step allows
    and otherwise drawn as a labelled line of their own.
    """

    def __init__(
        self,
        x_label: str,
        y_label: str,
        parent: QWidget | None = None,
        y_format: AxisFormat = _percent,
        y_from_zero: bool = True,
        y_bounds: tuple[float, float] | None = (0.0, 1.0),
        y_marks: tuple[float, ...] = (),
    ) -> None:
        super().__init__(parent)
        self.x_label = x_label
        self.y_label = y_label
        self.y_format = y_format
        self.y_from_zero = y_from_zero
        self.y_bounds = y_bounds
        self.y_marks = y_marks
        self.x_range: tuple[float, float] | None = None
        self._series: list[Series] = []
        self.setMinimumSize(380, 240)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """A comfortable chart size."""
        return QSize(520, 300)

    def set_series(self, series: Sequence[Series]) -> None:
        """Replace the lines."""
        self._series = list(series)
        self.update()

    @property
    def series(self) -> list[Series]:
        """The lines drawn."""
        return list(self._series)

    def y_axis(self) -> Axis:
        """The y axis the lines are drawn against: round ticks around the values."""
        ys = [y for s in self._series for _, y in s.points]
        if not ys:
            low, high = self.y_bounds or (0.0, 1.0)
        else:
            low, high = min(ys), max(ys)
        if self.y_from_zero:
            low = min(0.0, low)
        return round_axis(low, high, max_ticks=6, exact=self.y_marks, bounds=self.y_bounds)

    def x_ticks(self) -> list[float]:
        """The x values labelled: the points' own when few, else round ticks over the range."""
        xs = sorted({x for s in self._series for x, _ in s.points})
        if xs and len(xs) <= 12:
            return xs
        x0, x1 = self.x_range or ((xs[0], xs[-1]) if xs else (0.0, 1.0))
        return [x for x in round_axis(x0, x1, max_ticks=6).ticks if x0 <= x <= x1]

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """Grid, axes, lines and legend."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        muted = theme.muted_text(palette)
        grid = theme.blend(text, palette.color(QPalette.ColorRole.Window), 0.12)
        metrics = painter.fontMetrics()
        line = metrics.height()
        axis = self.y_axis()
        labels = [self.y_format(y, axis.decimals) for y in axis.ticks]
        marks = [m for m in self.y_marks if m not in axis.ticks and axis.low <= m <= axis.high]
        mark_labels = [self.y_format(m, step_decimals(m)) for m in marks]
        left = max(metrics.horizontalAdvance(t) for t in [*labels, *mark_labels]) + 12
        plot = QRectF(self.rect()).adjusted(left, line + 8, -14, -(2 * line + 10))
        xs = [x for s in self._series for x, _ in s.points]
        x0, x1 = self.x_range or ((min(xs), max(xs)) if xs else (0.0, 1.0))
        if x1 <= x0:
            x1 = x0 + 1.0

        def to_point(x: float, y: float) -> QPointF:
            fx = (x - x0) / (x1 - x0)
            fy = max(0.0, min(1.0, axis.fraction(y)))
            return QPointF(plot.left() + fx * plot.width(), plot.bottom() - fy * plot.height())

        for y, label in [*zip(axis.ticks, labels, strict=True), *zip(marks, mark_labels, strict=True)]:
            p = to_point(x0, y)  # the grid line sits exactly at the value its label says
            painter.setPen(QPen(grid if y in axis.ticks else muted, 1))
            painter.drawLine(QPointF(plot.left(), p.y()), QPointF(plot.right(), p.y()))
            painter.setPen(muted)
            painter.drawText(
                QRectF(0, p.y() - line / 2, left - 6, line),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                label,
            )
        for x in self.x_ticks():
            p = to_point(x, axis.low)
            painter.drawText(
                QRectF(p.x() - 30, plot.bottom() + 3, 60, line), Qt.AlignmentFlag.AlignCenter, tick_label(x)
            )
        x_title = QRectF(plot.left(), plot.bottom() + line + 5, plot.width(), line)
        painter.drawText(x_title, Qt.AlignmentFlag.AlignCenter, self.x_label)
        painter.drawText(QRectF(plot.left(), 0, plot.width(), line + 4), Qt.AlignmentFlag.AlignLeft, self.y_label)
        painter.setPen(QPen(muted, 1))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        painter.drawLine(plot.bottomLeft(), plot.topLeft())
        legend_x = plot.right()
        for index, series in enumerate(self._series):
            fallback = theme.chart_colour(palette) if index == 0 else palette.color(QPalette.ColorRole.Highlight)
            colour = series.colour or fallback
            points = [to_point(x, y) for x, y in sorted(series.points)]
            if points:
                path = QPainterPath(points[0])
                for p in points[1:]:
                    path.lineTo(p)
                painter.setPen(QPen(colour, 2.2))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawPath(path)
                painter.setBrush(colour)
                for p in points:
                    painter.drawEllipse(p, 3.5, 3.5)
            width = metrics.horizontalAdvance(series.label) + 22
            legend_x -= width
            painter.fillRect(QRectF(legend_x, 4 + line / 2 - 2, 12, 4), colour)
            painter.setPen(text)
            painter.drawText(QRectF(legend_x + 16, 2, width, line + 2), Qt.AlignmentFlag.AlignLeft, series.label)
        if not self._series or not xs:
            painter.setPen(muted)
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, self.tr("no points yet"))
