"""A rendered chat prompt split into the template's own text and the messages' contents.

A chat template is text with special markers (``<|im_start|>``, ``<|eot_id|>``,
``<start_of_turn>``). Tokenising the whole rendered prompt with special tokens
parsed would let a message that *contains* such a marker open a real turn: a
pasted ``<|im_end|><|im_start|>system`` becomes a system instruction. So the
template is rendered with an unguessable marker in place of each message's
content, which tells exactly which characters the template wrote; only those
may become special tokens, and contents are tokenised as plain text.

Templates may transform contents (Llama 3 and Gemma ``trim`` them). A second
render with whitespace around each marker shows which sides the template
strips, and the result is checked against the render of the real messages.
A template that transforms contents in any other way (cutting at a tag, say)
fails that check; the contents are then used untransformed, still as plain
text, so the prompt can differ in whitespace but never gains a special token.

:func:`split_at_specials` then cuts the template's text at special-token
strings the way llama.cpp's tokenizer partitions text (longest token first),
so a harmless conversation tokenises exactly as the whole rendered text with
special parsing would.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from app.core.conversation.chat import Message

# Private-use code points around the marker: no tokenizer is asked to read them.
_OPEN, _CLOSE = "\ue000", "\ue001"
# Whitespace around the probe marker: what a template's ``trim`` would remove.
_PAD = " \n"


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of rendered prompt text: the template's own, or a message's content."""

    text: str
    is_content: bool


@dataclass(frozen=True, slots=True)
class _Occurrence:
    """Where one message's content appears in a render, and which sides the template strips."""

    message: int
    strip_left: bool = False
    strip_right: bool = False


def segment_prompt(render: Callable[[Sequence[Message]], str], messages: Sequence[Message]) -> list[Segment]:
    """``render(messages)`` as segments, contents marked; empty segments left out.

    ``render`` must be deterministic in the messages' contents (a template that
    reads the date renders the same within one call).
    """
    nonce = secrets.token_hex(8)
    pattern = re.compile(re.escape(_OPEN) + nonce + r":(\d+)" + re.escape(_CLOSE))

    def marked(pad: str) -> list[Message]:
        # Replaced, so tool calls and call ids render too; an empty content beside tool calls stays empty,
        # as templates test it (``if message.content``) to decide what to write around it.
        return [
            m if m.tool_calls and not m.content else replace(m, content=f"{pad}{_OPEN}{nonce}:{i}{_CLOSE}{pad}")
            for i, m in enumerate(messages)
        ]

    texts, occurrences = _parse(render(marked("")), pattern)
    padded_texts, padded = _parse(render(marked(_PAD)), pattern)
    if [o.message for o in padded] == [o.message for o in occurrences]:
        occurrences = _stripping(texts, padded_texts, occurrences)
    contents = [m.content for m in messages]
    segments = _assemble(texts, occurrences, contents, transform=True)
    if "".join(s.text for s in segments) != render(messages):
        # A transformation other than stripping: keep the contents whole rather than guess.
        segments = _assemble(texts, occurrences, contents, transform=False)
    return segments


def _parse(rendered: str, pattern: re.Pattern[str]) -> tuple[list[str], list[_Occurrence]]:
    """Template texts around the markers (one more than markers) and the markers' message indices."""
    texts: list[str] = []
    occurrences: list[_Occurrence] = []
    start = 0
    for match in pattern.finditer(rendered):
        texts.append(rendered[start : match.start()])
        occurrences.append(_Occurrence(int(match.group(1))))
        start = match.end()
    texts.append(rendered[start:])
    return texts, occurrences


def _stripping(texts: list[str], padded_texts: list[str], occurrences: list[_Occurrence]) -> list[_Occurrence]:
    """Which sides of each occurrence lost the padding, i.e. which sides the template strips."""
    n = len(occurrences)
    kept_right = [False] * n  # padding kept after occurrence k: it starts padded text k + 1
    kept_left = [False] * n  # padding kept before occurrence k: it ends padded text k
    for j, (plain, padded) in enumerate(zip(texts, padded_texts, strict=True)):
        after_previous, before_next = j > 0, j < n
        if before_next and padded == plain + _PAD:
            kept_left[j] = True  # preferred when ambiguous; the check against the real render has the last word
        elif after_previous and padded == _PAD + plain:
            kept_right[j - 1] = True
        elif after_previous and before_next and padded == _PAD + plain + _PAD:
            kept_right[j - 1] = kept_left[j] = True
    return [_Occurrence(o.message, not kept_left[k], not kept_right[k]) for k, o in enumerate(occurrences)]


