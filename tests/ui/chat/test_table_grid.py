"""A stored reply's Markdown table, opened from a real SQLite store, is drawn as an aligned grid.

The reply is written into the window's own on-disk store the way a finished
reply is (tokens that cut across cells and pipes, every origin), then the
chat is opened and the view's geometry is read: every pipe of every row at
the same x, the left column's cells starting together, the right column's
ending together, the centred column's centres together; and a token in a cell
keeps its tint and its hover card, found back by hit-testing its pixels.
"""

from __future__ import annotations

import itertools
import random

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF
from PySide6.QtGui import QColor, QHelpEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QToolTip

from app.core.decoding.events import TokenOrigin
from app.core.display import markdown_table
from app.core.reply.token_record import TokenRecord
from app.ui import theme
from app.ui.chat.view import table_grid
from app.ui.chat.view.chat_view import ChatView, ViewMessage
from app.ui.chat.view.token_painter import Prop

TABLE = [
    "| Fruit | Grown in | Price |",
    "|:---|:---:|---:|",
    "| banana | Ecuador | 0.25 |",
    "| fig | Turkey | 12.50 |",
    "| kiwi | New Zealand | 3 |",
]
REPLY = "Prices:\n\n" + "\n".join(TABLE) + "\n\nThat is all."
ORIGINS = ("draft", "bonus", "corrected", "target")


def _tokens(text: str) -> list[TokenRecord]:
    rng = random.Random(7)
    tokens, i = [], 0
    while i < len(text):
        n = rng.randint(1, 4)
        origin = ORIGINS[len(tokens) % 4]
        # A p_target of its own per token, so a card names the token it belongs to.
        p = round(0.5 + len(tokens) / 1000, 3)
        tokens.append(
            TokenRecord(text=text[i : i + n], origin=origin, p_target=p, q_draft=0.3 if origin != "target" else None)
        )
        i += n
    return tokens


def _x(view: ChatView, position: int) -> float:
    """The x of the caret before document ``position``."""
    cursor = QTextCursor(view.document())
    cursor.setPosition(position)
    return float(view.cursorRect(cursor).x())


def _row_start(view: ChatView, row: str) -> int:
    """Document position of the table row that starts like ``row`` (its first cell, as drawn)."""
    block = view.document().begin()
    while block.isValid():
        if block.text().startswith("| " + row.split("|")[1].strip() + " "):
            return block.position()
        block = block.next()
    raise AssertionError(f"no row like {row!r}")


def _drawn_cells(view: ChatView, number: int) -> list[tuple[float, float, float]]:
    """(x of the opening pipe, x where the content starts, x where it ends) for each cell of body row ``number``."""
    block = view.document().findBlock(_row_start(view, TABLE[number]))
    text = block.text()
    out = []
    for cell in markdown_table.split_row(text):
        out.append(
            (
                _x(view, block.position() + cell.start - 1),
                _x(view, block.position() + cell.content_start),
                _x(view, block.position() + cell.content_end),
            )
        )
    return out


@pytest.fixture
def table_view(make_window):
    window = make_window()
    # The offscreen screen is 800 px wide and the window fits it: without the side panel the chat
    # has the room a table of this width needs (the grid is what is checked, not wrapping).
    window.menus.show_side_panel(False)
    store = window.store
    conversation = store.create_conversation("Fruit prices")
    store.add_message(conversation, "user", "Tabulate three fruits with where they grow and a price.")
    reply = store.begin_reply(conversation, {"pair": "stored"})
    tokens = _tokens(REPLY)
    store.append_tokens(reply, tokens)
    store.finish_reply(reply, REPLY)
    window.sidebar.refresh()
    window.controller.open_conversation(conversation)
    view = window.chat.view
    assert view.messages[-1].text == REPLY
    return view, tokens


