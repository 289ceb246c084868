"""Full-text search across every chat: the FTS5 trigram index for words of three characters or more, a scan below.

A query is split on white space into terms, and a message matches when it
contains every term, case-insensitively, anywhere (inside a word too: Japanese
and Chinese have no spaces to split on). Terms of three or more characters go
to the trigram index (:mod:`app.engine.store.schema`), which finds them in any
script; shorter ones (a two-character Japanese word, a single emoji) cannot be
looked up by trigrams and filter the candidates by a case-folded substring
test instead. A read-only store over a v1 file has no index and uses the
substring test for every term.

Each hit's snippet is cut around the first match in Python, with every match
inside it wrapped in :data:`MATCH_START` / :data:`MATCH_END`; the window and
the CLI turn those into their own highlighting (:func:`snippet_parts`).
Conversations in the trash are never searched.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

# Control characters, so they can never occur in the text being highlighted.
MATCH_START = "\x02"
MATCH_END = "\x03"
_TRIGRAM = 3
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
    """Messages of chats not in the trash that contain every term of ``query``, newest first."""
    terms = terms_of(query)
    if not terms or limit <= 0:
        return []
    indexed = [t for t in terms if len(t) >= _TRIGRAM] if _has_index(db) else []
    scanned = [t.casefold() for t in terms if t not in indexed]
    sql = (
        "SELECT m.id, m.conversation_id, m.role, m.content, m.created, c.title "
        "FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.deleted IS NULL AND m.content != ''"
    )
    args: list[object] = []
    if indexed:
        sql += " AND m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)"
        args.append(" AND ".join('"' + t.replace('"', '""') + '"' for t in indexed))
    sql += " ORDER BY m.created DESC, m.id DESC"
    hits: list[SearchHit] = []
    for row in db.execute(sql, args):
        content = str(row[3])
        if scanned:
            folded = content.casefold()
            if not all(term in folded for term in scanned):
                continue
        hits.append(SearchHit(int(row[1]), int(row[0]), str(row[5]), str(row[2]), snippet(content, terms), row[4]))
        if len(hits) >= limit:
            break
    return hits


def snippet(text: str, terms: list[str]) -> str:
    """A one-line piece of ``text`` around the first match, every match in it marked."""
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    flat = " ".join(text.split())
    first = pattern.search(flat)
    start = 0 if first is None else max(0, first.start() - _BEFORE)
    if start:  # begin at a word boundary where there is one close by
        space = flat.find(" ", start, first.start() if first else start)
        start = space + 1 if space != -1 else start
    piece = flat[start : start + _WIDTH]
    marked = pattern.sub(lambda m: f"{MATCH_START}{m.group(0)}{MATCH_END}", piece)
    return ("…" if start else "") + marked + ("…" if start + _WIDTH < len(flat) else "")


def snippet_parts(snippet_text: str) -> list[tuple[str, bool]]:
    """A snippet as (text, is_match) pieces, for whoever draws it."""
    parts: list[tuple[str, bool]] = []
    for i, piece in enumerate(re.split(f"[{MATCH_START}{MATCH_END}]", snippet_text)):
        if piece:
            parts.append((piece, i % 2 == 1))
    return parts


def _has_index(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name='messages_fts'").fetchone() is not None
