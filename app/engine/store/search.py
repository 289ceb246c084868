"""Full-text search across every chat: every term, anywhere, ignoring case and accents.

A query is split on white space into terms, and a message matches when it
contains every term anywhere (inside a word too: Japanese and Chinese have no
spaces to split on), compared in :func:`app.core.display.text_fold.fold`'s form, so
"creme" finds "crème" and "CRÈME". The FTS5 trigram index
(:mod:`app.engine.store.schema`) cannot answer that: SQLite 3.40's trigram
tokenizer keeps diacritics, so "creme" shares no trigram with "crème". Rather
than a second, folded index (a schema change), every message of the chats not
in the trash is folded and tested in Python, newest first, stopping at
``limit`` hits; the trigram index stays for whoever matches exact text.

Each hit's snippet is cut around the first match in Python, with every match
inside it wrapped in :data:`MATCH_START` / :data:`MATCH_END`; the window and
the CLI turn those into their own highlighting (:func:`snippet_parts`).
Conversations in the trash are never searched.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from app.core.display.text_fold import FoldedText, fold

# Control characters, so they can never occur in the text being highlighted.
MATCH_START = "\x02"
MATCH_END = "\x03"
_BEFORE = 40  # characters of context before the first match
_WIDTH = 160  # characters a snippet shows at most, matches included


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One message that matches: where it is, and a snippet with the matches marked."""

    conversation_id: int
    message_id: int
    title: str
    role: str
    snippet: str
    created: float


def terms_of(query: str) -> list[str]:
    """The query's terms: split on white space, each kept once."""
    return list(dict.fromkeys(query.split()))


def search(db: sqlite3.Connection, query: str, limit: int = 50) -> list[SearchHit]:
    """Messages of chats not in the trash that contain every term of ``query`` (folded), newest first."""
    terms = terms_of(query)
    folded_terms = [f for f in (fold(t) for t in terms) if f]
    if not folded_terms or limit <= 0:  # a term that folds to nothing (a lone accent) matches everything
        return []
    sql = (
        "SELECT m.id, m.conversation_id, m.role, m.content, m.created, c.title "
        "FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.deleted IS NULL AND m.content != '' "
        "ORDER BY m.created DESC, m.id DESC"
    )
    hits: list[SearchHit] = []
    for row in db.execute(sql):
        content = str(row[3])
        folded = fold(content)
        if not all(term in folded for term in folded_terms):
            continue
        hits.append(SearchHit(int(row[1]), int(row[0]), str(row[5]), str(row[2]), snippet(content, terms), row[4]))
        if len(hits) >= limit:
            break
    return hits


def snippet(text: str, terms: list[str]) -> str:
    """A one-line piece of ``text`` around the first match (accents and case ignored), every match in it marked."""
    flat = " ".join(text.split())
    spans = FoldedText.of(flat).spans(terms)
    first = spans[0][0] if spans else 0
    start = max(0, first - _BEFORE)
    if start:  # begin at a word boundary where there is one close by
        space = flat.find(" ", start, first)
        start = space + 1 if space != -1 else start
    stop = start + _WIDTH
    pieces: list[str] = []
    at = start
    for span_start, span_end in spans:
        if span_end <= start or span_start >= stop:
            continue
        span_start, span_end = max(span_start, start), min(span_end, stop)
        pieces.append(flat[at:span_start] + MATCH_START + flat[span_start:span_end] + MATCH_END)
        at = span_end
    pieces.append(flat[at:stop])
    return ("…" if start else "") + "".join(pieces) + ("…" if stop < len(flat) else "")


def snippet_parts(snippet_text: str) -> list[tuple[str, bool]]:
    """A snippet as (text, is_match) pieces, for whoever draws it."""
    parts: list[tuple[str, bool]] = []
    for i, piece in enumerate(re.split(f"[{MATCH_START}{MATCH_END}]", snippet_text)):
        if piece:
            parts.append((piece, i % 2 == 1))
    return parts
