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
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
from app.engine.store.lock import WriterLock

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    state TEXT NOT NULL,
    created REAL NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages(conversation_id, id);
CREATE TABLE IF NOT EXISTS tokens (
    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    text TEXT NOT NULL,
    origin TEXT NOT NULL,
    p_target REAL NOT NULL,
    q_draft REAL,
    rejected_text TEXT,
    rejected_p REAL,
    rejected_q REAL,
    PRIMARY KEY (message_id, idx)
) WITHOUT ROWID;
"""

# Message states. A reply is "streaming" only while this process generates it.
DONE = "done"
STREAMING = "streaming"
CANCELLED = "cancelled"
INTERRUPTED = "interrupted"
FAILED = "failed"


@dataclass(frozen=True, slots=True)
class StoredToken:
    """One token of a stored reply: its text, where it came from and the odds behind it."""

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
        out: dict[str, Any] = {"text": self.text, "origin": self.origin, "p_target": self.p_target}
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
    """One turn as stored."""

    id: int
    conversation_id: int
    role: str
    content: str
    state: str
    created: float
    meta: dict[str, Any] = field(default_factory=dict)
    tokens: list[StoredToken] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out: dict[str, Any] = {"role": self.role, "content": self.content, "state": self.state, "created": self.created}
        if self.meta:
            out["meta"] = self.meta
        if self.tokens:
            out["tokens"] = [token.to_dict() for token in self.tokens]
        return out


@dataclass(frozen=True, slots=True)
class ConversationSummary:
    """What the conversation list shows."""

    id: int
    title: str
    created: float
    updated: float
    message_count: int


def default_path() -> Path:
    """The conversations database in the data folder."""
    return data_dir() / "conversations.sqlite3"


class ChatStore:
    """Conversations and their messages in one SQLite file (use from one thread).

    ``read_only`` opens the file without the writer lock and never writes to
    it (a second instance, or a file the user chose not to repair). Opening
    for writing raises :class:`StoreOpenError` when the file or its folder is
    unusable or another store holds the lock.
    """

    def __init__(self, path: Path | None = None, read_only: bool = False) -> None:
        self.path = path or default_path()
        self.read_only = read_only
        self.temporary = False
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
            db.executescript(SCHEMA)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            _close_crashed_replies(db)
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
        except sqlite3.Error as exc:
            raise StoreOpenError(Problem.DAMAGED, self.path, f"it cannot be read even read-only ({exc})") from exc
        return db

    # -- conversations -------------------------------------------------------

    def create_conversation(self, title: str) -> int:
        """A new, empty conversation; returns its id."""
        now = time.time()
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO conversations(title, created, updated) VALUES (?, ?, ?)", (title, now, now)
            )
        return int(cursor.lastrowid or 0)

    def rename_conversation(self, conversation_id: int, title: str) -> None:
        """Change a conversation's title."""
        with self._transaction():
            self._db.execute("UPDATE conversations SET title=? WHERE id=?", (title, conversation_id))

    def delete_conversation(self, conversation_id: int) -> None:
        """Remove a conversation with all its messages and tokens."""
        with self._transaction():
            self._db.execute("DELETE FROM conversations WHERE id=?", (conversation_id,))

    def list_conversations(self) -> list[ConversationSummary]:
        """All conversations, most recently updated first."""
        rows = self._db.execute(
            "SELECT c.id, c.title, c.created, c.updated, "
            "(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS n "
            "FROM conversations c ORDER BY c.updated DESC, c.id DESC"
        ).fetchall()
        return [ConversationSummary(r["id"], r["title"], r["created"], r["updated"], r["n"]) for r in rows]

    def conversation_title(self, conversation_id: int) -> str:
        """The title, or raise KeyError for an unknown id."""
        row = self._db.execute("SELECT title FROM conversations WHERE id=?", (conversation_id,)).fetchone()
        if row is None:
            raise KeyError(conversation_id)
        return str(row["title"])

    # -- messages ---------------------------------------------------------------

    def add_message(
        self, conversation_id: int, role: str, content: str, state: str = DONE, meta: dict[str, Any] | None = None
    ) -> int:
        """Store a complete message now (the user's turn is written the moment it is sent)."""
        now = time.time()
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO messages(conversation_id, role, content, state, created, meta) VALUES (?, ?, ?, ?, ?, ?)",
                (conversation_id, role, content, state, now, json.dumps(meta or {})),
            )
            self._touch(conversation_id, now)
        return int(cursor.lastrowid or 0)

    def begin_reply(self, conversation_id: int, meta: dict[str, Any] | None = None) -> int:
        """An empty assistant message in state ``streaming``; tokens follow with :meth:`append_tokens`."""
        return self.add_message(conversation_id, "assistant", "", STREAMING, meta)

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
                        t.p_target,
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
        """The conversation's messages in order; partial replies get their text from their tokens."""
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id=? ORDER BY id", (conversation_id,)
        ).fetchall()
        out = [
            StoredMessage(
                r["id"], r["conversation_id"], r["role"], r["content"], r["state"], r["created"], json.loads(r["meta"])
            )
            for r in rows
        ]
        for message in out:
            if message.role != "assistant":
                continue
            partial = message.state in (STREAMING, INTERRUPTED) and not message.content
            if with_tokens or partial:
                message.tokens = self.tokens(message.id)
            if partial:  # a read-only store cannot rebuild it on open: rebuild it here
                message.content = "".join(t.text for t in message.tokens)
            if not with_tokens:
                message.tokens = []
        return out

    def tokens(self, message_id: int) -> list[StoredToken]:
        """A reply's tokens in order."""
        rows = self._db.execute(
            "SELECT text, origin, p_target, q_draft, rejected_text, rejected_p, rejected_q "
            "FROM tokens WHERE message_id=? ORDER BY idx",
            (message_id,),
        ).fetchall()
        return [StoredToken(*tuple(r)) for r in rows]

    # -- export -------------------------------------------------------------------

    def export_json(self, conversation_id: int) -> dict[str, Any]:
        """The whole conversation, tokens and origins included."""
        return {
            "format": "tandem-conversation",
            "version": SCHEMA_VERSION,
            "title": self.conversation_title(conversation_id),
            "messages": [m.to_dict() for m in self.messages(conversation_id)],
        }

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


