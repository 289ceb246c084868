"""Which parts of a user's message are code: the code font for fences and backticks, nothing more.

Replies are set as full Markdown by :mod:`app.ui.chat.markdown_layout`; the
user's own messages stay plain text except for code. :class:`CodeTracker` follows the
text line by line: lines between ``` fences (the fence lines included) are a
code block, text between single backticks on one line is inline code. It
never looks back, so each piece keeps the kind it was given when it was shown.
"""

from __future__ import annotations

import enum

FENCE = "```"


class SpanKind(enum.Enum):
    """How a run of characters should be set."""

    TEXT = "text"
    INLINE_CODE = "inline"
    CODE_BLOCK = "block"


class CodeTracker:
    """Splits streamed text into runs of plain text, inline code and fenced code."""

    def __init__(self) -> None:
        self.in_fence = False
        self._line = ""
        self._in_inline = False

    def split(self, text: str) -> list[tuple[str, SpanKind]]:
        """The runs of ``text``, continuing from everything split before.

        Newlines are runs of their own, whose kind is that of the line they start.
        """
        runs: list[tuple[str, SpanKind]] = []
        for char in text:
            kind = self._classify(char)
            if char != "\n" and runs and runs[-1][1] is kind and runs[-1][0] != "\n":
                runs[-1] = (runs[-1][0] + char, kind)
            else:
                runs.append((char, kind))
        return runs

    def _classify(self, char: str) -> SpanKind:
        if char == "\n":
            if self._line.lstrip().startswith(FENCE):
                # An opening fence starts a block, the next fence line ends it.
                self.in_fence = not self.in_fence
            self._line = ""
            self._in_inline = False  # inline code never spans lines
            # A newline takes the kind of the line it starts: the view sets that block's background.
            return SpanKind.CODE_BLOCK if self.in_fence else SpanKind.TEXT
        self._line += char
        stripped = self._line.lstrip()
        if self.in_fence or stripped.startswith(FENCE):
            return SpanKind.CODE_BLOCK
        if stripped and FENCE.startswith(stripped):
            # "`" or "``" at the start of a line may still become a fence:
            # set it in the code font, but do not claim the whole line yet.
            self._in_inline = True
            return SpanKind.INLINE_CODE
        if char == "`":
            self._in_inline = not self._in_inline
            return SpanKind.INLINE_CODE
        return SpanKind.INLINE_CODE if self._in_inline else SpanKind.TEXT
