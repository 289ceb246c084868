"""An attachment cut into passages for retrieval: a few hundred tokens each, along paragraphs and pages.

When an attachment does not fit in the context whole, the context planner
(:mod:`app.core.attachments.context`) puts in only the passages that best
answer the question. Passages follow the text's own boundaries: a page or a
file of a folder (its :class:`~app.core.attachments.record.Section`) is never
split across two chunks' starts, and inside one, paragraphs (blank lines) are
gathered until the next would pass ``max_tokens``. A paragraph longer than
that on its own is cut at line ends, and a line longer still at spaces, so
every chunk stays near the target size whatever the text looks like.

Each chunk keeps its ``start`` (a character offset into the attachment's text),
which is how it is cited ("report.pdf, p. 3") and how the store's FTS5 table
(``attachment_chunks``) keys it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from app.core.attachments.record import Attachment

# A passage of 300-500 tokens: long enough to carry an answer with its context, short enough
# that several fit beside a conversation in a 4k context.
MIN_CHUNK_TOKENS = 300
MAX_CHUNK_TOKENS = 500

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")

TokenCount = Callable[[str], int]


def approximate_tokens(text: str) -> int:
    """A tokenizer-free estimate (about four characters a token in English and code), never 0 for text."""
    return (len(text) + 3) // 4


@dataclass(frozen=True, slots=True)
class Chunk:
    """One passage of an attachment: where it starts in the text, its text, and how it is cited."""

    sha256: str  # the attachment's
    start: int  # character offset into the attachment's text
    text: str
    citation: str  # "report.pdf, p. 3"

    @property
    def end(self) -> int:
        """The offset just after the passage."""
        return self.start + len(self.text)


def chunk_attachment(
    attachment: Attachment,
    count: TokenCount = approximate_tokens,
    min_tokens: int = MIN_CHUNK_TOKENS,
    max_tokens: int = MAX_CHUNK_TOKENS,
) -> list[Chunk]:
    """The attachment's passages in text order (see the module's docstring); empty text gives none."""
    text = attachment.text
    chunks: list[Chunk] = []
    for low, high in _section_spans(attachment):
        for start, end in _gather(text, _pieces(text, low, high, count, max_tokens), count, min_tokens, max_tokens):
            passage = text[start:end]
            if passage.strip():
                chunks.append(Chunk(attachment.sha256, start, passage, attachment.cite(start)))
    return chunks


def _section_spans(attachment: Attachment) -> list[tuple[int, int]]:
    """(start, end) of each page or file; the whole text when there are no sections."""
    size = len(attachment.text)
    starts = sorted({0, *(min(max(0, s.start), size) for s in attachment.sections)})
    return [(a, b) for a, b in zip(starts, [*starts[1:], size], strict=True) if b > a]


def _pieces(text: str, low: int, high: int, count: TokenCount, max_tokens: int) -> Iterator[tuple[int, int]]:
    """Spans of ``text[low:high]`` no longer than ``max_tokens`` each: paragraphs, else lines, else words."""
    start = low
    for match in _PARAGRAPH_BREAK.finditer(text, low, high):
        yield from _split_long(text, start, match.end(), count, max_tokens)
        start = match.end()
    if start < high:
        yield from _split_long(text, start, high, count, max_tokens)


def _split_long(text: str, start: int, end: int, count: TokenCount, max_tokens: int) -> Iterator[tuple[int, int]]:
    """``text[start:end]`` whole when it is short enough, else cut at line ends, then at spaces, then anywhere."""
    if count(text[start:end]) <= max_tokens:
        yield start, end
        return
    for separator in ("\n", " "):
        cuts = [i + 1 for i in range(start, end - 1) if text[i] == separator]
        if cuts:
            yield from _pack(text, [start, *cuts, end], count, max_tokens, separator)
            return
    # No separator at all (a minified line): fixed slices of about max_tokens' worth of characters.
    size = max(1, (end - start) * max_tokens // max(1, count(text[start:end])))
    for at in range(start, end, size):
        yield at, min(end, at + size)


def _pack(
    text: str, bounds: list[int], count: TokenCount, max_tokens: int, separator: str
) -> Iterator[tuple[int, int]]:
    """Consecutive spans between ``bounds`` joined while they stay under ``max_tokens``; a span too long is split."""
    start = bounds[0]
    for previous, bound in itertools.pairwise(bounds):
        if count(text[start:bound]) <= max_tokens:
            continue
        if previous > start:
            yield start, previous
            start = previous
        if count(text[start:bound]) > max_tokens:
            if separator == "\n":
                yield from _split_long(text, start, bound, count, max_tokens)
            else:
                size = max(1, (bound - start) * max_tokens // max(1, count(text[start:bound])))
                for at in range(start, bound, size):
                    yield at, min(bound, at + size)
            start = bound
    if start < bounds[-1]:
        yield start, bounds[-1]


def _gather(
    text: str, pieces: Iterator[tuple[int, int]], count: TokenCount, min_tokens: int, max_tokens: int
) -> Iterator[tuple[int, int]]:
    """Pieces joined into chunks: grown while under ``min_tokens``, never past ``max_tokens``."""
    start: int | None = None
    end = 0
    for a, b in pieces:
        if start is None:
            start, end = a, b
            continue
        current = count(text[start:end])
        if current >= min_tokens or count(text[start:b]) > max_tokens:
            yield start, end
            start = a
        end = b
    if start is not None:
        yield start, end
