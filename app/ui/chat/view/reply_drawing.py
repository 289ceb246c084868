"""Drawing a message's Markdown into the view's document; a streamed reply again only from its last open block.

A user's message takes the same road without tokens: its characters are set
by the same layout, in plain text formats, on the user's background.

:mod:`app.ui.chat.view.markdown_layout` says how the reply's lines look; this module
writes them, run by run, each character in its token's format (from
:class:`~app.ui.chat.view.token_painter.TokenPainter`). A :class:`StreamState`
remembers where every token and every line of the reply starts and where each
line sits in the document, so each step removes and draws again only the lines
that can still change: a step costs the same at token 10,000 as at token 100.
Characters that are not the reply's (table padding, a code block's copy link)
are "filler": they carry no token. A formula's source is drawn as the formula
(:mod:`app.ui.chat.view.math_formula`), one object per token that wrote it;
the lines a display formula runs on to are left empty and flat.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor, QTextBlockFormat, QTextCharFormat, QTextCursor

from app.core.reply.token_record import TokenRecord
from app.ui.chat.view import math_formula, table_grid
from app.ui.chat.view.markdown_layout import LEX_WINDOW_LINES, Char, LineKind, LineLayout, MathRun, layout
from app.ui.chat.view.token_painter import Prop, TokenPainter, ghost_text

COPY_CODE = "tandem:copy-code"


@dataclass(slots=True)
class StreamState:
    """Where the reply being laid out sits in the document, line by line."""

    message_index: int
    token_starts: list[int] = field(default_factory=list)  # reply offset where each token starts
    line_offsets: list[int] = field(default_factory=lambda: [0])  # reply offset where each line starts
    break_positions: list[int] = field(default_factory=list)  # document position just before each line
    open_line: int = 0  # the first line of the block that can still change
    open_fence: bool = False
    leaf_line: int = 0  # the first line to draw again
    last_line: int = 0
    background: QColor | None = None  # behind the text lines (a user's turn); code lines have their own
    token_base: int = 0  # the reply index of ``tokens[0]`` (a reply's answer after its "Thinking" section)
    indent: float = 0.0  # extra left margin of every line (the "Thinking" section's)


def relayout_tail(
    cursor: QTextCursor, state: StreamState, tokens: list[TokenRecord], text: str, painter: TokenPainter
) -> None:
    """Lay out the reply again from its last open leaf block (an open code block: its last line) on.

    Markdown is parsed from the last top-level block (earlier ones can no longer
    change) and drawn again from the last leaf block in it; inside a long open
    code block the parse starts a few lines back under a copy of its opening
    fence, so a step costs the same at token 10,000 as at token 100.
    """
    known = len(state.token_starts)
    offset = state.token_starts[-1] + len(tokens[known - 1].text) if known else 0
    for token in tokens[known:]:
        state.token_starts.append(offset)
        offset += len(token.text)
    first = state.open_line
    redraw = max(first, state.last_line if state.open_fence else state.leaf_line)
    offsets = state.line_offsets
    dark = painter.dark
    if state.open_fence and redraw - first > LEX_WINDOW_LINES:
        tail = redraw - LEX_WINDOW_LINES // 2
        opener = text[offsets[first] : offsets[first + 1] - 1]
        laid = layout(opener + "\n" + text[offsets[tail] :], tail - 1, redraw, dark)
        still_open = laid.open_block_line == tail - 1
        open_line = first if still_open else laid.open_block_line
        leaf_line = first if still_open else laid.leaf_line
    else:
        laid = layout(text[offsets[first] :], first, redraw, dark)
        open_line, leaf_line = laid.open_block_line, laid.leaf_line
    base = laid.first_line
    # Lines before ``redraw`` stay as drawn; the rest is drawn again.
    del offsets[redraw + 1 :]
    for number in range(redraw + 1, base + len(laid.lines)):
        offsets.append(offsets[-1] + len(laid.lines[number - 1 - base].text) + 1)
    if redraw < len(state.break_positions):
        cursor.setPosition(state.break_positions[redraw])
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        del state.break_positions[redraw:]
    _keep_renderable(laid.lines, painter.text_colour.name())
    for number in range(redraw, base + len(laid.lines)):
        _draw_line(cursor, state, tokens, painter, number, laid.lines[number - base])
    state.open_line = open_line
    state.leaf_line = leaf_line
    state.open_fence = laid.open_fence
    state.last_line = base + len(laid.lines) - 1


def _draw_line(
    cursor: QTextCursor,
    state: StreamState,
    tokens: list[TokenRecord],
    painter: TokenPainter,
    number: int,
    line: LineLayout,
) -> None:
    start = state.line_offsets[number]
    state.break_positions.append(cursor.position())
    block = QTextBlockFormat()
    block.setLineHeight(115, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
    if line.kind in (LineKind.CODE, LineKind.FENCE):
        block.setBackground(painter.code_background)
    elif state.background is not None:
        block.setBackground(state.background)
    if line.grid:
        block.setProperty(table_grid.TABLE_ROW, True)
        # A wrapped row would break the grid's columns: a wide table scrolls sideways instead.
        block.setNonBreakableLines(True)
    if line.kind is LineKind.HEADING:
        block.setTopMargin(6)
    if line.quote:
        block.setLeftMargin(14.0 * line.quote)
    if state.indent:
        block.setLeftMargin(block.leftMargin() + state.indent)
    if line.math_block:
        block.setAlignment(Qt.AlignmentFlag.AlignHCenter)
    continued = bool(line.math) and not line.math[0].latex and line.math[0].begin == 0
    if line.inside_math:
        # Every character of the line is drawn by the formula above: the empty block takes no room.
        block.setLineHeight(0, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
    if number == 0:
        cursor.setBlockFormat(block)
    elif continued:
        # The line break is the formula's too (its object holds the source): filler, no second copy.
        cursor.insertBlock(block, painter.plain_format(state.message_index, "filler"))
    else:
        newline = start - 1
        owner = _owner(state, newline)
        _maybe_ghost(cursor, state, tokens, painter, owner, newline)
        fmt = painter.reply_format(state.message_index, tokens, owner, line, Char.NONE, "")
        cursor.insertBlock(block, _indexed(fmt, state, tokens, owner))
    column = 0
    for run in line.math:
        _draw_text(cursor, state, tokens, painter, line, start, column, run.begin)
        if run.latex:
            _draw_formula(cursor, state, tokens, painter, line, start + run.begin, run)
        column = run.end
    _draw_text(cursor, state, tokens, painter, line, start, column, len(line.text))
    if line.fence_info is not None:
        link = painter.plain_format(state.message_index, "filler", painter.link_colour)
        link.setAnchor(True)
        link.setAnchorHref(f"{COPY_CODE}?message={state.message_index}&line={number}")
        link.setFontPointSize(painter.small_point_size)
        cursor.insertText("   ", painter.plain_format(state.message_index, "filler"))
        cursor.insertText(QCoreApplication.translate("ChatView", "copy code"), link)


def _draw_text(
    cursor: QTextCursor,
    state: StreamState,
    tokens: list[TokenRecord],
    painter: TokenPainter,
    line: LineLayout,
    start: int,
    first: int,
    stop: int,
) -> None:
    """The line's characters ``first:stop`` as text: one run per token and style, table padding between."""
    padding = dict(line.padding)
    run_start = first
    for column in range(first, stop + 1):
        boundary = column == stop or column in padding
        owner = _owner(state, start + column) if column < stop else -1
        if not boundary and column > run_start:
            same = (
                owner == _owner(state, start + column - 1)
                and line.styles[column] == line.styles[column - 1]
                and (line.colours is None or line.colours[column] == line.colours[column - 1])
                and (not state.token_starts or state.token_starts[owner] != start + column)
            )
            if same:
                continue
        if column > run_start:
            _draw_run(
                cursor=cursor,
                state=state,
                tokens=tokens,
                painter=painter,
                line=line,
                start=start,
                begin=run_start,
                end=column,
            )
        if column in padding:
            filler = painter.plain_format(state.message_index, "filler")
            painter.set_monospace(filler)
            cursor.insertText(" " * padding[column], filler)
        run_start = column