def _assemble(
    texts: list[str], occurrences: list[_Occurrence], contents: list[str], *, transform: bool
) -> list[Segment]:
    segments: list[Segment] = []
    for k, occurrence in enumerate(occurrences):
        if texts[k]:
            segments.append(Segment(texts[k], False))
        content = contents[occurrence.message]
        if transform and occurrence.strip_left:
            content = content.lstrip()
        if transform and occurrence.strip_right:
            content = content.rstrip()
        if content:
            segments.append(Segment(content, True))
    if texts[-1]:
        segments.append(Segment(texts[-1], False))
    return segments


def split_at_specials(
    segments: Sequence[Segment], specials: Sequence[tuple[str, int]], guarded: Sequence[str] = ()
) -> list[str | int]:
    """Plain text runs and special token ids, specials found only in the template's own text.

    ``specials`` are (text, token id) pairs. As in llama.cpp's tokenizer, the
    longest special is looked for first and every occurrence is cut out, then
    the next longest in what remains. Adjacent plain runs (template text next
    to content) are joined, since llama.cpp tokenises the text between two
    special tokens as one piece.

    ``guarded`` are texts the tokenizer turns into their own tokens even in
    plain text (user-defined tokens such as ``<tool_call>``). A run where one of
    them would take in a content's characters comes back as several adjacent
    runs (:func:`guard_plain_text`), each to be tokenised apart.
    """
    parts: list[int | Segment] = [s for s in segments if s.text]
    for text, token in sorted((s for s in specials if s[0]), key=lambda s: len(s[0]), reverse=True):
        cut: list[int | Segment] = []
        for part in parts:
            if not isinstance(part, Segment) or part.is_content or text not in part.text:
                cut.append(part)
                continue
            pieces = part.text.split(text)
            for i, piece in enumerate(pieces):
                if i:
                    cut.append(token)
                if piece:
                    cut.append(Segment(piece, False))
        parts = cut
    # Runs joined (a special token id between them), each with where its contents lie: (start, end) spans.
    runs: list[list[str] | int] = []
    contents: list[list[tuple[int, int]]] = []
    length = 0  # of the run being joined
    for part in parts:
        if isinstance(part, int):
            runs.append(part)
            contents.append([])
            continue
        last = runs[-1] if runs else 0
        if isinstance(last, int):
            last, length = [], 0
            runs.append(last)
            contents.append([])
        if part.is_content:
            contents[-1].append((length, length + len(part.text)))
        last.append(part.text)
        length += len(part.text)
    result: list[str | int] = []
    for run, spans in zip(runs, contents, strict=True):
        result.extend([run] if isinstance(run, int) else guard_plain_text("".join(run), spans, guarded))
    return result


def guard_plain_text(text: str, contents: Sequence[tuple[int, int]], guarded: Sequence[str]) -> list[str]:
    """``text`` in pieces to tokenise apart, so that no ``guarded`` text that takes in a content stays whole.

    ``contents`` are the (start, end) character spans of untrusted text. The
    tokenizer's matching is followed (longest guarded text first, every
    occurrence, then the next longest in what remains); each occurrence that
    overlaps a content is cut after its first character, and the search runs
    again on the pieces until none is left. Template text that holds a guarded
    text whole keeps it. A one-character text cannot be cut and is not guarded.
    """
    ordered = sorted({g for g in guarded if len(g) > 1}, key=len, reverse=True)
    if not contents or not any(g in text for g in ordered):
        return [text]
    cuts: list[int] = []
    while (hit := _guarded_hit(text, cuts, contents, ordered)) is not None:
        cuts = sorted([*cuts, hit + 1])
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in pairwise(bounds) if b > a]


def _guarded_hit(
    text: str, cuts: Sequence[int], contents: Sequence[tuple[int, int]], ordered: Sequence[str]
) -> int | None:
    """Where the first occurrence that overlaps a content starts, with ``text`` already cut at ``cuts``."""
    bounds = [0, *cuts, len(text)]
    free = [(a, b) for a, b in pairwise(bounds) if b > a]  # not yet matched
    for guard in ordered:
        still: list[tuple[int, int]] = []
        for start, end in free:
            at = text.find(guard, start, end)
            while at >= 0:
                stop = at + len(guard)
                if any(at < b and a < stop for a, b in contents):
                    return at
                if at > start:
                    still.append((start, at))
                start = stop
                at = text.find(guard, start, end)
            if end > start:
                still.append((start, end))
        free = still
    return None
