"""Reading what a table links to messages by position (attached files, images), in batches of message ids."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

_BATCH = 500  # message ids per query (far below SQLite's limit on bound parameters)


def linked_rows(db: sqlite3.Connection, select: str, message_ids: Iterable[int]) -> Iterator[tuple[Any, ...]]:
    """The rows of ``select`` for ``message_ids``, each message's in link order.

    ``select`` is the query up to its WHERE: it reads the link table as ``l`` (with ``message_id`` and
    ``position``) and selects ``l.message_id`` first.
    """
    ids = list(message_ids)
    for start in range(0, len(ids), _BATCH):
        batch = ids[start : start + _BATCH]
        marks = ", ".join("?" * len(batch))
        query = f"{select} WHERE l.message_id IN ({marks}) ORDER BY l.message_id, l.position"
        yield from (tuple(row) for row in db.execute(query, batch).fetchall())
