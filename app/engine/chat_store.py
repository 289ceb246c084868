"""Conversations on disk: one SQLite file in the data folder, written as the chat happens.

The user's message is committed the moment it is sent; the assistant's reply
is a row created when generation starts (state ``streaming``) whose tokens
are appended while it streams and whose text and statistics are filled in
when it ends. WAL mode keeps each commit cheap and a ``kill -9`` can only
lose what had not been committed yet: at most the tail of the reply in flight.
A reply found still ``streaming`` when the store is opened again was cut
short by a crash and is marked ``interrupted``, keeping its partial text.

Every token keeps its origin and probabilities (and the draft proposal the
target rejected at that point, if any), so a reloaded chat can be recoloured
exactly as it was shown live.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.decoding.events import EmittedToken, RejectedProposal, StepEvent
from app.engine.paths import data_dir

SCHEMA_VERSION = 1

_SCHEMA = """
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
    """Conversations and their messages in one SQLite file (use from one thread)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None)  # explicit transactions below
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode does not fsync every commit: a killed process loses
        # nothing committed (the OS holds the pages); only a power cut could.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        # Anything still "streaming" belongs to a process that died mid-reply.
        self._db.execute("UPDATE messages SET state=? WHERE state=?", (INTERRUPTED, STREAMING))

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
        with self._transaction():
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
        if with_tokens:
            for message in out:
                if message.role == "assistant":
                    message.tokens = self.tokens(message.id)
                    if message.state in (STREAMING, INTERRUPTED) and not message.content:
                        message.content = "".join(t.text for t in message.tokens)
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

    def close(self) -> None:
        """Close the database (a checkpoint folds the WAL back into the file)."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()

    def _touch(self, conversation_id: int, when: float) -> None:
        self._db.execute("UPDATE conversations SET updated=? WHERE id=?", (when, conversation_id))

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    """BEGIN ... COMMIT, or ROLLBACK when the block raises."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self._db.execute("ROLLBACK" if exc_type is not None else "COMMIT")


def _stats_line(meta: dict[str, Any]) -> str:
    stats = meta.get("stats", {})
    parts = [f"{stats.get('emitted', 0)} tokens", f"{stats.get('tokens_per_second', 0.0):.1f} tok/s"]
    drafter = meta.get("drafter")
    if drafter:
        parts.append(f"drafter {drafter}")
    if stats.get("drafted"):
        parts.append(f"acceptance {stats.get('acceptance_rate', 0.0):.0%}")
    return "> " + " · ".join(parts)
