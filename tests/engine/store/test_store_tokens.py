"""A reply's tokens through real SQLite: the token record in, the same record out (less its ids), the old rows."""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import replace
from pathlib import Path

from app.core.decoding.events import TokenOrigin
from app.core.reply.token_record import RejectedProposal, TokenRecord
from app.engine.store.conversations import ChatStore

TOKENS = [
    TokenRecord(
        id=5,
        text="copied",
        origin=TokenOrigin.DRAFT,
        p_target=0.9,
        q_draft=1.0,
        source="lookup",
        copied_from="report.pdf, p. 3",
    ),
    TokenRecord(
        id=6,
        text=" fix",
        origin=TokenOrigin.CORRECTED,
        p_target=0.6,
        rejected=RejectedProposal(id=7, text=" bug", p_target=0.1, q_draft=0.8),
    ),
    TokenRecord(id=-1, text="?", origin=TokenOrigin.TARGET),  # a remote server's: p_target unknown
]


def test_a_token_record_comes_back_whole_but_for_its_ids_in_the_rows_older_tandems_wrote(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    store = ChatStore(path)
    try:
        chat = store.create_conversation("Tokens")
        store.add_message(chat, "user", "hi")
        reply = store.begin_reply(chat)
        store.append_tokens(reply, TOKENS[:2])
        store.append_tokens(reply, TOKENS[2:])
        read = store.tokens(reply)
    finally:
        store.close()
    # The store keeps no token ids; NaN is never equal to itself, so the JSON forms are compared.
    kept = [replace(t, id=None, rejected=None if t.rejected is None else replace(t.rejected, id=None)) for t in TOKENS]
    assert [t.to_json() for t in read] == [t.to_json() for t in kept]
    assert [t.id for t in read] == [None] * 3 and read[1].rejected == kept[1].rejected
    assert all(type(t.origin) is TokenOrigin for t in read)
    with contextlib.closing(sqlite3.connect(path)) as plain:
        rows = plain.execute(
            "SELECT idx, text, origin, p_target, q_draft, rejected_text, rejected_p, rejected_q, source, copied_from "
            "FROM tokens ORDER BY idx"
        ).fetchall()
    assert rows == [
        (0, "copied", "draft", 0.9, 1.0, None, None, None, "lookup", "report.pdf, p. 3"),
        (1, " fix", "corrected", 0.6, None, " bug", 0.1, 0.8, None, None),
        (2, "?", "target", -1.0, None, None, None, None, None, None),  # SQLite holds no NaN
    ]
