"""Math in the window: a message with LaTeX shows formulas, money and code stay text, the zoom keys scale them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.ui.chat.view.token_painter import Prop
from app.ui.main_window import MainWindow
from tests.ui.chat.formula_helper import LATEX, formula_objects, formula_width
from tests.ui.helpers import send

CTRL = Qt.KeyboardModifier.ControlModifier


def test_a_sent_message_shows_its_math_as_formulas_that_the_zoom_keys_scale(window: MainWindow, qtbot: QtBot) -> None:
    window.settings_panel.max_tokens.setValue(8)
    send(qtbot, window, "Is $x^2 = 9$ when \\(x=3\\)? It costs $5 and $10; `$y$` is code.")
    view = window.chat.view
    mine = [(p, f) for p, f in formula_objects(view) if f.property(Prop.MESSAGE_INDEX) == 0]
    assert [str(f.property(LATEX)) for _, f in mine] == ["x^2 = 9", "x=3"]
    # Each formula is one object character in the text (the user's words have no tokens to slice by).
    assert "Is \ufffc when \ufffc? It costs $5 and $10; `$y$` is code." in view.toPlainText()
    first = [p for p, f in mine if f.property(LATEX) == "x^2 = 9"]
    before = formula_width(view, first)
    QTest.keyClick(window, Qt.Key.Key_Plus, CTRL)
    QTest.keyClick(window, Qt.Key.Key_Plus, CTRL)
    QTest.keyClick(window, Qt.Key.Key_Plus, CTRL)

    def wider() -> None:
        now = [p for p, f in formula_objects(view) if f.property(Prop.MESSAGE_INDEX) == 0][:1]
        assert now and formula_width(view, now) > before * 1.2

    qtbot.waitUntil(wider)
    QTest.keyClick(window, Qt.Key.Key_0, CTRL)
