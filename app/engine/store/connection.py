"""The store's connection to its file: opening it (for writing or read-only), each write's transaction, closing.

Opening for writing takes the writer lock (:mod:`app.engine.store.lock`),
checks the folder and the file before trusting them
(:mod:`app.engine.store.database`), sets WAL mode, migrates an older file
(:mod:`app.engine.store.migration`) and does the housekeeping every writable
open owes: replies a crash cut short are closed (``interrupted``, their text
rebuilt from their tokens, once) and conversations in the trash longer than
:data:`TRASH_KEEP_S` are deleted. A read-only store changes nothing and reads
an older file as it is.

:class:`StoreConnection` is the base the store's parts (conversations,
presets, the message tree, replies, exports) are built on: it holds the
connection, opens every write's transaction and turns SQLite's errors into
:class:`~app.engine.store.database.StoreWriteError`.
"""

from __future__ import annotations

import contextlib
import enum
import sqlite3
import time
from pathlib import Path
from typing import Self, TypeVar

from app.core import stored_json
from app.core.conversation.chat import MessageState
from app.core.display.wording import QT_TRANSLATE_NOOP
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
from app.engine.store.migration import read_as_current, schema_version, upgrade
from app.engine.store.schema import SCHEMA, SCHEMA_VERSION
from app.engine.store.tokens import is_partial, partial_text

# A conversation in the trash longer than this is deleted for good when the store opens.
TRASH_KEEP_S = 7 * 24 * 3600

# The details of "could not open" errors, said by the window's notice (app/ui/store_guard.py).
_NO_LOCK_FILE = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "no lock file can be made ({error})")
_IN_USE_ADVICE = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "open it read-only, or close the other window")
_NO_COPY_KEPT = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "no copy could be kept before updating it ({error})")
_NOT_EVEN_READ_ONLY = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "it cannot be read even read-only ({error})")

_E = TypeVar("_E", bound=enum.StrEnum)


def default_path() -> Path:
    """The conversations database in the data folder."""
    return data_dir() / "conversations.sqlite3"


class StoreConnection:
    """One SQLite connection to the chat database, its writer lock, and the transaction every write runs in.

    ``read_only`` opens the file without the writer lock and never writes to
    it. Opening for writing raises :class:`StoreOpenError` when the file or
    its folder is unusable or another store holds the lock, and migrates an
    older file (keeping a copy of it first; :attr:`migrated_from` names the copy).
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
    def scratch(cls, path: Path | None = None) -> Self:
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
            raise StoreOpenError(Problem.READ_ONLY, self.path.parent, _NO_LOCK_FILE.fill(error=str(exc))) from exc
        if not held:
            raise StoreOpenError(Problem.IN_USE, self.path, _IN_USE_ADVICE)
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
                raise StoreOpenError(Problem.READ_ONLY, self.path.parent, _NO_COPY_KEPT.fill(error=str(exc))) from exc
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
                read_as_current(db, version)  # read as it is: only a writer migrates
        except sqlite3.Error as exc:
            raise StoreOpenError(Problem.DAMAGED, self.path, _NOT_EVEN_READ_ONLY.fill(error=str(exc))) from exc
        return db

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

    # -- shared by the store's parts ---------------------------------------------

    def _conversation_row(self, conversation_id: int) -> sqlite3.Row:
        row = self._db.execute("SELECT * FROM conversations WHERE id=?", (conversation_id,)).fetchone()
        if row is None:
            raise KeyError(conversation_id)
        return row

    def _message_row(self, message_id: int) -> sqlite3.Row:
        row = self._db.execute("SELECT * FROM messages WHERE id=?", (message_id,)).fetchone()
        if row is None:
            raise KeyError(message_id)
        return row

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


def member_or_text(kind: type[_E], text: str) -> _E | str:
    """A stored value as its enum member; a value this Tandem does not know (a hand edit) stays the text it is.

    Reading never refuses a row over its role, state or origin: the window and
    the CLI show an unknown one as it is written, and exports keep it.
    """
    try:
        return kind(text)
    except ValueError:
        return text


def _close_crashed_replies(db: sqlite3.Connection) -> None:
    """Replies still ``streaming`` belong to a process that died: mark them and give them their text, once."""
    streaming, interrupted = MessageState.STREAMING, MessageState.INTERRUPTED
    rows = db.execute("SELECT id, content, meta FROM messages WHERE state=?", (streaming,)).fetchall()
    # Older files marked them without rebuilding the text: rebuild those too.
    rows += db.execute("SELECT id, content, meta FROM messages WHERE state=? AND content=''", (interrupted,)).fetchall()
    if not rows:
        return
    db.execute("BEGIN")
    try:
        for row in rows:
            meta = stored_json.dict_of(row["meta"])
            content = row["content"]
            if is_partial(streaming, content, meta):
                parts = db.execute("SELECT text FROM tokens WHERE message_id=? ORDER BY idx", (row["id"],))
                content = partial_text(content, meta, [str(part[0]) for part in parts])
            db.execute("UPDATE messages SET state=?, content=? WHERE id=?", (interrupted, content, row["id"]))
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
