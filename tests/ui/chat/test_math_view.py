"""Math in a reply is set as formulas (ziamath through QtSvg) while its tokens keep their tints, cards and walk.

Hand-built tokens stream into a real :class:`ChatView`, as in
test_markdown_view.py; the formulas are read back from the document's object
characters and from the view's pixels.
"""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from app.core.decoding.events import TokenOrigin
from app.core.reply.token_record import TokenRecord
from app.ui import theme
from app.ui.chat.view import math_formula
from app.ui.chat.view.chat_view import ChatView, ViewMessage
from app.ui.chat.view.token_painter import Prop
from tests.ui.chat.formula_helper import LATEX, SLICE_FROM, SLICE_TO, formula_objects, formula_width

ORIGINS = ("draft", "target", "bonus", "corrected")
REPLY = (
    "The roots are $x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$ here.\n"
    "$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$\n"
    "\\[\n\\int_0^1 x^2\\,dx = \\boxed{\\tfrac{1}{3}}\n\\]\n"
    "Done."
)


def _tokens(text: str, seed: int = 0) -> list[TokenRecord]:
    rng = random.Random(seed)
    tokens, i = [], 0
    while i < len(text):
        n = rng.randint(1, 4)
        tokens.append(TokenRecord(text=text[i : i + n], origin=ORIGINS[len(tokens) % 4], p_target=0.5))
        i += n
    return tokens


def _view(qtbot: QtBot, text: str, stream: bool = False) -> ChatView:
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(760, 520)
    tokens = _tokens(text)
    if stream:
        view.set_messages([ViewMessage("user", "maths")])
        view.begin_reply("pair")
        for token in tokens:
            view.append_tokens([token])
        view.end_reply("footer")
    else:
        view.set_messages(
            [ViewMessage("user", "maths"), ViewMessage("assistant", tokens=tokens, header="pair", footer="footer")]
        )
    view.show()
    qtbot.waitExposed(view)
    return view


def _reply_spans(view: ChatView) -> list[str]:
    return [s.text for s in view.token_spans() if s.message_index == 1 and not s.ghost]


def test_inline_and_display_math_are_formulas_and_every_token_keeps_its_tint(qtbot: QtBot) -> None:
    view = _view(qtbot, REPLY)
    objects = formula_objects(view)
    latex = {str(fmt.property(LATEX)) for _, fmt in objects}
    assert latex == {
        r"x = \frac{-b \pm \sqrt{b^2-4ac}}{2a}",
        r"\sum_{i=1}^{n} i = \frac{n(n+1)}{2}",
        r"\int_0^1 x^2\,dx = \boxed{\tfrac{1}{3}}",
    }
    # The source is no longer shown as text, but the tokens read back still spell the reply.
    assert "\\frac" not in view.toPlainText()
    assert "".join(_reply_spans(view)) == REPLY
    assert _reply_spans(view) == [t.text for t in _tokens(REPLY)]
    # Each slice is its own token's: its origin and tint, as the token's text would have had.
    tokens = _tokens(REPLY)
    tints = theme.origin_colours(view.palette())
    for _, fmt in objects:
        token = tokens[int(fmt.property(Prop.TOKEN_INDEX))]
        assert fmt.property(Prop.ORIGIN) == token.origin
        tint = tints.get(TokenOrigin(token.origin))
        if tint is None:
            assert fmt.background().style() == Qt.BrushStyle.NoBrush
        else:
            assert fmt.background().color().name() == tint.name()
        assert str(fmt.property(Prop.MATH_SOURCE)) in token.text
    assert len({fmt.property(Prop.ORIGIN) for _, fmt in objects}) == len(ORIGINS)


