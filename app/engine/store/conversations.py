"""Conversations on disk: one SQLite file in the data folder, written as the chat happens.

The user's message is committed the moment it is sent; the assistant's reply
is a row created when generation starts (state ``streaming``) whose tokens
are appended while it streams and whose text and statistics are filled in
when it ends. WAL mode keeps each commit cheap and a ``kill -9`` can only
lose what had not been committed yet: at most the tail of the reply in flight.
A reply found still ``streaming`` when the store is opened again was cut
short by a crash: it is marked ``interrupted`` and its text is rebuilt from
its stored tokens, once, so the history sent to the model, the exports and
the view all see the same partial reply.

Only one store writes a file at a time (:mod:`app.engine.store.lock`); the
file is checked before it is trusted (:mod:`app.engine.store.database`); a
write that fails raises :class:`~app.engine.store.database.StoreWriteError`
and leaves the store usable. After every finished reply the WAL is folded
back into the main file, so a crash later leaves the chats in the database
itself, not only in its ``-wal`` file.

Every token keeps its origin and probabilities (and the draft proposal the
target rejected at that point, if any), so a reloaded chat can be recoloured
exactly as it was shown live.
"""

from __future__ import annotations

import contextlib
import json
import math
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import Any

from app.core.chat_settings import ChatSettings
from app.core.decoding.events import EmittedToken, RejectedProposal, StepEvent
from app.engine.paths import data_dir
from app.engine.store.database import (
    Problem,
    StoreOpenError,
    StoreWriteError,
    check_file,
    check_folder,
    connect_read_only,
    write_error,
)
from app.engine.store.exchange import EXPORT_VERSION, FORMAT, parse_export
from app.engine.store.exchange import ImportFormatError as ImportFormatError  # what import_json raises
from app.engine.store.lock import WriterLock
from app.engine.store.migration import read_v1_as_v2, schema_version, upgrade
from app.engine.store.schema import SCHEMA, SCHEMA_VERSION, UNKNOWN_P_STORED
from app.engine.store.search import SearchHit as SearchHit  # what search returns
from app.engine.store.search import search as search_messages

# parent_id for add_message/begin_reply: append after the end of the conversation's active branch.
ACTIVE_LEAF = -1
# A conversation in the trash longer than this is deleted for good when the store opens.
TRASH_KEEP_S = 7 * 24 * 3600

# Message states. A reply is "streaming" only while this process generates it.
DONE = "done"
STREAMING = "streaming"
CANCELLED = "cancelled"
INTERRUPTED = "interrupted"
FAILED = "failed"


