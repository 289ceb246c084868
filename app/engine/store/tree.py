"""A conversation as a tree of messages: adding a turn, the branch on screen, moving between branches, deleting.

Regenerating a reply or editing a message adds a sibling; the branch on
screen is the path from a root to the conversation's ``active_leaf``, and at
each fork the parent's ``active_child`` remembers which child was shown last,
so switching back to a branch returns to where the user was.
:meth:`MessageTree.messages` returns that path, so callers that know nothing
of branches see a linear chat.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core import stored_json
from app.core.attachments.record import Attachment
from app.core.conversation.chat import MessageState, Role
from app.core.conversation.images import ImageInput
from app.core.reply.token_record import TokenRecord
from app.engine.store.attachments import AttachmentSummary, attachment_bytes, link_attachments, read_attachments
from app.engine.store.connection import StoreConnection, member_or_text
from app.engine.store.images import ImageSummary, check_images, image_bytes, link_images, read_images
from app.engine.store.tokens import is_partial, partial_text, read_tokens

# parent_id for add_message/begin_reply: append after the end of the conversation's active branch.
ACTIVE_LEAF = -1


@dataclass(slots=True)
class StoredMessage:
    """One turn as stored; ``parent_id`` is the turn it answers or follows (None for a first message).

    ``role`` and ``state`` are read back as :class:`Role` and
    :class:`MessageState` members; a value this Tandem does not know (a
    hand-edited file) stays the text it is, so nothing readable is refused.
    """

    id: int
    conversation_id: int
    role: Role | str
    content: str
    state: MessageState | str
    created: float
    meta: dict[str, Any] = field(default_factory=dict)
    tokens: list[TokenRecord] = field(default_factory=list)
    parent_id: int | None = None
    attachments: tuple[Attachment, ...] = ()  # each named as it was attached to this message
    images: tuple[ImageInput, ...] = ()  # each named as it was sent with this message

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out: dict[str, Any] = {
            "id": self.id,
            "parent": self.parent_id,
            "role": str(self.role),
            "content": self.content,
            "state": str(self.state),
            "created": self.created,
        }
        if self.meta:
            out["meta"] = self.meta
        if self.tokens:
            out["tokens"] = [token.to_json() for token in self.tokens]
        if self.attachments:  # without their text: an export carries each file's text once, beside the messages
            out["attachments"] = [AttachmentSummary.of(a).to_json() for a in self.attachments]
        if self.images:  # without their bytes: what each picture is, not the picture
            out["images"] = [ImageSummary.of(i).to_json() for i in self.images]
        return out


class MessageTree(StoreConnection):
    """The messages of each conversation as a tree, and the active branch through it."""

    def add_message(
        self,
        conversation_id: int,
        role: Role | str,
        content: str,
        state: MessageState | str = MessageState.DONE,
        meta: dict[str, Any] | None = None,
        parent_id: int | None = ACTIVE_LEAF,
        attachments: Sequence[Attachment] = (),
        images: Sequence[ImageInput] = (),
    ) -> int:
        """Store a complete message now (the user's turn is written the moment it is sent), with its files and images.

        It follows ``parent_id``: by default the end of the active branch;
        None makes a new first message (editing the first turn). The new
        message becomes the active leaf. A ``role`` or ``state`` outside
        :class:`Role` and :class:`MessageState` raises ValueError: the store
        writes only what it reads back. ``attachments`` are stored in the same
        transaction (a file already stored, by its hash, is only linked), so a
        failure (a full disk) leaves neither the message nor any of them; so
        are ``images`` (ValueError, before anything is written, for more than
        the bounds allow or bytes that are not a PNG or JPEG).
        """
        role, state = Role(role), MessageState(state)
        check_images(images)
        now = time.time()
        with self._transaction(attachment_bytes(attachments) + image_bytes(images)):
            conversation = self._conversation_row(conversation_id)
            if parent_id == ACTIVE_LEAF:
                parent_id = self._leaf(conversation_id, conversation["active_leaf"])
            elif parent_id is not None:
                parent = self._message_row(parent_id)
                if int(parent["conversation_id"]) != conversation_id:
                    raise ValueError(f"message {parent_id} is not in conversation {conversation_id}")
            cursor = self._db.execute(
                "INSERT INTO messages(conversation_id, role, content, state, created, meta, parent_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (conversation_id, role, content, state, now, json.dumps(meta or {}), parent_id),
            )
            message_id = int(cursor.lastrowid or 0)
            link_attachments(self._db, message_id, attachments)
            link_images(self._db, message_id, images)
            self._activate(conversation_id, message_id)
            self._touch(conversation_id, now)
        return message_id

    def messages(self, conversation_id: int, with_tokens: bool = True) -> list[StoredMessage]:
        """The active branch, first message to active leaf; partial replies get their text from their tokens."""
        leaf = self._leaf(conversation_id, None)
        if leaf is None:
            return []
        rows = self._db.execute(
            "WITH RECURSIVE path(id) AS (SELECT ? UNION ALL "
            "SELECT m.parent_id FROM messages m JOIN path ON m.id = path.id WHERE m.parent_id IS NOT NULL) "
            "SELECT m.* FROM messages m JOIN path ON m.id = path.id ORDER BY m.id",
            (leaf,),
        ).fetchall()
        return self._stored(rows, with_tokens)

    def all_messages(self, conversation_id: int, with_tokens: bool = True) -> list[StoredMessage]:
        """Every message of the conversation, every branch, in the order they were written."""
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id=? ORDER BY id", (conversation_id,)
        ).fetchall()
        return self._stored(rows, with_tokens)

    def message(self, message_id: int, with_tokens: bool = True) -> StoredMessage:
        """One message; KeyError for an unknown id."""
        return self._stored([self._message_row(message_id)], with_tokens)[0]

    def active_leaf(self, conversation_id: int) -> int | None:
        """The last message of the active branch (None for an empty conversation)."""
        return self._leaf(conversation_id, None)

    def siblings(self, message_id: int) -> list[int]:
        """The ids of the messages sharing this one's parent (itself included), oldest first."""
        row = self._message_row(message_id)
        rows = self._db.execute(
            "SELECT id FROM messages WHERE conversation_id=? AND parent_id IS ? ORDER BY id",
            (row["conversation_id"], row["parent_id"]),
        ).fetchall()
        return [int(r["id"]) for r in rows]

    def children(self, message_id: int) -> list[int]:
        """The ids of the messages that follow this one, oldest first."""
        rows = self._db.execute("SELECT id FROM messages WHERE parent_id=? ORDER BY id", (message_id,)).fetchall()
        return [int(r["id"]) for r in rows]

    def switch_to(self, message_id: int) -> None:
        """Make the branch through this message the active one.

        Below it the branch follows, at each fork, the child last shown
        there (else the newest), as a chat app returns to where you were.
        """
        row = self._message_row(message_id)
        with self._transaction():
            self._activate(int(row["conversation_id"]), self._descend(message_id))

    def delete_message(self, message_id: int) -> None:
        """Delete a message and everything that follows it on any branch.

        If it was on the active branch, the nearest remaining sibling's branch
        becomes active (the one before it, else the one after), else its parent
        becomes the active leaf.
        """
        conversation_id = int(self._message_row(message_id)["conversation_id"])
        after = self._leaf_without(message_id)
        with self._transaction():
            self._db.execute(
                "WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL "
                "SELECT m.id FROM messages m JOIN sub ON m.parent_id = sub.id) "
                "DELETE FROM messages WHERE id IN sub",
                (message_id,),
            )
            if after is not None:
                self._activate(conversation_id, after[0])
            self._touch(conversation_id, time.time())

    def _leaf_without(self, message_id: int) -> tuple[int | None] | None:
        """The active leaf once the subtree at ``message_id`` is gone, or None when it is off the active branch.

        The nearest remaining sibling's branch (the one before it, else the
        one after), else its parent; call it before removing the subtree.
        """
        row = self._message_row(message_id)
        if not any(m.id == message_id for m in self.messages(int(row["conversation_id"]), with_tokens=False)):
            return None
        siblings = self.siblings(message_id)
        at = siblings.index(message_id)
        rest = siblings[:at][-1:] + siblings[at + 1 :][:1]
        parent = row["parent_id"]
        return (self._descend(rest[0]) if rest else (int(parent) if parent is not None else None),)

    def _stored(self, rows: list[sqlite3.Row], with_tokens: bool) -> list[StoredMessage]:
        out = [
            StoredMessage(
                r["id"],
                r["conversation_id"],
                member_or_text(Role, r["role"]),
                r["content"],
                member_or_text(MessageState, r["state"]),
                r["created"],
                stored_json.dict_of(r["meta"]),
                parent_id=r["parent_id"],
            )
            for r in rows
        ]
        attached = read_attachments(self._db, (m.id for m in out))
        pictures = read_images(self._db, (m.id for m in out))
        for message in out:
            message.attachments = attached.get(message.id, ())
            message.images = pictures.get(message.id, ())
            if message.role != Role.ASSISTANT:
                continue
            partial = is_partial(message.state, message.content, message.meta)
            if with_tokens or partial:
                message.tokens = read_tokens(self._db, message.id)
            if partial:  # a read-only store cannot rebuild it on open: rebuild it here
                message.content = partial_text(message.content, message.meta, [t.text for t in message.tokens])
            if not with_tokens:
                message.tokens = []
        return out

    def _leaf(self, conversation_id: int, stored: int | None) -> int | None:
        """The active leaf, repaired if the stored one is missing (a file edited by hand, an old import)."""
        if stored is None:
            row = self._db.execute("SELECT active_leaf FROM conversations WHERE id=?", (conversation_id,)).fetchone()
            if row is None:  # an unknown (or just deleted) conversation has no messages, as before trees
                return None
            stored = row["active_leaf"]
        if stored is not None:
            found = self._db.execute(
                "SELECT 1 FROM messages WHERE id=? AND conversation_id=?", (stored, conversation_id)
            ).fetchone()
            if found:
                return int(stored)
        newest = self._db.execute(
            "SELECT MAX(id) FROM messages WHERE conversation_id=?", (conversation_id,)
        ).fetchone()[0]
        return None if newest is None else int(newest)

    def _descend(self, message_id: int) -> int:
        """From a message down to a leaf, by each message's last active child, else its newest."""
        current = message_id
        while True:
            row = self._db.execute(
                "SELECT (SELECT c.id FROM messages c WHERE c.parent_id = m.id AND c.id = m.active_child) AS last, "
                "(SELECT MAX(c.id) FROM messages c WHERE c.parent_id = m.id) AS newest FROM messages m WHERE m.id=?",
                (current,),
            ).fetchone()
            following = row["last"] if row["last"] is not None else row["newest"]
            if following is None:
                return current
            current = int(following)

    def _activate(self, conversation_id: int, leaf: int | None) -> None:
        """Make ``leaf`` the active leaf and record, at each fork above it, which child is on the branch."""
        self._db.execute("UPDATE conversations SET active_leaf=? WHERE id=?", (leaf, conversation_id))
        if leaf is None:
            return
        self._db.execute(
            "WITH RECURSIVE up(id, child) AS (SELECT parent_id, id FROM messages WHERE id = ? UNION ALL "
            "SELECT m.parent_id, m.id FROM messages m JOIN up ON m.id = up.id WHERE m.parent_id IS NOT NULL) "
            "UPDATE messages SET active_child = (SELECT child FROM up WHERE up.id = messages.id) "
            "WHERE id IN (SELECT id FROM up) AND active_child IS NOT (SELECT child FROM up WHERE up.id = messages.id)",
            (leaf,),
        )
