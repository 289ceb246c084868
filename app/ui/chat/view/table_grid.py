"""The lines of a Markdown table's grid, painted over the view where its rows are.

A table's rows stay the reply's own characters (so every cell token keeps its
tint and card); :mod:`app.ui.chat.view.markdown_layout` pads them into aligned
columns and :mod:`app.ui.chat.view.reply_drawing` marks each row's block with
:data:`TABLE_ROW`. This module joins the rows' pipes into continuous
vertical lines and draws a line above the table and under every row, so the
table reads as a grid; nothing of the text is changed or hidden.
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, QRectF
from PySide6.QtGui import QColor, QPainter, QPen, QTextBlock, QTextCursor
from PySide6.QtWidgets import QTextEdit

from app.core.display import markdown_table

# A block property (on the row's QTextBlockFormat): the block is a table row.
TABLE_ROW = 0x100000 + 101


def is_table_row(block: QTextBlock) -> bool:
    """Whether the view drew ``block`` as a row of a Markdown table."""
    return bool(block.blockFormat().property(TABLE_ROW))


def pipe_xs(view: QTextEdit, block: QTextBlock) -> list[float]:
    """Viewport x of the middle of each cell-separating pipe of a table row's block."""
    cursor = QTextCursor(block)
    out: list[float] = []
    for pipe in markdown_table.pipes(block.text()):
        if pipe < 0:
            continue
        cursor.setPosition(block.position() + pipe)
        left = view.cursorRect(cursor).x()
        cursor.setPosition(block.position() + pipe + 1)
        right = view.cursorRect(cursor).x()
        out.append((left + right) / 2)
    return out


def row_rect(view: QTextEdit, block: QTextBlock) -> QRectF:
    """The block's rectangle in viewport coordinates."""
    rect = view.document().documentLayout().blockBoundingRect(block)
    return rect.translated(-view.horizontalScrollBar().value(), -view.verticalScrollBar().value())


def paint(view: QTextEdit, painter: QPainter, colour: QColor) -> None:
    """Draw the grid of every table row visible in ``view``'s viewport."""
    height = view.viewport().height()
    block = view.cursorForPosition(view.viewport().rect().topLeft()).block()
    previous_is_row = block.previous().isValid() and is_table_row(block.previous())
    pen = QPen(colour)
    pen.setWidthF(1.0)
    painter.setPen(pen)
    while block.isValid():
        rect = row_rect(view, block)
        if rect.top() > height:
            break
        row = is_table_row(block)
        if row:
            xs = pipe_xs(view, block)
            if len(xs) >= 2:
                for x in xs:
                    painter.drawLine(QLineF(x, rect.top(), x, rect.bottom()))
                if not previous_is_row:
                    painter.drawLine(QLineF(xs[0], rect.top(), xs[-1], rect.top()))
                painter.drawLine(QLineF(xs[0], rect.bottom(), xs[-1], rect.bottom()))
        previous_is_row = row
        block = block.next()