def test_a_formula_paints_otherwise_than_its_raw_text(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Take $\\frac{a}{b}$ now."
    shown = _view(qtbot, text).grab().toImage()
    monkeypatch.setattr(math_formula, "render", lambda *args: None)
    raw = _view(qtbot, text)
    assert not formula_objects(raw)
    assert "$\\frac{a}{b}$" in raw.toPlainText()
    assert shown.convertToFormat(QImage.Format.Format_RGB32) != raw.grab().toImage().convertToFormat(
        QImage.Format.Format_RGB32
    )


def test_a_display_formula_line_is_centred_and_its_following_lines_take_no_room(qtbot: QtBot) -> None:
    view = _view(qtbot, "Before\n\\[\nx^2\n\\]\nAfter")
    position, _ = formula_objects(view)[0]
    cursor = view.textCursor()
    cursor.setPosition(position)
    assert view.cursorRect(cursor).x() > view.viewport().width() / 3  # centred, not at the margin
    before, after = view.document().find("Before"), view.document().find("After")
    gap = view.cursorRect(after).top() - view.cursorRect(before).bottom()
    formula_height = view.document().documentLayout().blockBoundingRect(cursor.block()).height()
    line = view.cursorRect(before).height()
    assert gap < formula_height + 2 * line  # the x^2 and \] lines are there, flat


def test_money_code_and_bad_latex_stay_text(qtbot: QtBot) -> None:
    text = (
        "It costs $5 and $10.\n"
        "Code `$x$` stays code.\n"
        "```\n$$y$$\n```\n"
        "Unknown \\(\\foo{x}\\), unbalanced $\\frac{a$, unmatched \\(\\left( x\\) and huge $" + "x+" * 300 + "x$.\n"
    )
    view = _view(qtbot, text)
    assert not formula_objects(view)
    shown = view.toPlainText()
    for piece in ("$5 and $10", "`$x$`", "$$y$$", "\\(\\foo{x}\\)", "$\\frac{a$", "\\left( x", "x+x+x"):
        assert piece in shown
    assert "".join(_reply_spans(view)) == text


def test_a_formula_still_streaming_shows_raw_until_it_closes(qtbot: QtBot) -> None:
    view = ChatView()
    qtbot.addWidget(view)
    view.set_messages([ViewMessage("user", "maths")])
    view.begin_reply("pair")
    view.append_tokens([TokenRecord(text="so $\\sqrt", origin="draft", p_target=0.5)])
    view.append_tokens([TokenRecord(text="{2}", origin="target", p_target=0.5)])
    assert not formula_objects(view)
    assert "$\\sqrt{2}" in view.toPlainText()
    view.append_tokens([TokenRecord(text="$ is", origin="bonus", p_target=0.5)])
    assert len(formula_objects(view)) == 3  # one slice per token that wrote the formula
    assert "\\sqrt" not in view.toPlainText()
    streamed = _view(qtbot, REPLY, stream=True)
    once = _view(qtbot, REPLY)
    assert [p for p, _ in formula_objects(streamed)] == [p for p, _ in formula_objects(once)]
    assert streamed.toPlainText() == once.toPlainText()


def test_hover_and_the_keyboard_walk_reach_the_formulas_tokens(qtbot: QtBot) -> None:
    view = _view(qtbot, "Take $\\frac{a}{b}$ now.")
    objects = formula_objects(view)
    assert len(objects) > 1
    # The walk stops at each token's first character: a formula's tokens are among them.
    walked = {int(view.format_at(p).property(Prop.TOKEN_INDEX)) for p in view.token_positions()}
    assert {int(fmt.property(Prop.TOKEN_INDEX)) for _, fmt in objects} <= walked
    # Hovering a point of the band shows the card of the token whose share is drawn there.
    positions = [p for p, _ in objects]
    cursor = view.textCursor()
    cursor.setPosition(positions[0])
    rect = view.cursorRect(cursor)
    width = formula_width(view, positions)
    cards = []
    for position, fmt in objects:
        middle = (float(fmt.property(SLICE_FROM)) + float(fmt.property(SLICE_TO))) / 2
        card = view.tooltip_at(QPointF(rect.x() + width * middle, rect.center().y()))
        assert card is not None and card == view.tooltip_at_position(position)
        cards.append(card)
    assert len(set(cards)) == len(objects)
    view.setFocus()
    cursor.setPosition(objects[-1][0])
    view.setTextCursor(cursor)
    assert view.step_token(forward=False) is not None
    walked_to = view.textCursor().selectionStart()
    assert view.format_at(walked_to).property(Prop.TOKEN_INDEX) == objects[-2][1].property(Prop.TOKEN_INDEX)


def test_zoom_scales_the_formulas(qtbot: QtBot) -> None:
    view = _view(qtbot, "Take $\\frac{a}{b}+c$ now.")

    def width() -> int:
        return formula_width(view, [p for p, _ in formula_objects(view)])

    before = width()
    view.set_zoom(8)
    qtbot.waitUntil(lambda: width() > before * 1.5)


def test_a_line_never_breaks_inside_a_formula(qtbot: QtBot) -> None:
    view = _view(qtbot, "Some words then $a + b + c + d + e + f + g + h + i + j + k + l + m$ and more words here.")
    view.resize(300, 300)
    qtbot.waitUntil(lambda: view.viewport().width() < 300)
    rows = set()
    cursor = view.textCursor()
    for position, _ in formula_objects(view):
        cursor.setPosition(position)
        rows.add(view.cursorRect(cursor).top())
    assert len(rows) == 1
