"""The window's status bar as one line with one owner: the latest message, then the loaded pair.

Qt's status bar paints a temporary message over the space its permanent
widgets leave, cut without an ellipsis, so a long message ran straight into
the pair's name ("…it shows theSmolLM2-360M…") and read as two messages
printed over each other. :class:`StatusLine` shows the message in a label of
its own instead: a new message replaces the one before, each side elides
("…") with its whole text as the tooltip, and the pair's name gives way to the
message, keeping at least a third of the line.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QStatusBar, QStyle, QStyleOption, QWidget

from app.ui.layout_fit import ElidedLabel

# Between the message and the pair's name, so the two never touch.
_GAP_PX = 16


class StatusLine(QStatusBar):
    """A status bar whose messages (``showMessage``) and pair name share one line without overlapping."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = ElidedLabel()
        self.message.setAccessibleName(self.tr("Status"))
        self.pair = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle)
        self.pair.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # Both permanent: Qt hides its ordinary widgets while a message shows, and paints nothing of its own here.
        self.addPermanentWidget(self.message, 1)
        self.addPermanentWidget(self.pair)
        self.messageChanged.connect(self._show)

    def _show(self, text: str) -> None:
        self.message.setText(text)
        self._share()

    def _share(self) -> None:
        """The pair's name takes what the message leaves, and never less than a third of the line."""
        width = self.width()
        text = self.message.full_text()
        need = self.message.fontMetrics().horizontalAdvance(text) + _GAP_PX if text else 0
        self.pair.setMaximumWidth(max(width // 3, width - need))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """The share follows the line's width."""
        super().resizeEvent(event)
        self._share()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """The bar's panel only: the message is the label's to draw, not painted under the labels as well."""
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelStatusBar, option, painter, self)
