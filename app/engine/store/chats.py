"""The conversations themselves: creating, renaming, listing, pinning, each chat's settings, and the trash.

Deleting a conversation moves it to the trash first (hidden from the list
and from search; :meth:`Chats.restore_conversation` is the undo); the trash
is emptied of conversations older than a week each time a writable store
opens (:mod:`app.engine.store.connection`). A permanent delete takes the
messages and tokens with it (foreign keys cascade).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from app.core import stored_json
from app.core.conversation.chat_settings import ChatSettings
from app.engine.store.connection import StoreConnection
from app.engine.store.presets import read_default_preset


@dataclass(frozen=True, slots=True)
class ConversationSummary:
    """What the conversation list shows (``message_count`` counts every branch)."""

    id: int
    title: str
    created: float
    updated: float
    message_count: int
    pinned: bool = False
    deleted: float | None = None  # when it was moved to the trash


class Chats(StoreConnection):
    """Conversations as rows: their titles, pins, settings and trash dates."""

    def create_conversation(self, title: str, settings: dict[str, Any] | None = None) -> int:
        """A new, empty conversation; returns its id.

        Without ``settings`` it starts from the default preset, else from
        :class:`ChatSettings`' defaults.
        """
        if settings is None:
            default = read_default_preset(self._db)
            settings = default[1] if default is not None else ChatSettings().to_dict()
        now = time.time()
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO conversations(title, created, updated, settings) VALUES (?, ?, ?, ?)",
                (title, now, now, json.dumps(settings)),
            )
        return int(cursor.lastrowid or 0)

    def rename_conversation(self, conversation_id: int, title: str) -> None:
        """Change a conversation's title."""
        with self._transaction():
            self._db.execute("UPDATE conversations SET title=? WHERE id=?", (title, conversation_id))

    def delete_conversation(self, conversation_id: int, permanent: bool = False) -> None:
        """Move a conversation to the trash (hidden from the list and search), or delete it with everything.

        The trash is emptied of conversations older than a week when the store opens.
        """
        with self._transaction():
            if permanent:
                self._db.execute("DELETE FROM conversations WHERE id=?", (conversation_id,))
            else:
                self._db.execute(
                    "UPDATE conversations SET deleted=? WHERE id=? AND deleted IS NULL", (time.time(), conversation_id)
                )

    def restore_conversation(self, conversation_id: int) -> None:
        """Take a conversation back out of the trash (the undo of a non-permanent delete)."""
        with self._transaction():
            self._db.execute("UPDATE conversations SET deleted=NULL WHERE id=?", (conversation_id,))

    def list_conversations(self) -> list[ConversationSummary]:
        """Conversations not in the trash: pinned first, then most recently updated first."""
        return self._summaries("c.deleted IS NULL", "c.pinned DESC, c.updated DESC, c.id DESC")

    def trashed_conversations(self) -> list[ConversationSummary]:
        """Conversations in the trash, most recently deleted first."""
        return self._summaries("c.deleted IS NOT NULL", "c.deleted DESC, c.id DESC")

    def conversation(self, conversation_id: int) -> ConversationSummary:
        """One conversation's summary (trashed or not); KeyError for an unknown id."""
        found = self._summaries("c.id = ?", "c.id", (conversation_id,))
        if not found:
            raise KeyError(conversation_id)
        return found[0]

    def _summaries(self, where: str, order: str, args: tuple[Any, ...] = ()) -> list[ConversationSummary]:
        rows = self._db.execute(
            "SELECT c.id, c.title, c.created, c.updated, c.pinned, c.deleted, "
            "(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS n "
            f"FROM conversations c WHERE {where} ORDER BY {order}",
            args,
        ).fetchall()
        return [
            ConversationSummary(
                r["id"], r["title"], r["created"], r["updated"], r["n"], bool(r["pinned"]), r["deleted"]
            )
            for r in rows
        ]

    def conversation_title(self, conversation_id: int) -> str:
        """The title, or raise KeyError for an unknown id."""
        return str(self._conversation_row(conversation_id)["title"])

    def set_pinned(self, conversation_id: int, pinned: bool) -> None:
        """Pin a conversation to the top of the list, or unpin it."""
        with self._transaction():
            self._db.execute("UPDATE conversations SET pinned=? WHERE id=?", (int(pinned), conversation_id))

    def conversation_settings(self, conversation_id: int) -> dict[str, Any]:
        """The conversation's settings as stored (read them with :meth:`ChatSettings.from_dict`)."""
        return stored_json.dict_of(self._conversation_row(conversation_id)["settings"])

    def set_conversation_settings(self, conversation_id: int, settings: dict[str, Any]) -> None:
        """Replace the conversation's settings (they apply to its next replies, never to stored ones)."""
        self._conversation_row(conversation_id)
        with self._transaction():
            self._db.execute("UPDATE conversations SET settings=? WHERE id=?", (json.dumps(settings), conversation_id))
