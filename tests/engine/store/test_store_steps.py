"""The steps part of the store: append_steps on its own, the numbering of a continued reply, older files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.core.reply.step_record import DraftedRecord, StepRecord, TopEntry
from app.engine.store.conversations import ChatStore
from app.engine.store.steps import read_steps


def _step(index: int, first_token: int) -> StepRecord:
    return StepRecord(
        index=index, first_token=first_token, n_emitted=2, drafter="model", draft_length=1, reason="fixed at 1",
        greedy=False, drafted=(DraftedRecord("a", 0.5, 0.6, True, 0.1),), bonus=TopEntry("b", 0.4),
    )  # fmt: skip


def test_append_steps_numbers_rows_after_the_stored_ones_and_goes_with_the_reply(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "chats.sqlite3")
    try:
        chat = store.create_conversation("steps")
        reply = store.begin_reply(chat)
        assert store.steps(reply) == [] and store.step_count(reply) == 0
        store.append_steps(reply, [_step(0, 0), _step(1, 2)])
        # A continuation whose caller miscounted still lands after the stored rows, never over them.
        store.append_steps(reply, [_step(0, 4)])
        assert [s.first_token for s in store.steps(reply)] == [0, 2, 4] and store.step_count(reply) == 3
        store.delete_conversation(chat, permanent=True)
        assert store.steps(reply) == []
    finally:
        store.close()


def test_a_file_from_before_steps_reads_as_no_steps(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "old.sqlite3")
    try:
        assert read_steps(db, 1) == ([], 0)
    finally:
        db.close()
