"""A reply written as it streams: begun empty, tokens appended in batches, finished with its text and statistics.

The reply is a row created when generation starts (state ``streaming``)
whose tokens are appended while it streams and whose text, state and
metadata are filled in when it ends; continuing a reply reopens it. Each
batch is one commit, so a ``kill -9`` loses at most the batch in flight, and
the reply comes back ``interrupted`` with the text its tokens spell
(:mod:`app.engine.store.connection` closes it on the next open). After every
finished reply the WAL is folded back into the main file, so a crash later
leaves the chats in the database itself, not only in its ``-wal`` file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from app.core import stored_json
from app.core.conversation.chat import MessageState, Role
from app.core.reply.step_record import StepRecord
from app.core.reply.token_record import TokenRecord
from app.engine.store.steps import step_rows_bytes, write_steps
from app.engine.store.tokens import read_tokens, row_bytes, write_tokens
from app.engine.store.tree import ACTIVE_LEAF, MessageTree


class Replies(MessageTree):
    """The assistant's replies while they stream and when they end."""

    def begin_reply(
        self, conversation_id: int, meta: dict[str, Any] | None = None, parent_id: int | None = ACTIVE_LEAF
    ) -> int:
        """An empty assistant message in state ``streaming``; tokens follow with :meth:`append_tokens`.

        A regenerated reply is a new reply whose ``parent_id`` is the user
        message the old one answered: the old reply stays, as its sibling.
        """
        return self.add_message(conversation_id, Role.ASSISTANT, "", MessageState.STREAMING, meta, parent_id)

    def reopen_reply(self, message_id: int) -> None:
        """Continue a reply: back to ``streaming``; later tokens follow its existing ones.

        :meth:`finish_reply` then sets the grown text. Should the process
        die first, the reply comes back ``interrupted`` with its old text plus
        the tokens that followed.
        """
        with self._transaction():
            row = self._message_row(message_id)
            if row["role"] != Role.ASSISTANT:
                raise ValueError(f"message {message_id} is not a reply")
            count = self._db.execute("SELECT COUNT(*) FROM tokens WHERE message_id=?", (message_id,)).fetchone()[0]
            meta = {**stored_json.dict_of(row["meta"]), "continued_at_token": int(count)}
            self._db.execute(
                "UPDATE messages SET state=?, meta=? WHERE id=?",
                (MessageState.STREAMING, json.dumps(meta), message_id),
            )
            self._touch(int(row["conversation_id"]), time.time())

    def append_tokens(self, message_id: int, tokens: Sequence[TokenRecord], steps: Sequence[StepRecord] = ()) -> None:
        """Append streamed tokens to a reply, and the records of the steps that made them, in one commit."""
        if not tokens and not steps:
            return
        with self._transaction(row_bytes(tokens) + step_rows_bytes(steps)):
            row = self._db.execute(
                "SELECT COALESCE(MAX(idx) + 1, 0) AS n FROM tokens WHERE message_id=?", (message_id,)
            ).fetchone()
            write_tokens(self._db, message_id, int(row["n"]), tokens)
            write_steps(self._db, message_id, steps)

    def finish_reply(
        self,
        message_id: int,
        content: str,
        state: MessageState | str = MessageState.DONE,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """The reply's final text, state and metadata (statistics, finish reason).

        A ``state`` outside :class:`MessageState` raises ValueError before anything is written.
        """
        state = MessageState(state)
        with self._transaction():
            row = self._db.execute("SELECT conversation_id, meta FROM messages WHERE id=?", (message_id,)).fetchone()
            if row is None:
                raise KeyError(message_id)
            merged = {**stored_json.dict_of(row["meta"]), **(meta or {})}
            self._db.execute(
                "UPDATE messages SET content=?, state=?, meta=? WHERE id=?",
                (content, state, json.dumps(merged), message_id),
            )
            self._touch(int(row["conversation_id"]), time.time())
        self.checkpoint()

    def tokens(self, message_id: int) -> list[TokenRecord]:
        """A reply's tokens in order."""
        return read_tokens(self._db, message_id)
