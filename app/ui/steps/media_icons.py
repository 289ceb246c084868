"""The step view's Play and Pause icons, painted in the palette's button text colour.

The pause sign character (U+23F8) is missing from common fonts (it drew as
a box), and the style's own pause icon is two bars one pixel apart at 16 px,
which reads as a box too. These are drawn with a clear gap at every size, in
the colour of the button's text, so they follow a light or dark theme.
"""

from __future__ import annotations

from enum import Enum

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap, QPolygonF

# Pixel sizes painted: the small button size and its high-DPI doubles.
_SIZES = (16, 24, 32, 48, 64)


class Media(Enum):
    """Which icon."""

    PLAY = "play"
    PAUSE = "pause"


def media_icon(kind: Media, colour: QColor) -> QIcon:
    """``kind`` drawn in ``colour`` on a 16-unit grid, at each size in ``_SIZES``."""
    icon = QIcon()
    for size in _SIZES:
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        unit = size / 16
        if kind is Media.PAUSE:  # two bars three units wide with three units between them
            painter.drawRect(QRectF(3 * unit, 3 * unit, 3.5 * unit, 10 * unit))
            painter.drawRect(QRectF(9.5 * unit, 3 * unit, 3.5 * unit, 10 * unit))
        else:
            painter.drawPolygon(
                QPolygonF(
                    [QPointF(4 * unit, 2.5 * unit), QPointF(13.5 * unit, 8 * unit), QPointF(4 * unit, 13.5 * unit)]
                )
            )
        painter.end()
        icon.addPixmap(pixmap)
    return icon
