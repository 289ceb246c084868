"""Formulas in the chat view: LaTeX set by ziamath as SVG, drawn by QtSvg in place of the reply's characters.

A formula is written into the document as one object character per token that
wrote part of its source (:func:`insert_formula`): each object carries its
token's character format (its tint, hover card and place in the keyboard walk)
and draws its slice of the formula, as wide as the token's share of the
source's characters, over its token's tint. The slices sit side by side, so
the formula reads whole while the band behind it shows which tokens the
target, the draft model or prompt lookup wrote, in proportion.

The object's source characters travel in :attr:`Prop.MATH_SOURCE`, so the
tokens read back from the document still spell the reply. LaTeX that ziamath
cannot set (an unknown command, an unmatched ``\\left``) gives ``None``: the
caller leaves the source as text. Sizes follow the format's font, so the
view's zoom scales formulas with the text.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import ziamath
from PySide6.QtCore import QByteArray, QObject, QPointF, QRect, QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QFont,
    QFontMetricsF,
    QPainter,
    QPyTextObject,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtSvg import QSvgRenderer
from ziamath.tex import tex2mml

from app.ui.chat.view.token_painter import Prop

# SVG 1.1 output: Qt's SVG renderer does not scale a <symbol> that <use> places (SVG 2).
ziamath.config.svg2 = False

FORMULA_OBJECT = int(QTextFormat.ObjectTypes.UserObject) + 1
# Object properties (beyond the token's own, which the format keeps).
_LATEX = 0x100000 + 201
_DISPLAY = 0x100000 + 202
_SLICE_FROM = 0x100000 + 203  # where the slice starts in the formula's width, 0..1
_SLICE_TO = 0x100000 + 204
_COLOUR = 0x100000 + 205  # the text colour the formula is drawn in, "#rrggbb"

# ziamath sets the SVG at this size; drawing scales it to the text's size.
_REFERENCE_PX = 20.0
_DISPLAY_SCALE = 1.15  # display formulas a little larger than the text, as in print
_INLINE_SCALE = 1.05  # STIX Two's letters are a little smaller than the UI font's at one size
# MathML ziamath writes for a command it does not know: the command's name as an identifier.
_UNKNOWN_COMMAND = re.compile(r"<m[ino]>\\[A-Za-z]")


@dataclass(frozen=True, slots=True)
class Formula:
    """A formula set as SVG, with its box at the reference size: width, ascent above and descent below the baseline."""

    svg: bytes
    width: float
    ascent: float
    descent: float


@lru_cache(maxsize=256)
def render(latex: str, display: bool, colour: str = "#000000") -> Formula | None:
    """``latex`` set by ziamath (display or inline style) in ``colour``, or ``None`` where ziamath cannot set it."""
    try:
        mathml = tex2mml(latex, inline=not display)
        if _UNKNOWN_COMMAND.search(mathml):
            return None
        math = ziamath.Math(mathml, size=_REFERENCE_PX)
        # ziamath draws in black; the view's text colour (a dark theme's light text) replaces it.
        svg = math.svg().replace('"black"', f'"{colour}"')
        width, height = math.getsize()
    except Exception:
        return None
    box = re.search(r'viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"', svg)
    if box is None or width <= 0 or height <= 0:
        return None
    top, full_height = float(box.group(2)), float(box.group(4))
    # ziamath puts the baseline at y = 0 of the viewBox: what is above it is the ascent.
    return Formula(svg=svg.encode(), width=float(box.group(3)), ascent=-top, descent=full_height + top)


def insert_formula(
    cursor: QTextCursor, latex: str, display: bool, colour: str, slices: list[tuple[QTextCharFormat, str]]
) -> None:
    """Write a formula at ``cursor``: one object per (token format, source characters) of ``slices``."""
    total = sum(len(source) for _, source in slices) or 1
    done = 0
    for token_format, source in slices:
        fmt = QTextCharFormat(token_format)
        fmt.setObjectType(FORMULA_OBJECT)
        fmt.setVerticalAlignment(QTextCharFormat.VerticalAlignment.AlignMiddle)
        fmt.setProperty(_LATEX, latex)
        fmt.setProperty(_DISPLAY, display)
        fmt.setProperty(_COLOUR, colour)
        fmt.setProperty(_SLICE_FROM, done / total)
        done += len(source)
        fmt.setProperty(_SLICE_TO, done / total)
        fmt.setProperty(Prop.MATH_SOURCE, source)
        cursor.insertText("\ufffc", fmt)


@dataclass(frozen=True, slots=True)
class _Box:
    """Where a formula sits in its objects' box, at the size of the text around it."""

    formula: Formula
    width: float  # the whole formula's
    top: float  # from the box's top to the formula's
    height: float  # the box's: padded so the formula's baseline sits on the text's


