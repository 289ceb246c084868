"""GFM table rows as data: cells, alignment, padding per alignment, the tokens of a cell."""

from __future__ import annotations

from app.core.display.markdown_table import Align, Cell, alignments, cell_tokens, grid, padding, split_row

TABLE = ["| Fruit | Count | Note |", "|:---|:---:|---:|", "| fig | 12 | sweet |", "| apple | 3 | ok |"]


def _placed(text: str, pads: list[tuple[int, int]]) -> str:
    """The row as drawn: the padding inserted as '.' so tests can see it."""
    out, at = [], dict(pads)
    for offset, char in enumerate(text):
        out.append("." * at.get(offset, 0) + char)
    return "".join(out) + "." * at.get(len(text), 0)


def test_a_row_splits_at_its_pipes_but_not_escaped_or_code_ones() -> None:
    text = r"| a \| b | `x|y` |  |"
    cells = split_row(text)
    assert [text[c.content_start : c.content_end] for c in cells] == [r"a \| b", "`x|y`", ""]
    assert cells[0] == Cell(1, 9, 2, 8)


def test_a_row_without_outer_pipes_still_has_its_cells() -> None:
    cells = split_row("a | b")
    assert [(c.content_start, c.content_end) for c in cells] == [(0, 1), (4, 5)]


def test_the_alignment_row_gives_each_column_its_alignment() -> None:
    assert alignments("|:---|:---:|---:|---|") == [Align.LEFT, Align.CENTER, Align.RIGHT, Align.LEFT]
    assert alignments("| a | b |") is None
    assert alignments("|--x|") is None


def test_no_alignment_row_means_no_table() -> None:
    assert grid(["| a | b |", "| c | d |"]) is None
    assert grid(["| a | b |"]) is None


def test_cells_are_padded_by_their_columns_alignment() -> None:
    table = grid(TABLE)
    assert table is not None
    assert table.aligns == [Align.LEFT, Align.CENTER, Align.RIGHT]
    assert table.widths == [5, 5, 5]
    drawn = [_placed(line, padding(table, row)) for row, line in enumerate(TABLE)]
    assert drawn[2] == "| fig.. | .12.. | sweet |"
    assert drawn[3] == "| apple | ..3.. | ...ok |"
    assert drawn[1] == "|.:---..|.:---:.|.---:..|"  # the rule row is filled after its dashes
    assert len({len(row) for row in drawn}) == 1
    # Every pipe lands in the same column on every row: a grid.
    assert len({tuple(i for i, c in enumerate(row) if c == "|") for row in drawn}) == 1


def test_rows_that_leave_different_space_around_their_content_still_line_up() -> None:
    lines = ["|a|b|", "|---|---|", "|  long  | x |"]
    table = grid(lines)
    assert table is not None
    drawn = [_placed(line, padding(table, row)) for row, line in enumerate(lines)]
    assert len({tuple(i for i, c in enumerate(row) if c == "|") for row in drawn}) == 1, drawn


def test_a_streaming_last_row_is_not_padded_until_it_has_all_its_cells() -> None:
    lines = [*TABLE[:3], "| a very long fruit name"]
    table = grid(lines, last_is_open=True)
    assert table is not None
    assert table.complete == [True, True, True, False]
    assert padding(table, 3) == []
    assert table.widths[0] == 5  # the half-written row does not widen the column yet
    finished = grid([*TABLE[:3], "| a very long fruit name | 1 | x |"], last_is_open=True)
    assert finished is not None and finished.complete[-1] and finished.widths[0] == len("a very long fruit name")


def test_a_cells_tokens_are_those_that_wrote_its_content() -> None:
    row = "| fig | 12 |"
    # Tokens: "| f", "ig |", " 1", "2 |"  at reply offsets 100, 103, 107, 109 (the row starts at 100).
    starts = [100, 103, 107, 109]
    first, second = split_row(row)
    assert list(cell_tokens(starts, 100, first)) == [0, 1]
    assert list(cell_tokens(starts, 100, second)) == [2, 3]
    assert list(cell_tokens(starts, 100, Cell(0, 1, 1, 1))) == []