def _draw_formula(
    cursor: QTextCursor,
    state: StreamState,
    tokens: list[TokenRecord],
    painter: TokenPainter,
    line: LineLayout,
    offset: int,
    run: MathRun,
) -> None:
    """The formula whose source starts at reply ``offset``: a slice for each token that wrote part of it."""
    end = offset + len(run.source)
    slices: list[tuple[QTextCharFormat, str]] = []
    position = offset
    while position < end:
        owner = _owner(state, position)
        following = state.token_starts[owner + 1] if tokens and owner + 1 < len(state.token_starts) else end
        stop = min(end, max(following, position + 1))
        fmt = painter.reply_format(state.message_index, tokens, owner, line, Char.NONE, "")
        slices.append((_indexed(fmt, state, tokens, owner), run.source[position - offset : stop - offset]))
        position = stop
    math_formula.insert_formula(cursor, run.latex, run.display, painter.text_colour.name(), slices)


def _keep_renderable(lines: list[LineLayout], colour: str) -> None:
    """Drop the formulas the renderer cannot set (and their following lines' runs): their source stays text."""
    for number, line in enumerate(lines):
        for run in [r for r in line.math if r.latex and math_formula.render(r.latex, r.display, colour) is None]:
            line.math.remove(run)
            line.math_block = False
            for later in lines[number + 1 : number + 1 + run.end_line]:
                later.math = [r for r in later.math if r.latex]
                later.inside_math = False