@dataclass(frozen=True, slots=True)
class StoredToken:
    """One token of a stored reply: its text, where it came from and the odds behind it.

    ``p_target`` is NaN where nobody knows it (a remote server's tokens); SQLite
    cannot hold NaN, so the column keeps :data:`UNKNOWN_P_STORED` instead.
    """

    text: str
    origin: str  # a TokenOrigin value
    p_target: float
    q_draft: float | None = None
    rejected_text: str | None = None
    rejected_p: float | None = None
    rejected_q: float | None = None
    # Which drafter proposed an accepted draft token ("model", "lookup"): kept in memory for the
    # live reply's hover card only, not written to the database (its schema is unchanged).
    source: str | None = None

    @staticmethod
    def from_emitted(token: EmittedToken, rejected: RejectedProposal | None = None) -> StoredToken:
        """A stored copy of ``token``; ``rejected`` is the proposal it replaced, if any."""
        return StoredToken(
            token.text,
            token.origin.value,
            float(token.p_target),
            None if token.q_draft is None else float(token.q_draft),
            rejected.text if rejected else None,
            float(rejected.p_target) if rejected else None,
            float(rejected.q_draft) if rejected else None,
            token.source,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (absent values left out)."""
        p = None if math.isnan(self.p_target) else self.p_target  # JSON has no NaN
        out: dict[str, Any] = {"text": self.text, "origin": self.origin, "p_target": p}
        if self.q_draft is not None:
            out["q_draft"] = self.q_draft
        if self.rejected_text is not None:
            out["rejected"] = {"text": self.rejected_text, "p_target": self.rejected_p, "q_draft": self.rejected_q}
        return out


def tokens_of_step(event: StepEvent) -> list[StoredToken]:
    """The tokens of one verify step, the rejected proposal attached to the token that replaced it."""
    rejected = event.rejected
    return [
        StoredToken.from_emitted(token, rejected if rejected is not None and i == rejected.position else None)
        for i, token in enumerate(event.tokens)
    ]


@dataclass(slots=True)
class StoredMessage:
    """One turn as stored; ``parent_id`` is the turn it answers or follows (None for a first message)."""

    id: int
    conversation_id: int
    role: str
    content: str
    state: str
    created: float
    meta: dict[str, Any] = field(default_factory=dict)
    tokens: list[StoredToken] = field(default_factory=list)
    parent_id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out: dict[str, Any] = {
            "id": self.id,
            "parent": self.parent_id,
            "role": self.role,
            "content": self.content,
            "state": self.state,
            "created": self.created,
        }
        if self.meta:
            out["meta"] = self.meta
        if self.tokens:
            out["tokens"] = [token.to_dict() for token in self.tokens]
        return out


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


def default_path() -> Path:
    """The conversations database in the data folder."""
    return data_dir() / "conversations.sqlite3"


class ChatStore:
    """Conversations and their messages in one SQLite file (use from one thread).

    ``read_only`` opens the file without the writer lock and never writes to
    it (a second instance, or a file the user chose not to repair). Opening
    for writing raises :class:`StoreOpenError` when the file or its folder is
    unusable or another store holds the lock, and migrates an older file
    (keeping a copy of it first; :attr:`migrated_from` names the copy).

    A conversation is a tree of messages: regenerating a reply or editing a
    message adds a sibling, and the branch on screen is the path from a root
    to the conversation's active leaf. :meth:`messages` returns that path, so
    callers that know nothing of branches see a linear chat.
    """

    def __init__(self, path: Path | None = None, read_only: bool = False) -> None:
        self.path = path or default_path()
        self.read_only = read_only
        self.temporary = False
        self.migrated_from: Path | None = None
        self._lock: WriterLock | None = None
        if read_only:
            self._db = self._open_read_only()
        else:
            self._db = self._open_for_writing()
        self._db.row_factory = sqlite3.Row

    @classmethod
    def scratch(cls, path: Path | None = None) -> ChatStore:
        """A store in memory: the window keeps working while the real file is unusable (nothing is kept)."""
        store = cls.__new__(cls)
        store.path = path or default_path()
        store.read_only = False
        store.temporary = True
        store.migrated_from = None
        store._lock = None
        store._db = sqlite3.connect(":memory:", isolation_level=None)
        store._db.row_factory = sqlite3.Row
        store._db.executescript(SCHEMA)
        return store

    def _open_for_writing(self) -> sqlite3.Connection:
        check_folder(self.path.parent)
        lock = WriterLock(self.path)
        try:
            held = lock.acquire()
        except OSError as exc:
            raise StoreOpenError(Problem.READ_ONLY, self.path.parent, f"no lock file can be made ({exc})") from exc
        if not held:
            raise StoreOpenError(Problem.IN_USE, self.path, "open it read-only, or close the other window")
        try:
            check_file(self.path)
            db = sqlite3.connect(self.path, isolation_level=None)  # explicit transactions below
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode does not fsync every commit: a killed process loses
            # nothing committed (the OS holds the pages); only a power cut could.
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            try:
                self.migrated_from = upgrade(db, self.path)
            except OSError as exc:  # the copy kept before migrating could not be written
                raise StoreOpenError(
                    Problem.READ_ONLY, self.path.parent, f"no copy could be kept before updating it ({exc})"
                ) from exc
            _close_crashed_replies(db)
            _empty_trash(db, time.time() - TRASH_KEEP_S)
        except sqlite3.Error as exc:
            lock.release()
            raise StoreOpenError(_problem_of(exc), self.path, str(exc)) from exc
        except BaseException:
            lock.release()
            raise
        self._lock = lock
        return db

    def _open_read_only(self) -> sqlite3.Connection:
        if not self.path.is_file():
            db = sqlite3.connect(":memory:", isolation_level=None)
            db.executescript(SCHEMA)
            return db
        try:
            db = connect_read_only(self.path)
            db.execute("SELECT COUNT(*) FROM conversations").fetchone()
            version = schema_version(db)
            if version > SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"it was written by a newer Tandem (schema version {version})")
            if version < SCHEMA_VERSION:
                read_v1_as_v2(db)  # read as it is: only a writer migrates
        except sqlite3.Error as exc:
            raise StoreOpenError(Problem.DAMAGED, self.path, f"it cannot be read even read-only ({exc})") from exc
        return db

    # -- conversations -------------------------------------------------------

    def create_conversation(self, title: str, settings: dict[str, Any] | None = None) -> int:
        """A new, empty conversation; returns its id.

        Without ``settings`` it starts from the default preset, else from
        :class:`ChatSettings`' defaults.
        """
        if settings is None:
            default = self.default_preset()
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
        return _json_dict(self._conversation_row(conversation_id)["settings"])

    def set_conversation_settings(self, conversation_id: int, settings: dict[str, Any]) -> None:
        """Replace the conversation's settings (they apply to its next replies, never to stored ones)."""
        self._conversation_row(conversation_id)
        with self._transaction():
            self._db.execute("UPDATE conversations SET settings=? WHERE id=?", (json.dumps(settings), conversation_id))

    def _conversation_row(self, conversation_id: int) -> sqlite3.Row:
        row = self._db.execute("SELECT * FROM conversations WHERE id=?", (conversation_id,)).fetchone()
        if row is None:
            raise KeyError(conversation_id)
        return row

    # -- presets ------------------------------------------------------------------

    def presets(self) -> dict[str, dict[str, Any]]:
        """Named settings, name -> settings dict, sorted by name."""
        rows = self._db.execute("SELECT name, settings FROM presets ORDER BY name COLLATE NOCASE, name").fetchall()
        return {str(r["name"]): _json_dict(r["settings"]) for r in rows}

    def save_preset(self, name: str, settings: dict[str, Any]) -> None:
        """Create the preset ``name``, or overwrite its settings."""
        name = _preset_name(name)
        with self._transaction():
            self._db.execute(
                "INSERT INTO presets(name, settings, created) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET settings=excluded.settings",
                (name, json.dumps(settings), time.time()),
            )

    def rename_preset(self, old: str, new: str) -> None:
        """Rename a preset (the default follows it); KeyError if ``old`` is unknown, ValueError if ``new`` exists."""
        new = _preset_name(new)
        if old not in self.presets():
            raise KeyError(old)
        if new == old:
            return
        if new in self.presets():
            raise ValueError(f"a preset named {new!r} exists already")
        with self._transaction():
            self._db.execute("UPDATE presets SET name=? WHERE name=?", (new, old))
            self._db.execute("UPDATE preferences SET value=? WHERE key='default_preset' AND value=?", (new, old))

    def delete_preset(self, name: str) -> None:
        """Delete a preset (no default any more if it was the default); chats keep their own copies."""
        with self._transaction():
            self._db.execute("DELETE FROM presets WHERE name=?", (name,))
            self._db.execute("DELETE FROM preferences WHERE key='default_preset' AND value=?", (name,))

    def default_preset(self) -> tuple[str, dict[str, Any]] | None:
        """The preset new chats start from, as (name, settings), or None."""
        row = self._db.execute(
            "SELECT p.name, p.settings FROM preferences d JOIN presets p ON p.name = d.value "
            "WHERE d.key='default_preset'"
        ).fetchone()
        return None if row is None else (str(row["name"]), _json_dict(row["settings"]))

    def set_default_preset(self, name: str | None) -> None:
        """Make ``name`` the preset new chats start from (None: ChatSettings' defaults); KeyError if unknown."""
        if name is not None and name not in self.presets():
            raise KeyError(name)
        with self._transaction():
            if name is None:
                self._db.execute("DELETE FROM preferences WHERE key='default_preset'")
            else:
                self._db.execute(
                    "INSERT INTO preferences(key, value) VALUES ('default_preset', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    (name,),
                )

    # -- messages ---------------------------------------------------------------

    def add_message(
        self,
        conversation_id: int,
        role: str,
        content: str,
        state: str = DONE,
        meta: dict[str, Any] | None = None,
        parent_id: int | None = ACTIVE_LEAF,
    ) -> int:
        """Store a complete message now (the user's turn is written the moment it is sent).

        It follows ``parent_id``: by default the end of the active branch;
        None makes a new first message (editing the first turn). The new
        message becomes the active leaf.
        """
        now = time.time()
        with self._transaction():
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
            self._activate(conversation_id, message_id)
            self._touch(conversation_id, now)
        return message_id

    def begin_reply(
        self, conversation_id: int, meta: dict[str, Any] | None = None, parent_id: int | None = ACTIVE_LEAF
    ) -> int:
        """An empty assistant message in state ``streaming``; tokens follow with :meth:`append_tokens`.

        A regenerated reply is a new reply whose ``parent_id`` is the user
        message the old one answered: the old reply stays, as its sibling.
        """
        return self.add_message(conversation_id, "assistant", "", STREAMING, meta, parent_id)

    def reopen_reply(self, message_id: int) -> None:
        """Continue a reply: back to ``streaming``; later tokens follow its existing ones.

        :meth:`finish_reply` then sets the grown text. Should the process
        die first, the reply comes back ``interrupted`` with its old text plus
        the tokens that followed.
        """
        with self._transaction():
            row = self._message_row(message_id)
            if row["role"] != "assistant":
                raise ValueError(f"message {message_id} is not a reply")
            count = self._db.execute("SELECT COUNT(*) FROM tokens WHERE message_id=?", (message_id,)).fetchone()[0]
            meta = {**_meta_of(row), "continued_at_token": int(count)}
            self._db.execute(
                "UPDATE messages SET state=?, meta=? WHERE id=?", (STREAMING, json.dumps(meta), message_id)
            )
            self._touch(int(row["conversation_id"]), time.time())

    def append_tokens(self, message_id: int, tokens: Sequence[StoredToken]) -> None:
        """Append streamed tokens to a reply, in one commit."""
        if not tokens:
            return
        # Roughly what the rows take on disk, so a full disk can say how much room is missing.
        needed = sum(len(t.text.encode()) + len(t.rejected_text or "") + 64 for t in tokens)
        with self._transaction(needed):
            row = self._db.execute(
                "SELECT COALESCE(MAX(idx) + 1, 0) AS n FROM tokens WHERE message_id=?", (message_id,)
            ).fetchone()
            start = int(row["n"])
            self._db.executemany(
                "INSERT INTO tokens(message_id, idx, text, origin, p_target, q_draft, rejected_text, rejected_p, "
                "rejected_q) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        message_id,
                        start + i,
                        t.text,
                        t.origin,
                        UNKNOWN_P_STORED if math.isnan(t.p_target) else t.p_target,
                        t.q_draft,
                        t.rejected_text,
                        t.rejected_p,
                        t.rejected_q,
                    )
                    for i, t in enumerate(tokens)
                ],
            )

    def finish_reply(
        self, message_id: int, content: str, state: str = DONE, meta: dict[str, Any] | None = None
    ) -> None:
        """The reply's final text, state and metadata (statistics, finish reason)."""
        with self._transaction():
            row = self._db.execute("SELECT conversation_id, meta FROM messages WHERE id=?", (message_id,)).fetchone()
            if row is None:
                raise KeyError(message_id)
            merged = {**json.loads(row["meta"] or "{}"), **(meta or {})}
            self._db.execute(
                "UPDATE messages SET content=?, state=?, meta=? WHERE id=?",
                (content, state, json.dumps(merged), message_id),
            )
            self._touch(int(row["conversation_id"]), time.time())
        self.checkpoint()

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
        row = self._message_row(message_id)
        conversation_id = int(row["conversation_id"])
        siblings = self.siblings(message_id)
        on_path = any(m.id == message_id for m in self.messages(conversation_id, with_tokens=False))
        with self._transaction():
            self._db.execute(
                "WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL "
                "SELECT m.id FROM messages m JOIN sub ON m.parent_id = sub.id) "
                "DELETE FROM messages WHERE id IN sub",
                (message_id,),
            )
            if on_path:
                at = siblings.index(message_id)
                rest = siblings[:at][-1:] + siblings[at + 1 :][:1]
                parent = row["parent_id"]
                leaf = self._descend(rest[0]) if rest else (int(parent) if parent is not None else None)
                self._activate(conversation_id, leaf)
            self._touch(conversation_id, time.time())

    def tokens(self, message_id: int) -> list[StoredToken]:
        """A reply's tokens in order."""
        rows = self._db.execute(
            "SELECT text, origin, p_target, q_draft, rejected_text, rejected_p, rejected_q "
            "FROM tokens WHERE message_id=? ORDER BY idx",
            (message_id,),
        ).fetchall()
        return [StoredToken(r[0], r[1], math.nan if r[2] < 0 else r[2], *tuple(r)[3:]) for r in rows]

    def _stored(self, rows: list[sqlite3.Row], with_tokens: bool) -> list[StoredMessage]:
        out = [
            StoredMessage(
                r["id"],
                r["conversation_id"],
                r["role"],
                r["content"],
                r["state"],
                r["created"],
                _meta_of(r),
                parent_id=r["parent_id"],
            )
            for r in rows
        ]
        for message in out:
            if message.role != "assistant":
                continue
            partial = _is_partial(message.state, message.content, message.meta)
            if with_tokens or partial:
                message.tokens = self.tokens(message.id)
            if partial:  # a read-only store cannot rebuild it on open: rebuild it here
                message.content = _partial_text(message.content, message.meta, [t.text for t in message.tokens])
            if not with_tokens:
                message.tokens = []
        return out

    def _message_row(self, message_id: int) -> sqlite3.Row:
        row = self._db.execute("SELECT * FROM messages WHERE id=?", (message_id,)).fetchone()
        if row is None:
            raise KeyError(message_id)
        return row

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

    # -- export -------------------------------------------------------------------

    def export_json(self, conversation_id: int) -> dict[str, Any]:
        """The whole conversation (every branch), tokens, origins, settings and metadata included: version 2."""
        row = self._conversation_row(conversation_id)
        return {
            "format": FORMAT,
            "version": EXPORT_VERSION,
            "title": str(row["title"]),
            "created": row["created"],
            "updated": row["updated"],
            "pinned": bool(row["pinned"]),
            "settings": self.conversation_settings(conversation_id),
            "active_leaf": self._leaf(conversation_id, row["active_leaf"]),
            "messages": [m.to_dict() for m in self.all_messages(conversation_id)],
        }

    def import_json(self, data: object) -> int:
        """A new conversation from Tandem's own JSON export (version 1 or 2); returns its id.

        Raises :class:`ImportFormatError` (one line) for anything else, before writing anything.
        """
        parsed = parse_export(data)
        now = time.time()
        new_ids: dict[int, int] = {}
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO conversations(title, created, updated, pinned, settings) VALUES (?, ?, ?, ?, ?)",
                (parsed.title, now, now, int(parsed.pinned), json.dumps(parsed.settings)),
            )
            conversation_id = int(cursor.lastrowid or 0)
            for message in parsed.messages:
                cursor = self._db.execute(
                    "INSERT INTO messages(conversation_id, role, content, state, created, meta, parent_id) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        conversation_id,
                        message.role,
                        message.content,
                        message.state,
                        message.created,
                        json.dumps(message.meta),
                        None if message.parent is None else new_ids[message.parent],
                    ),
                )
                new_ids[message.key] = int(cursor.lastrowid or 0)
                self._db.executemany(
                    "INSERT INTO tokens(message_id, idx, text, origin, p_target, q_draft, rejected_text, rejected_p, "
                    "rejected_q) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(new_ids[message.key], i, *astuple(t)) for i, t in enumerate(message.tokens)],
                )
            if parsed.active_leaf is not None:
                self._activate(conversation_id, self._descend(new_ids[parsed.active_leaf]))
        return conversation_id

    def export_markdown(self, conversation_id: int) -> str:
        """A readable transcript; replies keep their text exactly, code fences included."""
        lines = [f"# {self.conversation_title(conversation_id)}", ""]
        for message in self.messages(conversation_id, with_tokens=False):
            who = {"user": "You", "assistant": "Assistant", "system": "System"}.get(message.role, message.role)
            note = "" if message.state == DONE else f" _({message.state})_"
            lines += [f"### {who}{note}", "", message.content.rstrip(), ""]
            stats = message.meta.get("stats") if message.role == "assistant" else None
            if isinstance(stats, dict) and stats.get("emitted"):
                lines += [_stats_line(message.meta), ""]
        return "\n".join(lines).rstrip() + "\n"

    # -- search -------------------------------------------------------------------

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages of every chat not in the trash containing every word of ``query``, newest first.

        To show a hit in its branch: :meth:`switch_to` its ``message_id``, then :meth:`messages`.
        """
        return search_messages(self._db, query, limit)

    # -- housekeeping -------------------------------------------------------------

    def integrity_check(self) -> str:
        """SQLite's own verdict on the file: ``"ok"`` when undamaged."""
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])

    def checkpoint(self) -> None:
        """Fold the WAL into the main file now, as far as readers allow (a failure only delays it)."""
        if self.read_only or self.temporary:
            return
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        """Close the database (a checkpoint folds the WAL back into the file) and give the lock back."""
        try:
            if not self.read_only and not self.temporary:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    def _touch(self, conversation_id: int, when: float) -> None:
        self._db.execute("UPDATE conversations SET updated=? WHERE id=?", (when, conversation_id))

    def _transaction(self, needed_bytes: int = 0) -> _Transaction:
        if self.read_only:
            raise StoreWriteError(
                f"this window shows {self.path} read-only: nothing new can be saved here", "read-only"
            )
        return _Transaction(self._db, self.path, needed_bytes)


