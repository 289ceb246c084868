"""Reading the chat view's formulas back from its document, for the math tests."""

from __future__ import annotations

from PySide6.QtGui import QTextFormat

from app.ui.chat.view import math_formula
from app.ui.chat.view.chat_view import ChatView

# math_formula's properties: the formula's LaTeX, and where a slice's token sits in the band (0..1)
LATEX = 0x100000 + 201
SLICE_FROM = 0x100000 + 203
SLICE_TO = 0x100000 + 204


def formula_objects(view: ChatView) -> list[tuple[int, QTextFormat]]:
    """(position, format) of every formula slice in the view's document, in order."""
    out = []
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if fmt.objectType() == math_formula.FORMULA_OBJECT:
                out.extend((fragment.position() + k, fmt) for k in range(fragment.length()))
            it += 1
        block = block.next()
    return out


def formula_width(view: ChatView, positions: list[int]) -> int:
    """How wide the slices at ``positions`` (one formula's, in order) are drawn, in pixels."""
    cursor = view.textCursor()
    cursor.setPosition(positions[0])
    left = view.cursorRect(cursor).x()
    cursor.setPosition(positions[-1] + 1)
    return view.cursorRect(cursor).x() - left
