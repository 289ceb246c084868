"""The Markdown layout of a reply, on hand-written Markdown (no display needed)."""

from __future__ import annotations

from app.ui.chat.view.markdown_layout import LEX_WINDOW_LINES, Char, LineKind, LineLayout, fenced_code_blocks, layout


def _marks(line) -> str:
    """One letter per character: m markup, b bold, i italic, c inline code, l link, . plain."""
    out = []
    for style in line.styles:
        if style & Char.MARKUP:
            out.append("m")
        elif style & Char.BOLD:
            out.append("b")
        elif style & Char.ITALIC:
            out.append("i")
        elif style & Char.CODE:
            out.append("c")
        elif style & Char.LINK:
            out.append("l")
        else:
            out.append(".")
    return "".join(out)


def test_headings_emphasis_inline_code_and_links() -> None:
    lines = layout("## Plan **now**\nSome *em*, `x` and [docs](https://example.org).").lines
    assert lines[0].kind is LineKind.HEADING and lines[0].level == 2
    assert _marks(lines[0]) == "mmm" + "....." + "mm" + "bbb" + "mm"
    assert _marks(lines[1]) == "....." + "miim" + ".." + "mcm" + "....." + "mllllm" + "m" * 21 + "."
    assert lines[1].links == [(20, 24, "https://example.org")]


def test_escapes_and_entities_are_markup_around_the_text_they_stand_for() -> None:
    (line,) = layout("a \\* b &amp; c").lines
    assert _marks(line) == "..m....." + "mmmm" + ".."


def test_lists_and_quotes_mute_their_markers() -> None:
    lines = layout("- one\n  - two\n> said\n> more").lines
    assert _marks(lines[0]) == "mm..." and _marks(lines[1]) == "mmmm..."
    assert [line.quote for line in lines] == [0, 0, 1, 1]
    assert _marks(lines[2]) == "mm...."


def _drawn(line: LineLayout) -> str:
    """The line as the view draws it, its padding shown as '.'."""
    pads = dict(line.padding)
    return "".join("." * pads.get(i, 0) + c for i, c in enumerate(line.text)) + "." * pads.get(len(line.text), 0)


def test_table_columns_are_aligned_with_padding_before_each_pipe() -> None:
    lines = layout("| Fruit | Colour |\n|---|---|\n| apple | red |\n| **fig** | |").lines
    kinds = [LineKind.TABLE_HEADER, LineKind.TABLE_RULE, LineKind.TABLE, LineKind.TABLE]
    assert [line.kind for line in lines] == kinds
    widths = []
    for line in lines:
        # Where each pipe lands once the padding is inserted.
        pads = dict(line.padding)
        shift, positions = 0, []
        for offset, char in enumerate(line.text):
            shift += pads.get(offset, 0)
            if char == "|":
                positions.append(offset + shift)
        widths.append(positions)
    assert all(p == widths[0] for p in widths), widths
    assert _marks(lines[3]) == "mmmm" + "bbb" + "mmmmmm"
    assert _marks(lines[2]) == "mm" + "....." + "mmm" + "..." + "mm"


def test_table_cells_sit_in_their_columns_alignment() -> None:
    lines = layout("| Item | Qty | Price |\n|:-:|--:|:--|\n| fig | 12 | 1.50 |\n| kiwi | 3 | 10 |").lines
    drawn = [_drawn(line) for line in lines]
    assert drawn[2] == "| fig. | .12 | 1.50. |"  # centred: the odd space goes after
    assert drawn[3] == "| kiwi | ..3 | 10... |"
    assert len({tuple(i for i, c in enumerate(row) if c == "|") for row in drawn}) == 1, drawn


def test_a_table_streaming_its_last_row_pads_only_the_rows_that_are_whole() -> None:
    text = "| Fruit | Colour |\n|---|---|\n| apple | red |\n| a long name"
    streaming = layout(text).lines
    assert streaming[3].kind is LineKind.TABLE and streaming[3].padding == []
    assert _drawn(streaming[2]) == "| apple | red... |"  # widths from the whole rows only
    # Before the alignment row arrives a table is text: nothing padded, nothing set as a grid.
    early = layout("| Fruit | Colour |\n| apple | red |").lines
    assert all(line.kind is LineKind.TEXT and not line.padding for line in early)


def test_fenced_code_is_coloured_by_its_language_and_the_fences_are_markup() -> None:
    lines = layout("Look:\n```python\ndef f():\n    return 1\n```\nok").lines
    assert [line.kind for line in lines] == [
        LineKind.TEXT,
        LineKind.FENCE,
        LineKind.CODE,
        LineKind.CODE,
        LineKind.FENCE,
        LineKind.TEXT,
    ]
    assert lines[1].fence_info == "python" and lines[4].fence_info is None
    assert set(_marks(lines[1])) == {"m"} and set(_marks(lines[2])) == {"."}
    keyword, name = lines[2].colours[0], lines[2].colours[4]
    assert keyword and name and keyword != name  # "def" and "f" in different Pygments colours
    assert lines[2].colours[:3] == [keyword] * 3


def test_an_unknown_language_or_no_language_is_left_uncoloured() -> None:
    lines = layout("```nosuchlang\nx\n```\n```\ny\n```").lines
    assert lines[1].kind is LineKind.CODE and lines[1].colours is None
    assert lines[4].kind is LineKind.CODE and lines[4].colours is None


def test_the_open_block_is_the_last_top_level_block() -> None:
    text = "Intro.\n\n- a\n- b\n\n```py\nx = 1\n"
    laid = layout(text)
    assert laid.open_block_line == 5 and laid.open_fence
    # Laid out from a later line, the result is offset by it.
    tail = layout("```py\nx = 1\n", first_line=5)
    assert tail.open_block_line == 5 and tail.open_fence
    assert layout("Intro.\n\n| a |\n|---|\n").open_block_line == 2


def test_code_colours_are_only_computed_near_the_lines_being_drawn() -> None:
    body = "\n".join(f"x{i} = {i}" for i in range(3 * LEX_WINDOW_LINES))
    lines = layout(f"```python\n{body}\n", lex_from_line=3 * LEX_WINDOW_LINES).lines
    coloured = [i for i, line in enumerate(lines) if line.colours is not None]
    assert coloured and coloured[0] > LEX_WINDOW_LINES and coloured[-1] == 3 * LEX_WINDOW_LINES


def test_fenced_code_blocks_give_the_raw_code_for_copying() -> None:
    text = "a\n```python\ndef f():\n    return 1\n```\nb\n```\nraw | text\n```\n"
    assert fenced_code_blocks(text) == [(1, "python", "def f():\n    return 1\n"), (6, "", "raw | text\n")]
