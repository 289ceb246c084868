"""Chunking an attachment along paragraphs and pages, and a question turned into a safe FTS5 query."""

from __future__ import annotations

import sqlite3

import pytest

from app.core.attachments.chunks import approximate_tokens, chunk_attachment
from app.core.attachments.query import fts_query
from app.core.attachments.record import Attachment, AttachmentKind, Section


def _words(n: int, word: str = "word") -> str:
    return " ".join(f"{word}{i}" for i in range(n))


def _attachment(
    text: str, sections: tuple[Section, ...] = (), kind: AttachmentKind = AttachmentKind.TEXT
) -> Attachment:
    return Attachment("report.pdf", kind, "ab" * 32, len(text), text, sections)


def test_chunks_gather_paragraphs_to_the_target_size_and_keep_their_starts() -> None:
    paragraphs = [_words(60, f"p{i}w") for i in range(20)]  # each about 100-130 approximate tokens
    text = "\n\n".join(paragraphs)
    chunks = chunk_attachment(_attachment(text))
    assert len(chunks) > 3
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert approximate_tokens(chunk.text) <= 500
    assert all(approximate_tokens(c.text) >= 300 for c in chunks[:-1])
    # Cuts fall on paragraph boundaries: every chunk after the first starts a paragraph.
    assert all(text[c.start - 2 : c.start] == "\n\n" for c in chunks[1:])
    assert "".join(c.text for c in chunks) == text


def test_a_page_boundary_always_starts_a_chunk_and_names_its_citation() -> None:
    page1 = "Short first page about apples."
    page2 = _words(50, "pear")
    text = page1 + "\n" + page2
    sections = (Section("p. 1", 0), Section("p. 2", len(page1) + 1))
    chunks = chunk_attachment(_attachment(text, sections, AttachmentKind.PDF))
    assert [c.citation for c in chunks] == ["report.pdf, p. 1", "report.pdf, p. 2"]
    assert chunks[1].start == len(page1) + 1


def test_a_paragraph_too_long_is_cut_at_lines_then_spaces_then_anywhere() -> None:
    one_line = _words(2000)  # no blank line, no newline
    chunks = chunk_attachment(_attachment(one_line))
    assert len(chunks) > 5
    assert all(approximate_tokens(c.text) <= 500 for c in chunks)
    assert "".join(c.text for c in chunks) == one_line
    blob = "x" * 10_000  # not even a space
    pieces = chunk_attachment(_attachment(blob))
    assert "".join(c.text for c in pieces) == blob
    assert all(approximate_tokens(c.text) <= 500 for c in pieces)


def test_an_empty_attachment_has_no_chunks() -> None:
    assert chunk_attachment(_attachment("")) == []
    assert chunk_attachment(_attachment("\n\n  \n")) == []


@pytest.mark.parametrize(
    "question",
    [
        'what does "section 4 say',
        "NOT AND OR NEAR( * ^ : - + )",
        'col:value "" "unbalanced',
        "rename foo_bar to baz-qux; SELECT * FROM x;",
        "ÉCOLE über naïve ⟨émoji 🎉⟩",
    ],
)
def test_any_question_becomes_a_query_fts5_accepts(question: str) -> None:
    query = fts_query(question)
    assert query is not None
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')")
    db.execute("INSERT INTO t(text) VALUES ('section four says not and or near the ecole uber naive rename foo')")
    db.execute("SELECT rowid, bm25(t) FROM t WHERE t MATCH ? ORDER BY bm25(t)", (query,)).fetchall()


def test_a_query_keeps_the_meaningful_words_quoted_and_drops_the_rest() -> None:
    assert fts_query("What is the refund policy?") == '"refund" OR "policy"'
    assert fts_query("NOT near") == '"not" OR "near"'
    assert fts_query("?!  the a") is None
    assert fts_query(_words(500)) is not None
    assert fts_query(_words(500)).count(" OR ") == 47  # type: ignore[union-attr]
