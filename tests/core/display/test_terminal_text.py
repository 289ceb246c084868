"""Control characters from stored or remote text are shown as escapes, never passed to the terminal."""

from __future__ import annotations

import json
import re

import pytest

from app.core.display.terminal_text import visible, visible_json

# What a terminal would obey: C0 but tab and newline, DEL, C1; and lone surrogates (which cannot be encoded).
_OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b]0;owned\x07title", "\\x1b]0;owned\\x07title"),  # OSC 0: the window title, ended by BEL
        ("\x1b]52;c;SGVsbG8=\x1b\\", "\\x1b]52;c;SGVsbG8=\\x1b\\"),  # OSC 52: a clipboard write, ended by ST
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # CSI: clear the screen, cursor home
        ("\x9b2J", "\\x9b2J"),  # the one-character C1 CSI
        ("\x9d0;t\x9c", "\\x9d0;t\\x9c"),  # C1 OSC and ST
        ("safe\rfake", "safe\\x0dfake"),  # a lone carriage return would print over the line
        ("abc\b\b\bxyz", "abc\\x08\\x08\\x08xyz"),
        ("nul\x00 del\x7f", "nul\\x00 del\\x7f"),
        ("lone \ud800 half", "lone \\ud800 half"),
        ("lines\nand\ttabs\r\n", "lines\nand\ttabs\r\n"),  # layout kept, CRLF too
        ("日本語 🎨 é", "日本語 🎨 é"),
        ("", ""),
    ],
)
def test_visible_escapes_what_a_terminal_obeys(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert not _OBEYED.search(visible(text).replace("\r\n", "\n"))


def test_every_code_point_below_0x100_is_kept_or_escaped_alone() -> None:
    for code in range(0x100):
        char = chr(code)
        expected = char if char in "\t\n" or 0x20 <= code < 0x7F or code > 0x9F else f"\\x{code:02x}"
        assert visible(char) == expected, hex(code)


def test_a_sequence_split_across_streamed_pieces_is_defused_piece_by_piece() -> None:
    pieces = ["hello \x1b", "]52;c;", "SGVsbG8=", "\x07 bye"]
    joined = "".join(visible(p) for p in pieces)
    assert joined == visible("".join(pieces)) and "\x1b" not in joined and "\x07" not in joined


def test_visible_json_keeps_the_values_and_escapes_raw_controls() -> None:
    value = {"title": "\x1b]0;x\x07", "c1": "\x9b2J\x85", "lines": "\u2028\u2029", "text": "日本語 ok"}
    dumped = visible_json(json.dumps(value, ensure_ascii=False))
    assert json.loads(dumped) == value
    assert not _OBEYED.search(dumped) and "\u2028" not in dumped and "日本語" in dumped