class _Transaction:
    """BEGIN ... COMMIT, or ROLLBACK when the block raises; SQLite's errors become :class:`StoreWriteError`."""

    def __init__(self, db: sqlite3.Connection, path: Path, needed_bytes: int) -> None:
        self._db = db
        self._path = path
        self._needed = needed_bytes

    def __enter__(self) -> None:
        try:
            self._db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise write_error(exc, self._path, self._needed) from exc

    def __exit__(self, exc_type: object, exc: object, traceback: object) -> None:
        if exc_type is not None:
            with contextlib.suppress(sqlite3.Error):  # a failed statement may already have rolled back
                self._db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise write_error(exc, self._path, self._needed) from exc
            return
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as commit_error:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise write_error(commit_error, self._path, self._needed) from commit_error


def _json_dict(text: str | None) -> dict[str, Any]:
    """A stored JSON object; anything else (damage, a hand edit) reads as empty rather than failing."""
    try:
        value = json.loads(text or "{}")
    except (json.JSONDecodeError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


def _meta_of(row: sqlite3.Row) -> dict[str, Any]:
    return _json_dict(row["meta"])


def _preset_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ValueError("a preset needs a name")
    return cleaned


def _is_partial(state: str, content: str, meta: dict[str, Any]) -> bool:
    """Whether a reply's text must be rebuilt from its tokens (cut off before :meth:`finish_reply`)."""
    if state == STREAMING:
        return not content or "continued_at_token" in meta
    return state == INTERRUPTED and not content


def _partial_text(content: str, meta: dict[str, Any], texts: list[str]) -> str:
    """A cut-off reply's text: its tokens, or for a continued reply its old text plus the tokens that followed."""
    at = meta.get("continued_at_token")
    if content and isinstance(at, int) and not isinstance(at, bool):
        return content + "".join(texts[at:])
    return "".join(texts)


def _close_crashed_replies(db: sqlite3.Connection) -> None:
    """Replies still ``streaming`` belong to a process that died: mark them and give them their text, once."""
    rows = db.execute("SELECT id, content, meta FROM messages WHERE state=?", (STREAMING,)).fetchall()
    # Older files marked them without rebuilding the text: rebuild those too.
    rows += db.execute("SELECT id, content, meta FROM messages WHERE state=? AND content=''", (INTERRUPTED,)).fetchall()
    if not rows:
        return
    db.execute("BEGIN")
    try:
        for row in rows:
            meta = _meta_of(row)
            content = row["content"]
            if _is_partial(STREAMING, content, meta):
                parts = db.execute("SELECT text FROM tokens WHERE message_id=? ORDER BY idx", (row["id"],))
                content = _partial_text(content, meta, [str(part[0]) for part in parts])
            db.execute("UPDATE messages SET state=?, content=? WHERE id=?", (INTERRUPTED, content, row["id"]))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _empty_trash(db: sqlite3.Connection, before: float) -> None:
    """Delete for good the conversations moved to the trash before ``before``."""
    db.execute("DELETE FROM conversations WHERE deleted IS NOT NULL AND deleted < ?", (before,))


def _problem_of(exc: sqlite3.Error) -> Problem:
    code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    return Problem.READ_ONLY if code in (8, 13, 14) else Problem.DAMAGED  # read-only, full, cannot open


def _stats_line(meta: dict[str, Any]) -> str:
    stats = meta.get("stats", {})
    parts = [f"{stats.get('emitted', 0)} tokens", f"{stats.get('tokens_per_second', 0.0):.1f} tok/s"]
    produced = meta.get("produced_by")
    produced = produced if isinstance(produced, dict) else {}
    drafter = produced.get("drafter") or meta.get("drafter")
    if drafter:
        policy = produced.get("draft_policy")
        parts.append(f"drafter {drafter}" + (f" ({policy})" if policy and policy != "none" else ""))
    if stats.get("drafted"):
        parts.append(f"acceptance {stats.get('acceptance_rate', 0.0):.0%}")
    if produced.get("target"):
        pair = str(produced["target"]) + (f" + {produced['draft']}" if produced.get("draft") else "")
        parts.append(pair)
    sampling = produced.get("sampling")
    if isinstance(sampling, dict) and "temperature" in sampling:
        parts.append(f"temperature {sampling['temperature']}")
    if produced.get("seed") is not None:
        parts.append(f"seed {produced['seed']}")
    return "> " + " · ".join(parts)
