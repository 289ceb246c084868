"""GFM table rows as pure data: where each cell's content sits, each column's alignment, its tokens.

The chat view sets a Markdown table as a grid of aligned columns while every
character stays the reply's own (so each keeps its token's origin tint and
hover card). This module does the part that needs no display: a row split at
its cell-separating pipes (an escaped pipe or one inside inline code is text),
the alignment row (``|---|:---:|---:|``) read into one :class:`Align` per
column, the padding each cell needs for its column's width and alignment, and
which tokens of the reply wrote a cell's content.

Offsets are columns of the row's own text; padding is filler the view inserts
and never part of the reply.
"""

from __future__ import annotations

import enum
import itertools
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

_RULE_CELL = re.compile(r"^\s*(:?)-+(:?)\s*$")


class Align(enum.Enum):
    """How a column's cells sit in its width."""

    LEFT = "left"  # also the default when the rule says nothing
    CENTER = "center"
    RIGHT = "right"


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of a row: the span between its pipes and its content without the spaces around it."""

    start: int  # first column after the opening pipe (0 where the row has none)
    end: int  # column of the closing pipe (the row's length where there is none)
    content_start: int
    content_end: int

    @property
    def content_width(self) -> int:
        """How many characters the content takes."""
        return self.content_end - self.content_start


def pipes(text: str) -> list[int]:
    """Columns of the cell-separating pipes of a row (not escaped, not inside inline code).

    A row without a leading pipe gets a virtual one at -1, so consecutive
    pipes always enclose a cell.
    """
    found: list[int] = []
    in_code = False
    escaped = False
    for offset, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "`":
            in_code = not in_code
        elif char == "|" and not in_code:
            found.append(offset)
    if not text.lstrip().startswith("|"):
        found.insert(0, -1)
    return found


def split_row(text: str) -> list[Cell]:
    """The cells of a table row, left to right (a trailing part after the last pipe is a cell if not blank)."""
    bounds = pipes(text)
    if text[bounds[-1] + 1 :].strip():  # never empty: a row without a leading pipe has the virtual one
        bounds = [*bounds, len(text)]  # no closing pipe: the last cell runs to the end of the line
    cells: list[Cell] = []
    for left, right in itertools.pairwise(bounds):
        start = left + 1
        inner = text[start:right]
        stripped = inner.strip()
        lead = len(inner) - len(inner.lstrip())
        content_start = start + lead if stripped else start
        cells.append(Cell(start, right, content_start, content_start + len(stripped)))
    return cells


def alignments(rule: str) -> list[Align] | None:
    """The columns' alignments from a table's second line, or None if it is not an alignment row."""
    cells = split_row(rule)
    if not cells:
        return None
    out: list[Align] = []
    for cell in cells:
        match = _RULE_CELL.match(rule[cell.start : cell.end])
        if match is None:
            return None
        left, right = bool(match.group(1)), bool(match.group(2))
        out.append(Align.CENTER if left and right else Align.RIGHT if right else Align.LEFT)
    return out


@dataclass(frozen=True, slots=True)
class TableGrid:
    """A table's rows split into cells, with each column's alignment and content width."""

    rows: list[list[Cell]]  # header, alignment row, body rows
    aligns: list[Align]
    widths: list[int]  # per column: the widest content
    complete: list[bool]  # per row: counts for the widths and is padded (a streaming last row may not)


def grid(lines: list[str], last_is_open: bool = False) -> TableGrid | None:
    """The grid of a table's source lines (header, alignment row, body rows), or None without an alignment row.

    ``last_is_open``: the last line may still grow (the reply is streaming and
    no newline has ended it); while it has fewer cells than the header it is
    left out of the widths and not padded, so the table does not jump about.
    """
    if len(lines) < 2:
        return None
    aligns = alignments(lines[1])
    if aligns is None:
        return None
    rows = [split_row(line) for line in lines]
    header_count = len(rows[0])
    complete = [True] * len(rows)
    if last_is_open and len(rows) > 2 and len(rows[-1]) < header_count:
        complete[-1] = False
    widths = [0] * header_count
    for index, row in enumerate(rows):
        if not complete[index]:
            continue
        for column, cell in enumerate(row[:header_count]):
            widths[column] = max(widths[column], cell.content_width)
    aligns = (aligns + [Align.LEFT] * header_count)[:header_count]
    return TableGrid(rows, aligns, widths, complete)


def padding(table: TableGrid, row: int) -> list[tuple[int, int]]:
    """(insert before column, spaces) for one row, so its cells line up in their columns' alignment.

    The spaces go before a cell's content (right and centred columns) and
    after it (left and centred), and make up for the space each row leaves
    around its content; the rule row's cells are filled after their dashes.
    """
    if not table.complete[row]:
        return []
    lead_widths, trail_widths = _margins(table)
    out: dict[int, int] = {}
    for column, cell in enumerate(table.rows[row][: len(table.widths)]):
        lead = cell.content_start - cell.start
        trail = cell.end - cell.content_end
        spare = table.widths[column] - cell.content_width
        align = Align.LEFT if row == 1 else table.aligns[column]
        before = spare if align is Align.RIGHT else spare // 2 if align is Align.CENTER else 0
        after = spare - before
        before += lead_widths[column] - lead
        after += trail_widths[column] - trail
        if before > 0:
            out[cell.content_start] = out.get(cell.content_start, 0) + before
        if after > 0:
            out[cell.content_end] = out.get(cell.content_end, 0) + after
    return sorted(out.items())


def _margins(table: TableGrid) -> tuple[list[int], list[int]]:
    """Per column, the widest space before and after the content among the rows that are padded."""
    count = len(table.widths)
    leads, trails = [0] * count, [0] * count
    for row, cells in enumerate(table.rows):
        if not table.complete[row]:
            continue
        for column, cell in enumerate(cells[:count]):
            leads[column] = max(leads[column], cell.content_start - cell.start)
            trails[column] = max(trails[column], cell.end - cell.content_end)
    return leads, trails


def cell_tokens(token_starts: list[int], row_start: int, cell: Cell) -> range:
    """Indices of the tokens that wrote the cell's content; ``token_starts`` is each token's reply offset.

    ``row_start`` is the reply offset of the row's first character. A token
    that starts before the cell but runs into it counts, as it wrote part of it.
    """
    begin, end = row_start + cell.content_start, row_start + cell.content_end
    if end <= begin:
        return range(0)
    first = max(0, bisect_right(token_starts, begin) - 1)
    last = bisect_left(token_starts, end)
    return range(first, last)
