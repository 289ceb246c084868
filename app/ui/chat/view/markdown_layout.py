"""How each character of a streamed Markdown reply is set: the layout the chat view draws.

The view never drops a character of the reply: every token keeps its origin
colour, hover card and ghost text, so Markdown is shown the way a Markdown
editor's live preview shows it. Markup (``**``, ``#``, ``|``, fences) stays in
the text, muted; what it marks is set as it should read: headings large and
bold, emphasis bold or italic, inline code and tables in the code font (each
cell padded to its column's width and alignment, from
:mod:`app.core.display.markdown_table`; the padding is not part of the reply, and the
view paints the grid's lines over the rows), links coloured
and clickable, quotes indented, fenced code on a code background with
Pygments colours, LaTeX math (found by :mod:`app.core.display.math_spans`
outside code) marked as :class:`MathRun` for the view to set as a formula.
Block structure comes from markdown-it-py's block tokens and their source
line maps; inline styles are found by aligning markdown-it's inline children
with the source, in order.

Streaming cost stays bounded: :func:`layout` works on a slice of the reply
that starts at the last top-level block (the earlier blocks can no longer
change), and a code block is lexed only over its last few lines.

Qt-free, so it is tested on hand-written Markdown without a display.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.styles import get_style_by_name
from pygments.token import _TokenType
from pygments.util import ClassNotFound

from app.core.display import markdown_table
from app.core.display.math_spans import find_math

# How many lines of an open code block are lexed again for colours on each step:
# enough for the usual multi-line strings and comments, and a bounded cost.
LEX_WINDOW_LINES = 40


class Char(enum.IntFlag):
    """Inline style of one character."""

    NONE = 0
    BOLD = 1
    ITALIC = 2
    CODE = 4  # inline code
    LINK = 8
    MARKUP = 16  # Markdown syntax, drawn muted
    STRIKE = 32


class LineKind(enum.Enum):
    """What a source line is part of."""

    TEXT = "text"
    HEADING = "heading"
    FENCE = "fence"  # the ``` lines themselves
    CODE = "code"  # inside a fenced or indented code block
    TABLE = "table"
    TABLE_HEADER = "table-header"  # a table's first row: bold
    TABLE_RULE = "table-rule"  # the |---|:-:| line
    RULE = "rule"  # a thematic break


@dataclass(frozen=True, slots=True)
class MathRun:
    """Columns ``begin:end`` of a line that are part of a formula's source.

    On the line where the formula starts, ``latex`` is set and the run says
    where the formula's source ends: ``end_line`` lines further down (0: on
    this line), at column ``end_column``. On the lines a display formula runs
    on to, ``latex`` is empty: those columns are drawn by the first line's
    formula.
    """

    begin: int
    end: int
    latex: str = ""
    display: bool = False
    end_line: int = 0
    end_column: int = 0
    source: str = ""  # the formula's whole source, delimiters included (on the first line's run)


@dataclass(slots=True)
class LineLayout:
    """One source line (without its newline) and how to set it."""

    text: str
    kind: LineKind = LineKind.TEXT
    level: int = 0  # heading level
    quote: int = 0  # block quote depth
    styles: list[Char] = field(default_factory=list)
    colours: list[str] | None = None  # per character, code only: "#rrggbb" or ""
    links: list[tuple[int, int, str]] = field(default_factory=list)  # start, end, href
    padding: list[tuple[int, int]] = field(default_factory=list)  # (insert before offset, spaces): table alignment
    fence_info: str | None = None  # on an opening fence line: the language
    claimed: list[bool] = field(default_factory=list)  # characters an inline token shows as content
    grid: bool = False  # a table row whose cells are padded into the columns: the view draws its grid lines
    math: list[MathRun] = field(default_factory=list)  # formulas' sources on this line, in order
    inside_math: bool = False  # the whole line, from its line break on, belongs to a formula drawn above it
    math_block: bool = False  # the line holds only a display formula: the view centres it


@dataclass(slots=True)
class Layout:
    """The layout of a slice of the reply, from line ``first_line`` on."""

    first_line: int
    lines: list[LineLayout]
    open_block_line: int  # absolute line where the last top-level block starts: layout from there next time
    open_fence: bool  # the last block is a code fence
    leaf_line: int  # absolute line where the last leaf block (paragraph, heading, code, table) starts


def markdown() -> MarkdownIt:
    """The parser: CommonMark with tables and strikethrough, as chat models write them."""
    return MarkdownIt("commonmark").enable("table").enable("strikethrough")


_PARSER = markdown()
# Blocks whose look depends only on their own lines: earlier ones are final once a later one starts.
# (Cells are inline, so a table is one leaf: its padding depends on all its rows.)
_LEAVES = frozenset({"paragraph_open", "heading_open", "fence", "code_block", "hr", "html_block", "table_open"})


def fenced_code_blocks(text: str) -> list[tuple[int, str, str]]:
    """Every fenced code block of ``text``: (opening line, language, raw code), for the copy actions."""
    return [
        (token.map[0] if token.map else -1, token.info.strip(), token.content)
        for token in _PARSER.parse(text)
        if token.type == "fence"
    ]


def layout(text: str, first_line: int = 0, lex_from_line: int = 0, dark: bool = False) -> Layout:
    """Lay out ``text``, the reply from its line ``first_line`` on (``text`` starts at that line).

    ``lex_from_line`` (absolute) bounds the syntax-highlighting work: code lines
    before it are not coloured (the caller does not redraw them).
    """
    sources = text.split("\n")
    lines = [LineLayout(line, styles=[Char.NONE] * len(line), claimed=[False] * len(line)) for line in sources]
    starts = _line_starts(sources)
    tokens = _PARSER.parse(text)
    open_block = 0
    open_fence = False
    leaf = 0
    quote = 0
    heading = 0
    resume: dict[int, int] = {}  # table cells share a row: each cell's search starts after the last
    paragraphs: list[tuple[int, int]] = []  # (first, last) lines of each inline run outside tables
    for token in tokens:
        if token.level == 0 and token.map is not None and token.nesting >= 0:
            open_block = token.map[0]
            open_fence = token.type == "fence"
        if token.type in _LEAVES and token.map is not None:
            leaf = token.map[0]
        if token.type == "blockquote_open":
            quote += 1
            _mark(lines, token, functools.partial(_set_quote, depth=quote))
        elif token.type == "blockquote_close":
            quote -= 1
        elif token.type == "heading_open":
            heading = int(token.tag[1:])
            _mark(lines, token, functools.partial(_set_kind, kind=LineKind.HEADING, level=heading))
        elif token.type == "heading_close":
            heading = 0
        elif token.type == "table_open":
            _table(lines, token, open_end=not text.endswith("\n"))
        elif token.type == "hr":
            _mark(lines, token, functools.partial(_set_kind, kind=LineKind.RULE))
        elif token.type in ("fence", "code_block"):
            _code(lines, token, first_line, lex_from_line, dark)
        elif token.type == "inline" and token.map is not None:
            _inline(lines, starts, text, token, resume)
            if lines[token.map[0]].kind in (LineKind.TEXT, LineKind.HEADING):
                paragraphs.append((token.map[0], min(token.map[1], len(lines)) - 1))
    for first, last in paragraphs:
        _math(lines, starts, text, first, last)
    # Everything outside what an inline token claimed as content is syntax: mute it.
    for line in lines:
        if line.kind is LineKind.CODE:
            continue
        for column, claimed in enumerate(line.claimed):
            if not claimed:
                line.styles[column] |= Char.MARKUP
    return Layout(first_line, lines, first_line + open_block, open_fence, first_line + leaf)


def _line_starts(lines: list[str]) -> list[int]:
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    return starts


def _set_quote(line: LineLayout, depth: int) -> None:
    line.quote = max(line.quote, depth)


def _set_kind(line: LineLayout, kind: LineKind, level: int = 0) -> None:
    line.kind = kind
    line.level = level


def _mark(lines: list[LineLayout], token: Token, apply: Callable[[LineLayout], None]) -> None:
    if token.map is None:
        return
    start, end = token.map
    for line in lines[start : min(end, len(lines))]:
        apply(line)


def _table(lines: list[LineLayout], token: Token, open_end: bool) -> None:
    """Table lines in the code font, a grid: each cell padded to its column's width and alignment.

    ``open_end``: the text ends without a newline (a streaming reply), so its
    last row may be half written and is left unpadded until it has its cells.
    """
    if token.map is None:
        return
    start, end = token.map
    end = min(end, len(lines))
    rows = lines[start:end]
    table = markdown_table.grid([row.text for row in rows], last_is_open=open_end and end == len(lines))
    if table is None:
        return
    for index, row in enumerate(rows):
        row.kind = LineKind.TABLE_RULE if index == 1 else LineKind.TABLE_HEADER if index == 0 else LineKind.TABLE
        row.padding = markdown_table.padding(table, index)
        row.grid = table.complete[index]
        for pipe in markdown_table.pipes(row.text):
            if 0 <= pipe < len(row.text):
                row.styles[pipe] |= Char.MARKUP


def _code(lines: list[LineLayout], token: Token, first_line: int, lex_from_line: int, dark: bool) -> None:
    if token.map is None:
        return
    start, end = token.map
    end = min(end, len(lines))
    fenced = token.type == "fence"
    body_start = start + 1 if fenced else start
    body_end = end
    if fenced:
        lines[start].kind = LineKind.FENCE
        lines[start].fence_info = token.info.strip()
        closing = lines[end - 1].text.strip() if end - 1 > start else ""
        if end - 1 > start and closing.startswith(token.markup[:3]) and set(closing) <= set(token.markup[:1]):
            lines[end - 1].kind = LineKind.FENCE
            body_end = end - 1
    for line in lines[body_start:body_end]:
        line.kind = LineKind.CODE
        line.styles = [Char.NONE] * len(line.text)
    lexer = _lexer(token.info.strip()) if fenced else None
    if lexer is None:
        return
    lex_start = max(body_start, lex_from_line - first_line - LEX_WINDOW_LINES // 2)
    body = lines[lex_start:body_end]
    if not body:
        return
    colours = _colours(lexer, "\n".join(line.text for line in body), dark)
    offset = 0
    for line in body:
        line.colours = colours[offset : offset + len(line.text)]
        offset += len(line.text) + 1


_LEXERS: dict[str, Lexer | None] = {}


def _lexer(info: str) -> Lexer | None:
    name = info.split()[0].lower() if info.split() else ""
    if not name:
        return None
    if name not in _LEXERS:
        try:
            _LEXERS[name] = get_lexer_by_name(name, stripnl=False, ensurenl=False)
        except ClassNotFound:
            _LEXERS[name] = None
    return _LEXERS[name]


_STYLE_COLOURS: dict[tuple[bool, _TokenType], str] = {}


def _colours(lexer: Lexer, code: str, dark: bool) -> list[str]:
    """A colour per character of ``code`` ("" where the text colour applies)."""
    style = get_style_by_name("monokai" if dark else "default")
    out: list[str] = []
    for kind, value in lexer.get_tokens(code):
        key = (dark, kind)
        if key not in _STYLE_COLOURS:
            colour = style.style_for_token(kind)["color"]
            _STYLE_COLOURS[key] = f"#{colour}" if colour else ""
        out.extend([_STYLE_COLOURS[key]] * len(value))
    # Lexers may add or drop a final newline: the caller indexes by character.
    return (out + [""] * len(code))[: len(code)]


_STYLE_OF_OPEN = {
    "strong_open": Char.BOLD,
    "em_open": Char.ITALIC,
    "s_open": Char.STRIKE,
    "link_open": Char.LINK,
}
_STYLE_OF_CLOSE = {name.replace("_open", "_close"): style for name, style in _STYLE_OF_OPEN.items()}


def _inline(lines: list[LineLayout], starts: list[int], text: str, token: Token, resume: dict[int, int]) -> None:
    """Align the inline children with the source and set each character's style; the rest is markup."""
    assert token.map is not None
    first, last = token.map[0], min(token.map[1], len(lines)) - 1
    if first > last:
        return
    region_start, region_end = starts[first], starts[last] + len(lines[last].text)
    cursor = resume.get(region_start, region_start)
    style = Char.NONE
    href = ""
    for child in token.children or []:
        kind = child.type
        if kind in _STYLE_OF_OPEN:
            style |= _STYLE_OF_OPEN[kind]
            if kind == "link_open":
                href = str(child.attrGet("href") or "")
            continue
        if kind in _STYLE_OF_CLOSE:
            style &= ~_STYLE_OF_CLOSE[kind]
            if kind == "link_close":
                cursor = _after_destination(text, cursor, region_end, href)
            continue
        if kind in ("softbreak", "hardbreak"):
            newline = text.find("\n", cursor, region_end + 1)
            cursor = newline + 1 if newline != -1 else cursor
            continue
        content = child.content
        if not content:
            continue
        piece_style = style | (Char.CODE if kind == "code_inline" else Char.NONE)
        for offset in _align(text, content, cursor, region_end):
            line, column = _locate(starts, offset)
            lines[line].claimed[column] = True
            lines[line].styles[column] = piece_style
            if piece_style & Char.LINK:
                _add_link(lines[line], column, href)
            cursor = offset + 1
    resume[region_start] = cursor