def test_a_stored_table_is_an_aligned_grid(table_view) -> None:
    view, _ = table_view
    rows = [_drawn_cells(view, number) for number in (0, 2, 3, 4)]
    char = _x(view, _row_start(view, TABLE[2]) + 1) - _x(view, _row_start(view, TABLE[2]))
    assert char > 0
    # Every row's pipes at the same x: the grid's vertical lines.
    assert len({tuple(round(pipe) for pipe, _, _ in row) for row in rows}) == 1, rows
    body = rows[1:]
    # Left-aligned "Fruit": the cells start together; right-aligned "Price": they end together.
    assert len({round(cells[0][1]) for cells in body}) == 1
    assert len({round(cells[2][2]) for cells in body}) == 1
    assert len({round(cells[2][1]) for cells in body}) == 3  # ...and so start apart
    # Centred "Grown in": the centres agree to within one character (an odd space goes after).
    centres = [(cells[1][1] + cells[1][2]) / 2 for cells in body]
    assert max(centres) - min(centres) <= char + 0.5, centres


def _close(a: QColor, b: QColor) -> bool:
    return max(abs(a.red() - b.red()), abs(a.green() - b.green()), abs(a.blue() - b.blue())) <= 24


def test_the_grid_lines_are_painted_between_rows_and_along_the_pipes(table_view) -> None:
    view, _ = table_view
    rows = [view.document().findBlock(_row_start(view, TABLE[n])) for n in range(len(TABLE))]
    assert all(table_grid.is_table_row(block) for block in rows)
    assert not table_grid.is_table_row(rows[-1].next().next())  # "That is all." is no row
    image = view.viewport().grab().toImage()
    line = theme.muted_text(view.palette())
    xs = table_grid.pipe_xs(view, rows[2])
    assert xs == table_grid.pipe_xs(view, rows[3])  # one set of vertical lines for the whole table

    def painted(x: float, y: float) -> bool:
        return any(_close(image.pixelColor(round(x) + dx, round(y) + dy), line) for dx in (-1, 0) for dy in (-1, 0))

    for upper, lower in itertools.pairwise(rows):
        below = table_grid.row_rect(view, upper).bottom()
        assert below <= table_grid.row_rect(view, lower).top() + 1
        # The horizontal line under a row, in the middle of each cell (where no glyph is).
        for left, right in itertools.pairwise(xs):
            assert painted((left + right) / 2, below), (upper.text(), left, right)
    # The vertical lines run through the row gaps too, where the pipe glyphs leave space.
    rect = table_grid.row_rect(view, rows[3])
    print("DBG", view.viewport().width(), view.width(), view.window().size(), xs, rect)
    for x in xs:
        assert painted(x, rect.top() + 1) and painted(x, rect.bottom() - 1), x


def test_a_cell_token_keeps_its_tint_and_its_hover_card(table_view) -> None:
    view, tokens = table_view
    row_start_in_reply = REPLY.index(TABLE[4])
    starts = [sum(len(t.text) for t in tokens[:i]) for i in range(len(tokens))]
    cell = markdown_table.split_row(TABLE[4])[1]  # "New Zealand"
    wanted = markdown_table.cell_tokens(starts, row_start_in_reply, cell)
    assert len(wanted) >= 2  # the cell was written by several tokens
    block = view.document().findBlock(_row_start(view, TABLE[4]))
    drawn = markdown_table.split_row(block.text())[1]
    seen = set()
    for column in range(drawn.content_start, drawn.content_end):
        position = block.position() + column
        cursor = QTextCursor(view.document())
        cursor.setPosition(position + 1)
        rect = view.cursorRect(cursor)
        # Hover the character's own pixels: the card is the token's that wrote it.
        tip = view.tooltip_at(QPointF(rect.left() - 1, rect.center().y()))
        fmt = view.format_at(position)
        index = int(fmt.property(Prop.TOKEN_INDEX))
        assert index in wanted, (column, index, list(wanted))
        token = tokens[index]
        assert fmt.property(Prop.ORIGIN) == token.origin
        assert tip is not None and f"target p</td><td>{token.p_target:.3f}" in tip, tip
        if token.origin != "target":
            tint = theme.origin_colours(view.palette())[TokenOrigin(token.origin)]
            assert tint is not None and fmt.background().color().name() == tint.name()
        seen.add(index)
    assert seen == set(wanted)


