"""The memory meter: one stacked bar per device, target + draft + both KV caches + buffers vs the budget.

Before loading it shows the estimate for the chosen pair and settings, with
a fit verdict; after loading it shows what loading actually took. The widget
only draws a :class:`MeterState`; :mod:`app.ui.models.memory_sources` builds one
from the engine's estimate, hardware probe and measurements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QT_TRANSLATE_NOOP, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen, QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.core.display.units import bytes_words
from app.ui import theme
from app.ui.i18n.words import say

# Segment kinds in drawing order, with the hue each is drawn in.
SEGMENT_HUES: dict[str, int] = {
    "target weights": 215,
    "draft weights": 135,
    "target KV cache": 190,
    "draft KV cache": 95,
    "compute buffers": 35,
    "logits and app buffers": 55,
    "runtime": 300,
    "other": 270,
}

# The same kinds, and the meter's sources, as words to translate (the engine names them in English).
_WORDS = (
    QT_TRANSLATE_NOOP("MemoryMeter", "target weights"),
    QT_TRANSLATE_NOOP("MemoryMeter", "draft weights"),
    QT_TRANSLATE_NOOP("MemoryMeter", "target KV cache"),
    QT_TRANSLATE_NOOP("MemoryMeter", "draft KV cache"),
    QT_TRANSLATE_NOOP("MemoryMeter", "compute buffers"),
    QT_TRANSLATE_NOOP("MemoryMeter", "logits and app buffers"),
    QT_TRANSLATE_NOOP("MemoryMeter", "runtime"),
    QT_TRANSLATE_NOOP("MemoryMeter", "other"),
    QT_TRANSLATE_NOOP("MemoryMeter", "estimate"),
    QT_TRANSLATE_NOOP("MemoryMeter", "measured"),
)


@dataclass(frozen=True, slots=True)
class DeviceBar:
    """One device: what goes on it and how much it has."""

    device: str
    segments: tuple[tuple[str, int], ...]  # (kind, bytes)
    budget: int | None  # bytes available to the app on this device

    @property
    def used(self) -> int:
        """Total bytes of the segments."""
        return sum(size for _, size in self.segments)


@dataclass(frozen=True, slots=True)
class MeterState:
    """Everything the meter draws."""

    bars: tuple[DeviceBar, ...] = ()
    source: str = "estimate"  # "estimate" (before loading) or "measured" (after)
    verdict: str = ""
    level: str = "unknown"  # "fits", "tight", "too big" or "unknown"
    notes: tuple[str, ...] = field(default_factory=tuple)


def _zoomed(bar: DeviceBar) -> bool:
    """Whether the bar also gets a breakdown strip (its use is a small part of the budget)."""
    return bool(bar.budget) and bar.used < 0.25 * (bar.budget or 0)


def segment_colour(palette: QPalette, kind: str) -> QColor:
    """The colour of a segment kind, derived from the palette like every other colour."""
    hue = SEGMENT_HUES.get(kind, SEGMENT_HUES["other"])
    highlight = palette.color(QPalette.ColorRole.Highlight)
    colour = QColor.fromHsvF(hue / 360.0, max(0.4, min(0.75, highlight.hsvSaturationF())), 0.85)
    return theme.blend(colour, palette.color(QPalette.ColorRole.Base), 0.85)


class MemoryMeter(QWidget):
    """Stacked bars against the budget, a legend and the verdict."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = MeterState()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    @property
    def state(self) -> MeterState:
        """What is shown."""
        return self._state

    def set_state(self, state: MeterState) -> None:
        """Show ``state``."""
        self._state = state
        self.setToolTip("\n".join(state.notes))
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Room for each bar, the legend and the verdict."""
        line = self.fontMetrics().height()
        legend_rows = self._legend_rows(max(200, self.width() - 8))
        verdict = self._verdict_height(max(200, self.width() - 8))
        zooms = sum(12 for bar in self._state.bars if _zoomed(bar))
        return QSize(280, 12 + len(self._state.bars) * (line * 2 + 26) + zooms + legend_rows * (line + 4) + verdict)

    def _legend_entries(self) -> list[str]:
        kinds: list[str] = []
        for bar in self._state.bars:
            for kind, _ in bar.segments:
                if kind not in kinds:
                    kinds.append(kind)
        totals = {k: sum(size for b in self._state.bars for kind, size in b.segments if kind == k) for k in kinds}
        return [f"{self.tr(k)} {say(bytes_words(totals[k]))}" for k in kinds]

    def _legend_columns(self, width: int) -> int:
        entries = self._legend_entries()
        widest = max((self.fontMetrics().horizontalAdvance(e) for e in entries), default=0) + 18
        return 2 if 2 * widest <= width else 1

    def _legend_rows(self, width: int) -> int:
        columns = self._legend_columns(width)
        return (len(self._legend_entries()) + columns - 1) // columns

    def _verdict_height(self, width: int) -> int:
        flags = int(Qt.TextFlag.TextWordWrap)
        return self.fontMetrics().boundingRect(0, 0, width, 10_000, flags, self._state.verdict or " ").height() + 4

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """The wrapped verdict's height depends on the width."""
        super().resizeEvent(event)
        self.updateGeometry()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Never squeeze the text."""
        return QSize(220, self.sizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """Bars, legend, verdict."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        muted = theme.muted_text(palette)
        line = self.fontMetrics().height()
        width = self.width() - 8
        y = 4.0
        state = self._state
        if not state.bars:
            painter.setPen(muted)
            painter.drawText(
                QRectF(4, y, width, line * 2), Qt.TextFlag.TextWordWrap, state.verdict or self.tr("no estimate yet")
            )
            return
        kinds: list[str] = []
        for bar in state.bars:
            painter.setPen(text)
            used, source = say(bytes_words(bar.used)), self.tr(state.source)
            if bar.budget:
                title = self.tr("{device}: {used} of {budget} ({source})").format(
                    device=bar.device, used=used, budget=say(bytes_words(bar.budget)), source=source
                )
            else:
                title = self.tr("{device}: {used} ({source})").format(device=bar.device, used=used, source=source)
            painter.drawText(QRectF(4, y, width, line), Qt.AlignmentFlag.AlignLeft, title)
            y += line + 4
            track = QRectF(4, y, width, 18)
            painter.fillRect(track, theme.blend(text, palette.color(QPalette.ColorRole.Window), 0.08))
            scale = max(bar.used, bar.budget or 0, 1)
            x = track.left()
            for kind, size in bar.segments:
                if kind not in kinds:
                    kinds.append(kind)
                w = track.width() * size / scale
                painter.fillRect(QRectF(x, track.top(), w, track.height()), segment_colour(palette, kind))
                x += w
            if bar.budget:
                bx = track.left() + track.width() * bar.budget / scale
                painter.setPen(QPen(text, 2))
                painter.drawLine(int(bx), int(track.top() - 3), int(bx), int(track.bottom() + 3))
            y += track.height() + 4
            if _zoomed(bar):
                # Against a large budget the segments are slivers: show their proportions as well.
                zoom = QRectF(4, y, width, 8)
                x = zoom.left()
                for kind, size in bar.segments:
                    w = zoom.width() * size / max(1, bar.used)
                    painter.fillRect(QRectF(x, zoom.top(), w, zoom.height()), segment_colour(palette, kind))
                    x += w
                y += zoom.height() + 4
            y += line // 2 + 2
        columns = self._legend_columns(width)
        column = width / columns
        entries = self._legend_entries()
        for i, (kind, entry) in enumerate(zip(kinds, entries, strict=True)):
            lx = 4 + (i % columns) * column
            ly = y + (i // columns) * (line + 4)
            painter.fillRect(QRectF(lx, ly + line / 2 - 5, 10, 10), segment_colour(palette, kind))
            painter.setPen(text)
            painter.drawText(QRectF(lx + 14, ly, column - 16, line), Qt.AlignmentFlag.AlignLeft, entry)
        y += self._legend_rows(width) * (line + 4) + 4
        level_colour = {
            "fits": theme.chart_colour(palette),
            "tight": QColor.fromHsvF(40 / 360, 0.8, 0.85),
            "too big": QColor.fromHsvF(5 / 360, 0.75, 0.85),
        }.get(state.level, muted)
        painter.setPen(level_colour if state.level != "unknown" else muted)
        painter.drawText(QRectF(4, y, width, self._verdict_height(width)), Qt.TextFlag.TextWordWrap, state.verdict)
