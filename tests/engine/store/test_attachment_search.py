"""BM25 over attachment chunks in a real chat database (filled lazily) and in memory; hostile questions never raise."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from app.core.attachments.chunks import Chunk
from app.core.attachments.query import fts_query
from app.engine.store.attachment_search import MemoryChunkSearch
from app.engine.store.conversations import ChatStore

SHA = "f" * 64
TEXTS = [
    "Pumps are serviced every spring by the maintenance crew.",
    "Refunds are paid within forty-two days of the delivery date.",
    "The warranty covers the motor but not the impeller blades.",
    "Delivery takes three days; refunds of a delivery fee are not paid.",
]


def _chunks(sha: str = SHA) -> list[Chunk]:
    out, at = [], 0
    for i, text in enumerate(TEXTS):
        out.append(Chunk(sha, at, text, f"manual.pdf, p. {i + 1}"))
        at += len(text) + 2
    return out


def _store_with_attachment(path: Path) -> ChatStore:
    store = ChatStore(path)
    # The attachment's row as the store keeps it (writing attachments is the store's own part, not this one's).
    store._db.execute(
        "INSERT INTO attachments(sha256, kind, size, text, meta, created) VALUES (?, 'pdf', 10, ?, ?, ?)",
        (SHA, "\n\n".join(TEXTS), json.dumps({}), time.time()),
    )
    return store


def test_the_store_fills_its_table_once_and_ranks_by_bm25(tmp_path: Path) -> None:
    store = _store_with_attachment(tmp_path / "chats.sqlite3")
    search = store.chunk_search()
    chunks = _chunks()
    query = fts_query("How long do refunds take after delivery?")
    assert query is not None
    ranked = search.rank(query, chunks)
    assert ranked == [3, 1]  # "delivery" twice beside "refunds" outranks once
    assert search.rank('"warranty" OR "motor" OR "refunds"', chunks)[0] == 2  # two rare words beat one
    rows = store._db.execute("SELECT count(*) FROM attachment_chunks").fetchone()[0]
    assert rows == len(chunks)
    search.rank(query, chunks)  # the second question writes nothing more
    assert store._db.execute("SELECT count(*) FROM attachment_chunks").fetchone()[0] == rows
    store.close()
    # The chunks stay in the file for the next session.
    db = sqlite3.connect(tmp_path / "chats.sqlite3")
    assert db.execute("SELECT count(*) FROM attachment_chunks").fetchone()[0] == rows
    db.close()


def test_rechunked_text_replaces_the_old_rows(tmp_path: Path) -> None:
    store = _store_with_attachment(tmp_path / "chats.sqlite3")
    search = store.chunk_search()
    search.rank('"pumps"', _chunks())
    one = [Chunk(SHA, 0, "\n\n".join(TEXTS), "manual.pdf, p. 1")]
    assert search.rank('"pumps"', one) == [0]
    assert store._db.execute("SELECT count(*) FROM attachment_chunks").fetchone()[0] == 1
    store.close()


def test_an_attachment_the_store_lacks_is_searched_in_memory(tmp_path: Path) -> None:
    store = _store_with_attachment(tmp_path / "chats.sqlite3")
    search = store.chunk_search()
    elsewhere = [Chunk("e" * 64, 0, "Impeller blades wear out.", "other.txt")]
    ranked = search.rank('"impeller"', [*_chunks(), *elsewhere])
    assert set(ranked) == {2, 4}
    store.close()


def test_a_read_only_store_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    _store_with_attachment(path).close()
    reader = ChatStore(path, read_only=True)
    ranked = reader.chunk_search().rank('"warranty"', _chunks())
    assert ranked == [2]
    reader.close()
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM attachment_chunks").fetchone()[0] == 0
    db.close()


def test_another_thread_ranks_with_the_stores_index_through_its_own_connection(tmp_path: Path) -> None:
    store = _store_with_attachment(tmp_path / "chats.sqlite3")
    search = store.chunk_search_elsewhere()
    assert search is not None
    query = fts_query("How long do refunds take after delivery?")
    assert query is not None
    ranked: list[list[int]] = []
    # The window plans on its engine thread; the store's own connection belongs to the GUI thread.
    worker = threading.Thread(target=lambda: ranked.append(search.rank(query, _chunks())))
    worker.start()
    worker.join(30)
    assert ranked == [[3, 1]]  # the same bm25 order as on the store's own connection
    assert store._db.execute("SELECT count(*) FROM attachment_chunks").fetchone()[0] == len(TEXTS)
    store.close()
    reader = ChatStore(tmp_path / "chats.sqlite3", read_only=True)
    assert reader.chunk_search_elsewhere() is None  # nothing to add an index to: searched in memory
    reader.close()


@pytest.mark.parametrize("question", ['"unbalanced', "NOT", "a AND (b OR", "col:x*", "^start NEAR(a b)", ""])
def test_hostile_questions_never_raise(question: str) -> None:
    search = MemoryChunkSearch()
    query = fts_query(question)
    if query is not None:
        assert isinstance(search.rank(query, _chunks()), list)
    # Even an unsanitised expression FTS5 refuses gives no ranking rather than an exception.
    assert search.rank('"unbalanced', _chunks()) == []


def test_memory_search_keeps_only_the_most_recent_attachments() -> None:
    search = MemoryChunkSearch(keep=2)
    for i in range(4):
        search.rank('"refunds"', _chunks(f"{i}" * 64))
    rows = search._db.execute("SELECT count(DISTINCT attachment_id) FROM attachment_chunks").fetchone()[0]
    assert rows == 2
