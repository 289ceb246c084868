"""A branch forked into a new chat, and a message deleted into the trash so it can be undone.

Forking copies the path from a root to one message into a new conversation:
each message with its meta (the provenance of a reply), its tokens, its
verify steps and its attachment links (a file is kept once by its hash, so a
link is all a copy needs). The original chat is left as it was.

Deleting a message "softly" (:meth:`Branches.trash_message`) moves it and
everything that follows it, in one transaction, into a conversation of its
own that is already in the trash; :meth:`Branches.restore_message` moves it
back under its old parent. Because the move is committed, a kill between the
two loses nothing: the subtree waits in the trash (``chats list --trash``,
``chats restore``) and goes with the rest of the trash after a week. Where the
subtree came from is kept in its first message's meta under :data:`TRASHED_FROM`
(no schema change), and removed when it is restored.
"""

from __future__ import annotations

import json
import time
from typing import Any

from app.core import stored_json
from app.engine.store.tree import MessageTree

# Key in a trashed subtree's first message's meta: {"conversation", "parent", "active"}.
TRASHED_FROM = "trashed_from"
# Tables whose rows belong to one message (message_id) and are copied with it when a branch is forked.
_PER_MESSAGE = ("tokens", "steps", "message_attachments", "message_images")


class Branches(MessageTree):
    """Forking a branch into a new chat; deleting a message into the trash and restoring it."""

    def fork_branch(self, message_id: int, title: str | None = None) -> int:
        """A new conversation holding copies of the path from a root to ``message_id``; returns its id.

        It has the original's settings and, by default, the title "Fork of …".
        KeyError for an unknown message.
        """
        row = self._message_row(message_id)
        source = self._conversation_row(int(row["conversation_id"]))
        path = self._db.execute(
            "WITH RECURSIVE path(id) AS (SELECT ? UNION ALL "
            "SELECT m.parent_id FROM messages m JOIN path ON m.id = path.id WHERE m.parent_id IS NOT NULL) "
            "SELECT m.* FROM messages m JOIN path ON m.id = path.id ORDER BY m.id",
            (message_id,),
        ).fetchall()
        now = time.time()
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO conversations(title, created, updated, settings) VALUES (?, ?, ?, ?)",
                (title if title is not None else f"Fork of {source['title']}", now, now, source["settings"]),
            )
            conversation_id = int(cursor.lastrowid or 0)
            parent: int | None = None
            for message in path:
                copied = self._db.execute(
                    "INSERT INTO messages(conversation_id, role, content, state, created, meta, parent_id) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        conversation_id,
                        message["role"],
                        message["content"],
                        message["state"],
                        message["created"],
                        message["meta"],
                        parent,
                    ),
                )
                new_id = int(copied.lastrowid or 0)
                for table in _PER_MESSAGE:
                    self._copy_rows(table, int(message["id"]), new_id)
                parent = new_id
            self._activate(conversation_id, parent)
        return conversation_id

    def trash_message(self, message_id: int) -> int:
        """Move a message and everything after it on any branch to the trash; returns the holding chat's id.

        The chat's active branch moves as :meth:`delete_message` would move it.
        """
        row = self._message_row(message_id)
        conversation_id = int(row["conversation_id"])
        title = str(self._conversation_row(conversation_id)["title"])
        after = self._leaf_without(message_id)
        meta = stored_json.dict_of(row["meta"])
        meta[TRASHED_FROM] = {"conversation": conversation_id, "parent": row["parent_id"], "active": after is not None}
        now = time.time()
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO conversations(title, created, updated, settings, deleted) VALUES (?, ?, ?, '{}', ?)",
                (f"Deleted message from {title}", now, now, now),
            )
            holder = int(cursor.lastrowid or 0)
            self._db.execute(
                "WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL "
                "SELECT m.id FROM messages m JOIN sub ON m.parent_id = sub.id) "
                "UPDATE messages SET conversation_id=? WHERE id IN sub",
                (message_id, holder),
            )
            self._db.execute("UPDATE messages SET parent_id=NULL, meta=? WHERE id=?", (json.dumps(meta), message_id))
            self._db.execute("UPDATE conversations SET active_leaf=? WHERE id=?", (self._descend(message_id), holder))
            if after is not None:
                self._activate(conversation_id, after[0])
            self._touch(conversation_id, now)
        return holder

    def restore_message(self, message_id: int) -> None:
        """Put a message moved to the trash by :meth:`trash_message` back where it was, with what followed it.

        Its branch becomes the active one again if it was. Where its chat or
        its parent is gone for good, it comes back as a chat of its own.
        KeyError for an unknown message; ValueError for one not in the trash.
        """
        row = self._message_row(message_id)
        meta = stored_json.dict_of(row["meta"])
        origin: Any = meta.pop(TRASHED_FROM, None)
        holder = int(row["conversation_id"])
        if not isinstance(origin, dict) or row["parent_id"] is not None:
            raise ValueError(f"message {message_id} is not a deleted message waiting in the trash")
        stored_target, parent = origin.get("conversation"), origin.get("parent")
        target = stored_target if isinstance(stored_target, int) else -1
        home = self._db.execute("SELECT 1 FROM conversations WHERE id=?", (target,)).fetchone() is not None
        if home and parent is not None:
            found = self._db.execute(
                "SELECT 1 FROM messages WHERE id=? AND conversation_id=?", (parent, target)
            ).fetchone()
            home = found is not None
        now = time.time()
        with self._transaction():
            self._db.execute("UPDATE messages SET meta=? WHERE id=?", (json.dumps(meta), message_id))
            if not home:  # nowhere to go back to: the holding chat becomes a chat of its own
                self._db.execute("UPDATE conversations SET deleted=NULL, updated=? WHERE id=?", (now, holder))
                return
            self._db.execute("UPDATE messages SET conversation_id=? WHERE conversation_id=?", (target, holder))
            self._db.execute("UPDATE messages SET parent_id=? WHERE id=?", (parent, message_id))
            self._db.execute("DELETE FROM conversations WHERE id=?", (holder,))
            if origin.get("active"):
                self._activate(target, self._descend(message_id))
            self._touch(target, now)

    def _copy_rows(self, table: str, from_id: int, to_id: int) -> None:
        columns = [str(c[1]) for c in self._db.execute(f"PRAGMA table_info({table})") if c[1] != "message_id"]
        listed = ", ".join(columns)
        self._db.execute(
            f"INSERT INTO {table}(message_id, {listed}) SELECT ?, {listed} FROM {table} WHERE message_id=?",
            (to_id, from_id),
        )