def _draw_run(
    cursor: QTextCursor,
    state: StreamState,
    tokens: list[TokenRecord],
    painter: TokenPainter,
    line: LineLayout,
    start: int,
    begin: int,
    end: int,
) -> None:
    """Insert the line's characters ``begin:end``: one token's, in one style."""
    owner = _owner(state, start + begin)
    _maybe_ghost(cursor, state, tokens, painter, owner, start + begin)
    colour = line.colours[begin] if line.colours is not None else ""
    href = next((h for a, b, h in line.links if a <= begin < b), "")
    fmt = painter.reply_format(state.message_index, tokens, owner, line, line.styles[begin], colour, href)
    _indexed(fmt, state, tokens, owner)
    cursor.insertText(line.text[begin:end], fmt)


def _owner(state: StreamState, offset: int) -> int:
    """The index of the token that wrote the reply's character at ``offset``."""
    return max(0, bisect_right(state.token_starts, offset) - 1)


def _maybe_ghost(
    cursor: QTextCursor,
    state: StreamState,
    tokens: list[TokenRecord],
    painter: TokenPainter,
    owner: int,
    offset: int,
) -> None:
    """Before a token's first character, its rejected proposal (when ghosts are shown)."""
    if not painter.show_ghosts or not tokens or state.token_starts[owner] != offset:
        return
    token = tokens[owner]
    if token.rejected is not None and token.rejected.text:
        # A rejected line break is shown as a mark: it never becomes part of the reply's layout.
        fmt = _indexed(painter.token_format(state.message_index, owner, token, ghost=True), state, tokens, owner)
        cursor.insertText(ghost_text(token.rejected.text), fmt)


def _indexed(fmt: QTextCharFormat, state: StreamState, tokens: list[TokenRecord], owner: int) -> QTextCharFormat:
    """``fmt`` with its token's index in the whole reply (the lists drawn may start after a "Thinking" section)."""
    if state.token_base and tokens:
        fmt.setProperty(Prop.TOKEN_INDEX, state.token_base + owner)
    return fmt