def test_hovering_a_cell_with_the_mouse_shows_its_tokens_card(table_view, qtbot) -> None:
    view, tokens = table_view
    block = view.document().findBlock(_row_start(view, TABLE[3]))
    cell = markdown_table.split_row(block.text())[2]  # "12.50", right-aligned
    position = block.position() + cell.content_start + 1
    cursor = QTextCursor(view.document())
    cursor.setPosition(position + 1)
    rect = view.cursorRect(cursor)
    point = QPoint(rect.left() - 1, rect.center().y())
    qtbot.mouseMove(view.viewport(), point)
    event = QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point))
    QApplication.sendEvent(view.viewport(), event)
    token = tokens[int(view.format_at(position).property(Prop.TOKEN_INDEX))]
    qtbot.waitUntil(lambda: f"target p</td><td>{token.p_target:.3f}" in QToolTip.text())
    assert view.document().characterAt(position) == "2" and "2" in token.text  # the card is this cell's token
    QToolTip.hideText()


def test_a_streaming_table_shows_only_whole_rows_as_a_grid(qapp) -> None:
    view = ChatView()
    view.set_messages([ViewMessage("user", "prices?")])
    view.begin_reply("pair")
    tokens = _tokens(REPLY)
    # A table starts once its alignment row has as many cells as the header ("|:---|:---:|-").
    rule = REPLY.index(TABLE[1])
    table_from = rule + TABLE[1].index("|", TABLE[1].index("|", 1) + 1) + 2
    shown = partial_rows = 0
    for token in tokens:
        view.append_tokens([token])
        shown += len(token.text)
        blocks = []
        block = view.document().begin()
        while block.isValid():
            if block.text().startswith("|"):
                blocks.append(block)
            block = block.next()
        fixed = [b for b in blocks if view.format_at(b.position()).fontFixedPitch()]
        if shown < table_from:
            assert not fixed, [b.text() for b in blocks]  # no alignment row yet: still text
            continue
        # The rows that are whole line up; a half-written last row is drawn as it came, unpadded.
        whole = [b for b in fixed if b.text().rstrip().endswith("|") and b.text().count("|") == 4]
        assert len({tuple(i for i, c in enumerate(b.text()) if c == "|") for b in whole}) <= 1, [
            b.text() for b in fixed
        ]
        last = fixed[-1].text()
        if len(markdown_table.split_row(last)) < 3:
            assert not table_grid.is_table_row(fixed[-1])  # no grid lines through a half-written row
            assert REPLY[:shown].endswith("\n" + last), last  # exactly as streamed: no padding yet
            partial_rows += 1
    assert partial_rows > 3
    view.end_reply("footer")
    view.close()


def test_a_table_wider_than_the_view_keeps_each_row_on_one_line(qapp) -> None:
    wide = "| " + " | ".join(f"column number {n}" for n in range(12)) + " |"
    rule = "|" + "---|" * 12
    body = "| " + " | ".join(str(n) for n in range(12)) + " |"
    text = "\n".join([wide, rule, body])
    view = ChatView()
    view.resize(400, 300)
    view.show()
    view.set_messages([ViewMessage("user", "wide?"), ViewMessage("assistant", tokens=_tokens(text), header="pair")])
    rows = [b for b in _blocks(view) if table_grid.is_table_row(b)]
    assert len(rows) == 3
    assert all(block.layout().lineCount() == 1 for block in rows), [b.layout().lineCount() for b in rows]
    assert table_grid.pipe_xs(view, rows[0]) == table_grid.pipe_xs(view, rows[2])
    view.close()


def _blocks(view: ChatView) -> list:
    out, block = [], view.document().begin()
    while block.isValid():
        out.append(block)
        block = block.next()
    return out
