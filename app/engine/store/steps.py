"""A local reply's verify steps, kept for replay: one row per step, the JSON of its StepRecord.

The rows live in the ``steps`` table (schema v3), keyed by the reply and
the step's place, and go with the reply when it is deleted. They are written
in the same transaction as the step's tokens
(:meth:`~app.engine.store.replies.Replies.append_tokens` takes them), so a
crash never leaves steps without their tokens or the other way round.
Replies made before Tandem recorded steps, and a remote server's replies,
have none: :meth:`Steps.steps` is then empty. A row that does not parse (a
file edited by hand, a newer Tandem's record) is skipped and counted in
:attr:`Steps.skipped_steps`, never an error.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from app.core import stored_json
from app.core.reply.step_record import StepRecord
from app.engine.store.connection import StoreConnection


def step_rows_bytes(records: Sequence[StepRecord]) -> int:
    """Roughly what the rows take on disk, so a full disk can say how much room is missing (a typical step)."""
    return 400 * len(records)


def encode_step(record: StepRecord) -> str:
    """The stored text of one record: its JSON without blanks."""
    return json.dumps(record.to_json(), separators=(",", ":"), ensure_ascii=False)


def write_steps(db: sqlite3.Connection, message_id: int, records: Sequence[StepRecord]) -> None:
    """Append ``records`` after the reply's stored steps (inside the caller's transaction).

    The rows are numbered after the last stored one, whatever the records'
    own ``index`` says, so a continued reply whose caller miscounted can
    never make the insert (and with it the step's tokens) fail.
    """
    if not records:
        return
    row = db.execute("SELECT COALESCE(MAX(idx) + 1, 0) FROM steps WHERE message_id=?", (message_id,)).fetchone()
    start = int(row[0])
    db.executemany(
        "INSERT INTO steps(message_id, idx, first_token, data) VALUES (?, ?, ?, ?)",
        [(message_id, start + i, record.first_token, encode_step(record)) for i, record in enumerate(records)],
    )


def read_steps(db: sqlite3.Connection, message_id: int) -> tuple[list[StepRecord], int]:
    """A reply's step records in order, and how many rows were skipped because they did not parse."""
    try:
        rows = db.execute("SELECT data FROM steps WHERE message_id=? ORDER BY idx", (message_id,)).fetchall()
    except sqlite3.OperationalError:  # a file from before schema v3, read as it is (chats ... opens it unmigrated)
        return [], 0
    records: list[StepRecord] = []
    skipped = 0
    for (data,) in rows:
        try:  # damaged JSON reads as no value, which is no step record either
            records.append(StepRecord.from_json(stored_json.parse(data).value, f"a step of message {message_id}"))
        except (ValueError, TypeError):
            skipped += 1
    return records, skipped


class Steps(StoreConnection):
    """Reading and appending a reply's step records."""

    # Rows skipped by the last :meth:`steps` call because they did not parse.
    skipped_steps: int = 0

    def append_steps(self, message_id: int, records: Sequence[StepRecord]) -> None:
        """Append step records to a reply, in one commit (the window writes them with the tokens instead)."""
        if not records:
            return
        with self._transaction(step_rows_bytes(records)):
            write_steps(self._db, message_id, records)

    def steps(self, message_id: int) -> list[StepRecord]:
        """A reply's step records in order; empty for a reply that has none."""
        records, self.skipped_steps = read_steps(self._db, message_id)
        return records

    def step_count(self, message_id: int) -> int:
        """How many step rows a reply has (where a continued reply's steps start counting)."""
        row = self._db.execute("SELECT COUNT(*) FROM steps WHERE message_id=?", (message_id,)).fetchone()
        return int(row[0])
