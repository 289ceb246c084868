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


def split_at_specials(segments: Sequence[Segment], specials: Sequence[tuple[str, int]]) -> list[str | int]:
    """Plain text runs and special token ids, specials found only in the template's own text.

    ``specials`` are (text, token id) pairs. As in llama.cpp's tokenizer, the
    longest special is looked for first and every occurrence is cut out, then
    the next longest in what remains. Adjacent plain runs (template text next
    to content) are joined, since llama.cpp tokenises the text between two
    special tokens as one piece.
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
    joined: list[str | int] = []
    for part in parts:
        if isinstance(part, int):
            joined.append(part)
        elif joined and isinstance(joined[-1], str):
            joined[-1] += part.text
        else:
            joined.append(part.text)
    return joined