class FormulaObjects(QPyTextObject):
    """The document layout's handler for formula slices: their size and their drawing."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._renderers: OrderedDict[bytes, QSvgRenderer] = OrderedDict()

    def install(self, document: QTextDocument) -> None:
        """Register with ``document``'s layout."""
        document.documentLayout().registerHandler(FORMULA_OBJECT, self)

    def intrinsicSize(self, doc: QTextDocument, posInDocument: int, format: QTextFormat) -> QSizeF:  # noqa: N802, N803 - Qt override
        """The slice's width and the formula's full height."""
        box = _box(doc, format)
        if box is None:
            return QSizeF(0, 0)
        share = float(format.property(_SLICE_TO)) - float(format.property(_SLICE_FROM))
        return QSizeF(box.width * share, box.height)

    def drawObject(  # noqa: N802 - Qt override
        self,
        painter: QPainter,
        rect: QRectF | QRect,
        doc: QTextDocument,
        posInDocument: int,  # noqa: N803
        format: QTextFormat,
    ) -> None:
        """The token's tint over the slice, then the slice of the formula."""
        box = _box(doc, format)
        if box is None:
            return
        rect = QRectF(rect)
        painter.save()
        background = format.background()
        if background.style() != Qt.BrushStyle.NoBrush:
            painter.fillRect(rect, background)
        painter.setClipRect(rect)
        left = rect.x() - box.width * float(format.property(_SLICE_FROM))
        scale = box.width / box.formula.width
        target = QRectF(
            QPointF(left, rect.y() + box.top),
            QSizeF(box.width, (box.formula.ascent + box.formula.descent) * scale),
        )
        self._renderer(box.formula.svg).render(painter, target)
        painter.restore()

    def _renderer(self, svg: bytes) -> QSvgRenderer:
        renderer = self._renderers.get(svg)
        if renderer is None:
            renderer = QSvgRenderer(QByteArray(svg), self)
            self._renderers[svg] = renderer
            if len(self._renderers) > 128:
                _, old = self._renderers.popitem(last=False)
                old.deleteLater()
        else:
            self._renderers.move_to_end(svg)
        return renderer


def _box(doc: QTextDocument, fmt: QTextFormat) -> _Box | None:
    """The box of a slice's formula, sized by the font of its characters (the view's, zoomed; a heading's)."""
    display = bool(fmt.property(_DISPLAY))
    formula = render(str(fmt.property(_LATEX)), display, str(fmt.property(_COLOUR)))
    if formula is None:
        return None
    char = fmt.toCharFormat()
    font = QFont(doc.defaultFont())
    if char.fontPointSize() > 0:
        font.setPointSizeF(char.fontPointSize())
    metrics = QFontMetricsF(font)
    scale = metrics.height() / 1.2 / _REFERENCE_PX * (_DISPLAY_SCALE if display else _INLINE_SCALE)
    ascent, descent = formula.ascent * scale, formula.descent * scale
    # Qt sets an AlignMiddle object's ascent to (height + x-height / 2) / 2: pad the box so
    # that this ascent is the formula's own and its baseline meets the text's.
    half_x = metrics.xHeight() / 2
    height = max(2 * ascent - half_x, 2 * descent + half_x)
    return _Box(formula=formula, width=formula.width * scale, top=(height + half_x) / 2 - ascent, height=height)
