"""Folding text for search: accents and case ignored, so "creme" finds "crème" and "CRÈME".

Each character is decomposed (NFKD), its combining marks dropped and the rest
case-folded. Folding one character at a time keeps a map from every folded
character back to the original one it came from, so a match found in the
folded text can be highlighted in the text as written.
"""

from __future__ import annotations

import sys
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    decomposed = unicodedata.normalize("NFKD", char)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


@cache
def _no_marks() -> dict[int, None]:
    """A :meth:`str.translate` table that drops every combining mark (built once, on first use)."""
    return {code: None for code in range(sys.maxunicode + 1) if unicodedata.combining(chr(code))}


def fold(text: str) -> str:
    """``text`` without accents (combining marks) and case-folded: the form search compares.

    The same as folding each character on its own (:class:`FoldedText`), done
    on the whole text at once because search folds every message it scans.
    """
    if text.isascii():  # most text: nothing to decompose
        return text.lower()
    return unicodedata.normalize("NFKD", text).translate(_no_marks()).casefold()


@dataclass(frozen=True, slots=True)
class FoldedText:
    """A text's folded form, with where each folded character came from in the original."""

    original: str
    folded: str
    origin: tuple[int, ...]  # origin[i]: the index in ``original`` of folded character i

    @classmethod
    def of(cls, text: str) -> FoldedText:
        """Fold ``text``, remembering each folded character's origin."""
        pieces: list[str] = []
        origin: list[int] = []
        for index, char in enumerate(text):
            piece = _fold_char(char)
            pieces.append(piece)
            origin.extend([index] * len(piece))
        return cls(text, "".join(pieces), tuple(origin))

    def contains(self, term: str) -> bool:
        """Whether the folded ``term`` occurs in the folded text (an empty term always does)."""
        return fold(term) in self.folded

    def spans(self, terms: list[str]) -> list[tuple[int, int]]:
        """Where any of ``terms`` occur, as (start, end) in the original text, in order, never overlapping.

        Longer terms win where two start at the same place.
        """
        folded_terms = sorted({f for f in (fold(t) for t in terms) if f}, key=len, reverse=True)
        found: list[tuple[int, int]] = []
        at = 0
        while at < len(self.folded) and folded_terms:
            best: tuple[int, int] | None = None
            for term in folded_terms:
                start = self.folded.find(term, at)
                if start != -1 and (best is None or start < best[0]):
                    best = (start, start + len(term))
            if best is None:
                break
            start, end = best
            found.append((self.origin[start], self.origin[end - 1] + 1))
            # Continue past the whole original character, so a ligature ("ﬁ" -> "fi") is not matched twice.
            at = end
            while at < len(self.folded) and self.origin[at] < found[-1][1]:
                at += 1
        return found