def _after_destination(text: str, cursor: int, limit: int, href: str) -> int:
    """Skip an inline link's ``](destination "title")``: its text must not match what follows the link."""
    if not text.startswith("](", cursor):
        return cursor  # a reference or autolink: nothing to skip
    found = text.find(href, cursor, limit) if href else -1
    start = found + len(href) if found != -1 else cursor + 2
    close = text.find(")", start, limit)
    return close + 1 if close != -1 else cursor


def _align(text: str, content: str, cursor: int, limit: int) -> list[int]:
    """Source offsets of the characters of ``content``, found in order from ``cursor``."""
    found = text.find(content, cursor, limit)
    # The whole piece verbatim, close by: the usual case (nothing but markup before it).
    if found != -1 and "\n" not in text[cursor:found]:
        return list(range(found, found + len(content)))
    # Escapes and entities change the text (\* is "*", &amp; is "&"): match character by character.
    offsets: list[int] = []
    for char in content:
        hit = text.find(char, cursor, limit)
        if hit == -1:
            break
        offsets.append(hit)
        cursor = hit + 1
    return offsets


def _locate(starts: list[int], offset: int) -> tuple[int, int]:
    """(line, column) of a text offset."""
    low, high = 0, len(starts) - 1
    while low < high - 1:
        middle = (low + high) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle
    return low, offset - starts[low]


