"""Bringing a chat database to the current schema: a kept copy first, then one transaction.

An older file is migrated in place when a store opens it for writing. Before
anything changes, the whole file is copied beside it with SQLite's backup
API (``conversations.v1-backup.sqlite3``; an existing backup is never
overwritten, the next free name is taken). The copy is written under a
temporary name and renamed when complete, so a crash never leaves a
half-written file under the backup's name. Then every statement of the
upgrade, down to ``user_version``, runs in one transaction: killed at any
point, the file still opens as the old version and the next open migrates
it again.

A store opened read-only never migrates (another window may be writing, or
the file may be read-only): :func:`read_as_current` puts temporary views and
empty tables in front of an older file's tables so the current queries read
it unchanged (SQLite looks in the ``temp`` schema before ``main``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path

from app.engine.safe_files import make_private
from app.engine.store.schema import SCHEMA_V1, SCHEMA_VERSION, UPGRADES

# Test hook only: when set, the upgrade creates this file once inside its transaction and then
# waits, so a test can kill the process at that point. Never set outside tests.
TEST_HOOK_PAUSE_ENV = "TANDEM_TEST_HOOK_PAUSE_IN_MIGRATION"


def schema_version(db: sqlite3.Connection) -> int:
    """The file's schema version: ``user_version``, or 1 for the v1 tables without one, 0 for an empty file."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version == 0 and db.execute("SELECT 1 FROM sqlite_master WHERE name='conversations'").fetchone():
        return 1
    return version


def backup_name(path: Path, version: int) -> Path:
    """The first free name for a copy of ``path`` at schema ``version``, beside it."""
    candidate = path.with_name(f"{path.stem}.v{version}-backup{path.suffix}")
    n = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}.v{version}-backup-{n}{path.suffix}")
        n += 1
    return candidate


def keep_copy(db: sqlite3.Connection, path: Path, version: int) -> Path:
    """Copy the open database ``db`` (WAL included) next to ``path``; returns the copy's path."""
    target = backup_name(path, version)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)  # left by a crash during an earlier copy: never a finished backup
    try:
        make_private(partial)  # the copy holds the same chats: 0600 like the database itself
        copy = sqlite3.connect(partial)
        try:
            db.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
        finally:
            copy.close()
        os.replace(partial, target)
    except BaseException:  # a full disk, say: no half copy left behind, and the file stays as it was
        partial.unlink(missing_ok=True)
        raise
    return target


def upgrade(db: sqlite3.Connection, path: Path) -> Path | None:
    """Bring ``db`` (opened for writing on ``path``) to :data:`SCHEMA_VERSION`; returns the kept copy, if any.

    An empty file is created at the current version directly (nothing to keep).
    """
    version = schema_version(db)
    if version == SCHEMA_VERSION:
        return None
    if version > SCHEMA_VERSION:
        raise sqlite3.DatabaseError(
            f"it was written by a newer Tandem (schema version {version}; this one reads up to {SCHEMA_VERSION})"
        )
    kept = keep_copy(db, path, version) if version >= 1 else None
    db.execute("BEGIN IMMEDIATE")
    try:
        if version == 0:
            for statement in _statements(SCHEMA_V1):
                db.execute(statement)
        for reaches, statements in UPGRADES:
            if version < reaches:
                for statement in statements:
                    db.execute(statement)
        _test_pause()
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
    return kept


def read_as_current(db: sqlite3.Connection, version: int) -> None:
    """Temporary current-shaped views over an older file opened read-only (nothing is written to the file)."""
    if version < 2:
        db.executescript(
            """
            CREATE TEMP VIEW conversations AS
                SELECT c.id, c.title, c.created, c.updated, 0 AS pinned, '{}' AS settings,
                       (SELECT MAX(m.id) FROM main.messages m WHERE m.conversation_id = c.id) AS active_leaf,
                       NULL AS deleted
                FROM main.conversations c;
            CREATE TEMP VIEW messages AS
                SELECT m.*,
                       (SELECT MAX(p.id) FROM main.messages p
                        WHERE p.conversation_id = m.conversation_id AND p.id < m.id) AS parent_id,
                       (SELECT MIN(c.id) FROM main.messages c
                        WHERE c.conversation_id = m.conversation_id AND c.id > m.id) AS active_child
                FROM main.messages m;
            CREATE TEMP TABLE presets (name TEXT PRIMARY KEY, settings TEXT NOT NULL, created REAL NOT NULL);
            CREATE TEMP TABLE preferences (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            """
        )
    if version < 3:
        db.executescript(
            """
            CREATE TEMP VIEW tokens AS SELECT t.*, NULL AS source, NULL AS copied_from FROM main.tokens t;
            CREATE TEMP TABLE steps (message_id INTEGER NOT NULL, idx INTEGER NOT NULL,
                first_token INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (message_id, idx));
            CREATE TEMP TABLE attachments (id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE,
                kind TEXT NOT NULL, size INTEGER NOT NULL, text TEXT NOT NULL, meta TEXT NOT NULL DEFAULT '{}',
                created REAL NOT NULL);
            CREATE TEMP TABLE message_attachments (message_id INTEGER NOT NULL, position INTEGER NOT NULL,
                attachment_id INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (message_id, position));
            CREATE VIRTUAL TABLE temp.attachment_chunks USING fts5(text, attachment_id UNINDEXED, start UNINDEXED,
                tokenize='porter unicode61 remove_diacritics 2');
            """
        )
    if version < 4:
        db.executescript(
            """
            CREATE TEMP TABLE images (id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, mime TEXT NOT NULL,
                size INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL, data BLOB NOT NULL,
                created REAL NOT NULL);
            CREATE TEMP TABLE message_images (message_id INTEGER NOT NULL, position INTEGER NOT NULL,
                image_id INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (message_id, position));
            """
        )


def _statements(script: str) -> list[str]:
    return [part.strip() for part in script.split(";") if part.strip()]


def _test_pause() -> None:
    marker = os.environ.get(TEST_HOOK_PAUSE_ENV)
    if not marker:
        return
    Path(marker).write_text(str(os.getpid()))
    time.sleep(120)
