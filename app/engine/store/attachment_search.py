"""BM25 retrieval of attachment chunks with SQLite's FTS5: in the chat database, or in memory.

The context planner (:mod:`app.core.attachments.context`) asks a
:class:`~app.core.attachments.context.ChunkSearch` which chunks answer the
question best. Both searches here answer with FTS5's ``bm25()`` over a table
shaped like the store's ``attachment_chunks(text, attachment_id UNINDEXED,
start UNINDEXED)`` (tokenised with ``porter unicode61 remove_diacritics 2``):

* :class:`StoreChunkSearch` uses the chat database's own table, filled lazily:
  an attachment's chunks are written the first time it is searched (and
  written again if the chunking changed since). A read-only store, or an
  attachment the store does not hold, is searched in memory instead.
* :class:`FileChunkSearch` is the same through a connection of its own,
  for the window's engine thread.
* :class:`MemoryChunkSearch` keeps a private in-memory database for
  attachments that live in no store (``serve``'s, ``chat``'s one-off
  prompts), keeping the most recent few indexed between requests.

The query comes from :func:`app.core.attachments.query.fts_query`, which
quotes every word; a query FTS5 still refuses is answered with no ranking
(the planner then takes the chunks in text order), never an exception.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from app.core.attachments.chunks import Chunk

_CREATE = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS attachment_chunks USING fts5("
    "text, attachment_id UNINDEXED, start UNINDEXED, tokenize='porter unicode61 remove_diacritics 2')"
)
# Enough ranked chunks to fill any context with 300-500-token passages.
_MAX_RANKED = 1000
# How long a ranking on its own connection waits for the store's write in progress before searching in memory.
_BUSY_WAIT_S = 2.0


def _refresh(db: sqlite3.Connection, attachment_id: int, chunks: Sequence[Chunk]) -> None:
    """Make the table hold exactly ``chunks`` for ``attachment_id`` (written only when it does not yet)."""
    stored = {
        int(row[0]) for row in db.execute("SELECT start FROM attachment_chunks WHERE attachment_id=?", (attachment_id,))
    }
    if stored == {chunk.start for chunk in chunks}:
        return
    db.execute("DELETE FROM attachment_chunks WHERE attachment_id=?", (attachment_id,))
    db.executemany(
        "INSERT INTO attachment_chunks(text, attachment_id, start) VALUES (?, ?, ?)",
        [(chunk.text, attachment_id, chunk.start) for chunk in chunks],
    )


def _ranked(db: sqlite3.Connection, query: str, ids: dict[int, str], chunks: Sequence[Chunk]) -> list[int]:
    """Indices into ``chunks`` best first, by bm25 over the rows of the attachments in ``ids`` (id -> sha256)."""
    if not ids:
        return []
    index = {(chunk.sha256, chunk.start): i for i, chunk in enumerate(chunks)}
    marks = ",".join("?" * len(ids))
    try:
        rows = db.execute(
            f"SELECT attachment_id, start FROM attachment_chunks WHERE attachment_chunks MATCH ? "
            f"AND attachment_id IN ({marks}) ORDER BY bm25(attachment_chunks) LIMIT {_MAX_RANKED}",
            (query, *ids),
        ).fetchall()
    except sqlite3.OperationalError:
        return []  # a query FTS5 refuses: no ranking, the planner falls back to text order
    out = []
    for attachment_id, start in rows:
        found = index.get((ids.get(int(attachment_id), ""), int(start)))
        if found is not None:
            out.append(found)
    return out


def _by_attachment(chunks: Sequence[Chunk]) -> dict[str, list[Chunk]]:
    groups: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        groups.setdefault(chunk.sha256, []).append(chunk)
    return groups


class MemoryChunkSearch:
    """FTS5 in a private in-memory database, for attachments no store holds; safe to share between threads."""

    def __init__(self, keep: int = 16) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._db.execute(_CREATE)
        self._lock = threading.Lock()
        self._keep = keep
        self._ids: OrderedDict[str, int] = OrderedDict()  # sha256 -> id in the table, least recently used first
        self._next_id = 1

    def rank(self, query: str, chunks: Sequence[Chunk]) -> list[int]:
        """Indices into ``chunks`` of those matching ``query``, best first."""
        with self._lock:
            return _ranked(self._db, query, self._indexed(chunks), chunks)

    def index(self, chunks: Sequence[Chunk]) -> None:
        """Write ``chunks`` into the table now, so that a later :meth:`rank` over them only reads."""
        with self._lock:
            self._indexed(chunks)

    def _indexed(self, chunks: Sequence[Chunk]) -> dict[int, str]:
        """The table made to hold ``chunks`` (the least recently used attachments dropped); their ids -> sha256."""
        ids: dict[int, str] = {}
        for sha256, group in _by_attachment(chunks).items():
            attachment_id = self._ids.pop(sha256, None)
            if attachment_id is None:
                attachment_id, self._next_id = self._next_id, self._next_id + 1
            self._ids[sha256] = attachment_id
            _refresh(self._db, attachment_id, group)
            ids[attachment_id] = sha256
        while len(self._ids) > max(self._keep, len(ids)):
            _, old = self._ids.popitem(last=False)
            self._db.execute("DELETE FROM attachment_chunks WHERE attachment_id=?", (old,))
        return ids


class StoreChunkSearch:
    """FTS5 over the chat database's ``attachment_chunks``, filled the first time each attachment is searched.

    Use from the store's thread (the connection is the store's). Attachments
    the store does not hold, and every attachment of a read-only store, are
    searched in ``fallback`` (in memory).
    """

    def __init__(self, db: sqlite3.Connection, writable: bool, fallback: MemoryChunkSearch | None = None) -> None:
        self._db = db
        self._writable = writable
        self._fallback = fallback or MemoryChunkSearch()

    def rank(self, query: str, chunks: Sequence[Chunk]) -> list[int]:
        """Indices into ``chunks`` of those matching ``query``, best first (stored and unstored ones merged by rank)."""
        groups = _by_attachment(chunks)
        ids: dict[int, str] = {}
        if self._writable:
            for sha256, group in groups.items():
                row = self._db.execute("SELECT id FROM attachments WHERE sha256=?", (sha256,)).fetchone()
                if row is None:
                    continue
                try:
                    self._db.execute("SAVEPOINT attachment_chunks")
                    _refresh(self._db, int(row[0]), group)
                    self._db.execute("RELEASE attachment_chunks")
                except sqlite3.Error:
                    self._db.execute("ROLLBACK TO attachment_chunks")
                    self._db.execute("RELEASE attachment_chunks")
                    continue  # a full disk, a locked file: searched in memory instead
                ids[int(row[0])] = sha256
        stored = _ranked(self._db, query, ids, chunks)
        rest = [i for i, chunk in enumerate(chunks) if chunk.sha256 not in ids.values()]
        if not rest:
            return stored
        extra = [rest[j] for j in self._fallback.rank(query, [chunks[i] for i in rest])]
        # Two tables' bm25 scores are not comparable: alternate, so neither side crowds the other out.
        merged: list[int] = []
        for pair in zip(stored, extra, strict=False):
            merged.extend(pair)
        longer = stored if len(stored) > len(extra) else extra
        merged.extend(longer[min(len(stored), len(extra)) :])
        return merged


class FileChunkSearch:
    """:class:`StoreChunkSearch` over a chat database file, through a connection of its own opened for each ranking.

    For a thread other than the store's (the window plans replies on its
    engine thread, and a connection belongs to the thread that made it). A
    database that cannot be opened or written now is searched in memory.
    """

    def __init__(self, path: Path, fallback: MemoryChunkSearch | None = None) -> None:
        self._path = path
        self._fallback = fallback or MemoryChunkSearch()

    def rank(self, query: str, chunks: Sequence[Chunk]) -> list[int]:
        """Indices into ``chunks`` of those matching ``query``, best first."""
        try:
            db = sqlite3.connect(self._path, timeout=_BUSY_WAIT_S, isolation_level=None)
        except sqlite3.Error:
            return self._fallback.rank(query, chunks)
        try:
            return StoreChunkSearch(db, writable=True, fallback=self._fallback).rank(query, chunks)
        except sqlite3.Error:
            return self._fallback.rank(query, chunks)
        finally:
            db.close()
