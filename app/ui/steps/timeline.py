"""The timeline strip: one small column per verify step of a reply, clickable.

Each column is drawn from the step's record alone: its outline is as tall as
the draft was long (the tallest draft of the reply fills the strip), the
accepted part is filled in the draft origin's colour (Okabe-Ito bluish
green), and a square on top says how the step ended: a correction
(vermillion) after a rejection, a bonus (sky blue) after a fully accepted
draft, or a plain target token (the text colour) when nothing was drafted.
The selected step sits on a highlighted background. Columns keep one width
whatever the reply's length; the strip sits in a scroll area that follows
the selection.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.core.decoding.events import TokenOrigin
from app.core.reply.step_record import StepRecord
from app.ui import theme

COLUMN = 14  # pixels per step, gap included
_GAP = 3
_MARK = 8  # the end-of-step square
_PAD = 4


def end_origin(step: StepRecord) -> TokenOrigin:
    """How the step ended, as the origin of the token the target added (correction, bonus, or target only)."""
    if step.rejected_at is not None:
        return TokenOrigin.CORRECTED
    return TokenOrigin.BONUS if step.drafted else TokenOrigin.TARGET


def origin_colour(origin: TokenOrigin, palette: QPalette) -> QColor:
    """The full-strength Okabe-Ito hue of an origin (the text colour for target-only tokens)."""
    hue = theme.ORIGIN_HUES.get(origin)
    return QColor(theme.OKABE_ITO[hue]) if hue is not None else palette.color(QPalette.ColorRole.Text)


class StepTimeline(QWidget):
    """The strip of step columns; :attr:`step_clicked` gives the index of the column clicked."""

    step_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._steps: list[StepRecord] = []
        self.selected: int | None = None
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(64)
        self.setAccessibleName(self.tr("Steps of the reply"))
        self.setToolTip(
            self.tr("one column per verify step: outline = drafted, filled = accepted, square = how it ended")
        )

    @property
    def steps(self) -> list[StepRecord]:
        """The steps shown, in order."""
        return self._steps

    def set_steps(self, steps: Sequence[StepRecord]) -> None:
        """Show these steps (the selection is cleared when it no longer exists)."""
        self._steps = list(steps)
        if self.selected is not None and self.selected >= len(self._steps):
            self.selected = None
        self.updateGeometry()
        self.resize(self.sizeHint())
        self.update()

    def select(self, index: int | None) -> None:
        """Highlight step ``index`` (None: none)."""
        self.selected = index
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """As wide as the columns need, a fixed height."""
        return QSize(max(COLUMN, len(self._steps) * COLUMN + 2 * _PAD), 64)

    def column_rect(self, index: int) -> QRectF:
        """Where step ``index``'s column is drawn (its whole height)."""
        return QRectF(_PAD + index * COLUMN, 0, COLUMN, self.height())

    def index_at(self, x: float) -> int | None:
        """The step whose column is at ``x`` (None: past the last one)."""
        index = int((x - _PAD) // COLUMN)
        return index if 0 <= index < len(self._steps) else None

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        """A click on a column selects its step."""
        index = self.index_at(event.position().x())
        if index is not None and event.button() == Qt.MouseButton.LeftButton:
            self.step_clicked.emit(index)
        super().mousePressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """Draw every column (only those in the exposed area)."""
        painter = QPainter(self)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.color(QPalette.ColorRole.Base))
        tallest = max((max(s.draft_length, len(s.drafted)) for s in self._steps), default=1) or 1
        usable = self.height() - 2 * _PAD - _MARK - 2
        unit = usable / tallest
        bottom = self.height() - _PAD
        draft_colour = origin_colour(TokenOrigin.DRAFT, palette)
        outline = QPen(theme.muted_text(palette))
        outline.setWidthF(1.0)
        exposed = event.rect()
        for i, step in enumerate(self._steps):
            column = self.column_rect(i)
            if column.right() < exposed.left() or column.left() > exposed.right():
                continue
            if i == self.selected:
                painter.fillRect(
                    column,
                    theme.blend(
                        palette.color(QPalette.ColorRole.Highlight), palette.color(QPalette.ColorRole.Base), 0.3
                    ),
                )
            x = column.left() + _GAP / 2
            width = COLUMN - _GAP
            drafted = len(step.drafted)
            if drafted:
                painter.setPen(outline)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(QRectF(x, bottom - drafted * unit, width, drafted * unit))
            accepted = step.n_accepted
            if accepted:
                painter.fillRect(QRectF(x, bottom - accepted * unit, width, accepted * unit), draft_colour)
            mark_top = bottom - max(drafted, accepted) * unit - _MARK - 2
            painter.fillRect(
                QRectF(x + (width - _MARK) / 2, mark_top, _MARK, _MARK), origin_colour(end_origin(step), palette)
            )
        painter.end()