def _math(lines: list[LineLayout], starts: list[int], text: str, first: int, last: int) -> None:
    """Mark the formulas of the paragraph on lines ``first..last``; math inside inline code stays code."""
    if first > last:
        return
    region_start = starts[first]
    region = text[region_start : starts[last] + len(lines[last].text)]
    for span in find_math(region):
        start_line, start_column = _locate(starts, region_start + span.start)
        end_line, end_column = _locate(starts, region_start + span.end)
        covered = [
            style
            for number in range(start_line, end_line + 1)
            for column, style in enumerate(lines[number].styles)
            if (number > start_line or column >= start_column) and (number < end_line or column < end_column)
        ]
        if any(style & Char.CODE for style in covered):
            continue
        head = lines[start_line]
        head.math.append(
            MathRun(
                begin=start_column,
                end=end_column if end_line == start_line else len(head.text),
                latex=span.latex,
                display=span.display,
                end_line=end_line - start_line,
                end_column=end_column,
                source=region[span.start : span.end],
            )
        )
        for number in range(start_line + 1, end_line + 1):
            line = lines[number]
            stop = end_column if number == end_line else len(line.text)
            line.math.append(MathRun(begin=0, end=stop))
            line.inside_math = stop == len(line.text)
        tail = lines[end_line].text[end_column:]
        head.math_block = span.display and not head.text[:start_column].strip() and not tail.strip()


def _add_link(line: LineLayout, column: int, href: str) -> None:
    if line.links and line.links[-1][1] == column and line.links[-1][2] == href:
        start, _, _ = line.links[-1]
        line.links[-1] = (start, column + 1, href)
    else:
        line.links.append((column, column + 1, href))
