"""On a code block's background the origin tints stay apart, as the palette test demands elsewhere.

The colours are read back from the view's document (a token's background, or
its block's code background where the token is untinted), so the test checks
what is drawn, and measured with the palette test's own distance: CIE76 under
the Machado et al. simulations, at least ``MIN_DELTA_E`` for every pair.
"""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette

from app.core.reply.token_record import TokenRecord
from app.ui import theme
from app.ui.chat.view.chat_view import ChatView, ViewMessage
from tests.ui.palette_checks import MACHADO_2009, MIN_DELTA_E, simulated_delta_e

# One token per origin inside a fenced block (plus prose around it).
_PIECES = [
    ("Here:\n```python\n", "target"),
    ("draft_name", "draft"),
    (" = ", "target"),
    ("bonus_name", "bonus"),
    (" + ", "target"),
    ("fixed_name", "corrected"),
    ("\n```\nDone.", "target"),
]


def _tokens() -> list[TokenRecord]:
    return [
        TokenRecord(text=text, origin=origin, p_target=0.5, q_draft=0.4 if origin != "target" else None)
        for text, origin in _PIECES
    ]


def _drawn_background(view: ChatView, text: str) -> QColor:
    """The colour behind the first character of ``text`` as drawn: the character's, else its block's."""
    found = view.document().find(text)
    assert not found.isNull(), text
    position = found.selectionStart()
    fmt = view.format_at(position)
    if fmt.background().style() != Qt.BrushStyle.NoBrush:
        return fmt.background().color()
    block = view.document().findBlock(position).blockFormat()
    assert block.background().style() != Qt.BrushStyle.NoBrush, f"{text!r} is not on a code background"
    return block.background().color()


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_origin_tints_stay_apart_on_a_code_background(qapp: object, mode: str) -> None:
    palette: QPalette = theme.dark_palette() if mode == "dark" else theme.light_palette()
    view = ChatView()
    view.setPalette(palette)
    view.set_messages([ViewMessage("user", "name three"), ViewMessage("assistant", tokens=_tokens(), header="pair")])
    drawn = {origin: _drawn_background(view, text) for text, origin in _PIECES[1:6]}
    assert drawn["target"].name() == theme.code_background(palette).name()  # untinted: the code background
    assert drawn["draft"].name() != drawn["bonus"].name()
    for deficiency in sorted(MACHADO_2009):
        for (o1, c1), (o2, c2) in itertools.combinations(drawn.items(), 2):
            distance = simulated_delta_e(c1, c2, deficiency)
            assert distance >= MIN_DELTA_E, f"{o1} and {o2} are {distance:.1f} apart on code ({mode}, {deficiency})"
    view.close()