def _close_crashed_replies(db: sqlite3.Connection) -> None:
    """Replies still ``streaming`` belong to a process that died: mark them and give them their text, once."""
    rows = db.execute("SELECT id, content FROM messages WHERE state=?", (STREAMING,)).fetchall()
    # Older files marked them without rebuilding the text: rebuild those too.
    rows += db.execute("SELECT id, content FROM messages WHERE state=? AND content=''", (INTERRUPTED,)).fetchall()
    if not rows:
        return
    db.execute("BEGIN")
    try:
        for row in rows:
            content = row["content"]
            if not content:
                parts = db.execute("SELECT text FROM tokens WHERE message_id=? ORDER BY idx", (row["id"],))
                content = "".join(str(part[0]) for part in parts)
            db.execute("UPDATE messages SET state=?, content=? WHERE id=?", (INTERRUPTED, content, row["id"]))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _problem_of(exc: sqlite3.Error) -> Problem:
    code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    return Problem.READ_ONLY if code in (8, 13, 14) else Problem.DAMAGED  # read-only, full, cannot open


def _stats_line(meta: dict[str, Any]) -> str:
    stats = meta.get("stats", {})
    parts = [f"{stats.get('emitted', 0)} tokens", f"{stats.get('tokens_per_second', 0.0):.1f} tok/s"]
    drafter = meta.get("drafter")
    if drafter:
        parts.append(f"drafter {drafter}")
    if stats.get("drafted"):
        parts.append(f"acceptance {stats.get('acceptance_rate', 0.0):.0%}")
    return "> " + " · ".join(parts)
