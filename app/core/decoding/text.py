"""Token bytes to text: incremental UTF-8 decoding and stop strings.

A token can carry part of a multi-byte character, so text is decoded with an
incremental decoder that holds incomplete bytes until the next token.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Sequence


class IncrementalDetokenizer:
    """Turns a stream of token ids into text pieces that never split a character."""

    def __init__(self, token_bytes: Callable[[int], bytes]) -> None:
        self._token_bytes = token_bytes
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def piece(self, token: int) -> str:
        """Text completed by ``token`` (may be empty while a character is incomplete)."""
        return self._decoder.decode(self._token_bytes(token))

    def flush(self) -> str:
        """Whatever is still buffered, as replacement characters if incomplete."""
        return self._decoder.decode(b"", final=True)


def standalone_text(token_bytes: Callable[[int], bytes], token: int) -> str:
    """A single token's text out of context, for tooltips and ghost text."""
    return token_bytes(token).decode("utf-8", errors="replace")


def find_stop(text: str, stops: Sequence[str], search_from: int) -> int:
    """Index of the earliest stop string that ends after ``search_from``, or -1."""
    best = -1
    for stop in stops:
        if not stop:
            continue
        start = max(0, search_from - len(stop) + 1)
        index = text.find(stop, start)
        if index != -1 and (best == -1 or index < best):
            best = index
    return best
