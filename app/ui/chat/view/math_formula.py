"""Formulas in the chat view: LaTeX set by ziamath as SVG, drawn by QtSvg in place of the reply's characters.

A formula is written into the document as one object character per token that
wrote part of its source (:func:`insert_formula`): each object carries its
token's character format (its tint, hover card and place in the keyboard
walk). The first object is as wide as the formula and draws it over a band of
the tokens' tints, each as wide as its token's share of the source's
characters, so the formula reads whole while the band shows which parts the
target, the draft model or prompt lookup wrote; the other objects take no
room (a line never breaks inside a formula), and :func:`slice_under` finds
the token under a point of the band for the hover card.

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
    QColor,
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
_BAND = 0x100000 + 206  # on a formula's first object: every slice's share and tint

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
    bounds: list[tuple[float, float]] = []
    done = 0
    for _, source in slices:
        bounds.append((done / total, (done + len(source)) / total))
        done += len(source)
    # The band of tints, for the first object to paint: "from,to,#rrggbb" per slice ("" where untinted).
    band = ";".join(
        f"{low},{high},{fmt.background().color().name() if fmt.background().style() != Qt.BrushStyle.NoBrush else ''}"
        for (low, high), (fmt, _) in zip(bounds, slices, strict=True)
    )
    for number, ((low, high), (token_format, source)) in enumerate(zip(bounds, slices, strict=True)):
        fmt = QTextCharFormat(token_format)
        fmt.setObjectType(FORMULA_OBJECT)
        fmt.setVerticalAlignment(QTextCharFormat.VerticalAlignment.AlignMiddle)
        fmt.setProperty(_LATEX, latex)
        fmt.setProperty(_DISPLAY, display)
        fmt.setProperty(_COLOUR, colour)
        fmt.setProperty(_SLICE_FROM, low)
        fmt.setProperty(_SLICE_TO, high)
        if number == 0:
            fmt.setProperty(_BAND, band)
        fmt.setProperty(Prop.MATH_SOURCE, source)
        cursor.insertText("\ufffc", fmt)


def slice_under(document: QTextDocument, position: int, left: float, x: float) -> int:
    """The position of the formula slice drawn under ``x``, for a formula whose first object is at ``position``.

    The first object is drawn ``left`` of ``x``, as wide as the whole formula; the
    others follow it with no width of their own, in order.
    """
    cursor = QTextCursor(document)
    cursor.setPosition(position + 1)
    fmt = cursor.charFormat()
    if fmt.objectType() != FORMULA_OBJECT or fmt.property(_BAND) is None:
        return position
    box = _box(document, fmt)
    if box is None or box.width <= 0:
        return position
    share = (x - left) / box.width
    found = position
    while True:
        cursor.setPosition(found + 2)
        following = cursor.charFormat()
        if following.objectType() != FORMULA_OBJECT or following.property(_BAND) is not None:
            return found
        if float(following.property(_SLICE_FROM)) > share:
            return found
        found += 1


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
        """The whole formula's box for its first object; the others take no room.

        (Qt may break a line before any inline object: slices with widths of their
        own would let a line break cut a formula in two.)
        """
        box = _box(doc, format)
        if box is None:
            return QSizeF(0, 0)
        return QSizeF(box.width if format.property(_BAND) is not None else 0.0, box.height)

    def drawObject(  # noqa: N802 - Qt override
        self,
        painter: QPainter,
        rect: QRectF | QRect,
        doc: QTextDocument,
        posInDocument: int,  # noqa: N803
        format: QTextFormat,
    ) -> None:
        """On the first object: each slice's tint in its share of the width, then the formula."""
        band = format.property(_BAND)
        box = _box(doc, format)
        if box is None or band is None:
            return
        rect = QRectF(rect)
        painter.save()
        for part in str(band).split(";"):
            low, high, tint = part.split(",")
            if tint:
                width = rect.width()
                painter.fillRect(
                    QRectF(rect.x() + width * float(low), rect.y(), width * (float(high) - float(low)), rect.height()),
                    QColor(tint),
                )
        left = rect.x()
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
