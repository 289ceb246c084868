"""Opening the conversations file without trusting it, and saying in plain words what is wrong with it.

Before the store writes anything (WAL mode, the schema, marking crashed
replies) the file is looked at read-only: is it a file, can its folder and
the file itself be written, does it start like an SQLite database of the
length its header claims, and does SQLite's ``quick_check`` find every page
sound. Any "no" becomes a :class:`StoreOpenError` naming the
:class:`Problem`, so the window can offer the right ways out (recover, start
fresh, read-only) and the CLI can print one line. Nothing here ever writes to
a file it found damaged.

The writer makes the file and its ``-wal``/``-shm`` companions private to
this user (0600, the data folder 0700 when it creates it): chats are
nobody else's business on a shared machine.

Errors during writes become :class:`StoreWriteError`, whose message says what
happened (full disk, I/O error, read-only) and, for a full disk, how much room
is free and about how much more is needed.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import shutil
import sqlite3
from pathlib import Path
from urllib.parse import quote

from app.core.display.units import format_bytes
from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words
from app.core.errors import TandemError
from app.engine.safe_files import make_private, make_private_folder, tighten

SQLITE_MAGIC = b"SQLite format 3\x00"
HEADER_SIZE = 100

# Primary result codes (the low byte of sqlite3.Error.sqlite_errorcode).
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6
_SQLITE_READONLY = 8
_SQLITE_IOERR = 10
_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_CANTOPEN = 14
_SQLITE_NOTADB = 26


class Problem(enum.Enum):
    """Why the conversations file cannot be used for writing."""

    UNUSABLE_FOLDER = "unusable-folder"  # the data folder cannot be created or is not a folder
    NOT_A_FILE = "not-a-file"  # a folder (or something else) sits where the database should be
    READ_ONLY = "read-only"  # the file or its folder cannot be written
    DAMAGED = "damaged"  # destroyed header, cut short, or pages that fail the check
    IN_USE = "in-use"  # another Tandem is writing to it


# The store's problems as the window says them, in its own language there (``str``: English).
_PLAIN = {
    Problem.UNUSABLE_FOLDER: QT_TRANSLATE_NOOP("ChatDatabase", "the data folder cannot be used"),
    Problem.NOT_A_FILE: QT_TRANSLATE_NOOP("ChatDatabase", "the chat database is not a file"),
    Problem.READ_ONLY: QT_TRANSLATE_NOOP("ChatDatabase", "the chat database cannot be written"),
    Problem.DAMAGED: QT_TRANSLATE_NOOP("ChatDatabase", "the chat database is damaged"),
    Problem.IN_USE: QT_TRANSLATE_NOOP("ChatDatabase", "another Tandem window is using this data folder"),
}
_OPEN_FAILED = QT_TRANSLATE_NOOP("ChatDatabase", "{problem} ({path}): {detail}")
_FULL = QT_TRANSLATE_NOOP(
    "ChatDatabase",
    "the chat could not be saved: the database or disk is full ({folder}: {room}{need}). "
    "Free some space; Tandem keeps the reply and saves it as soon as it can.",
)
_FREE = QT_TRANSLATE_NOOP("ChatDatabase", "{free} free on its disk")
_FREE_UNKNOWN = QT_TRANSLATE_NOOP("ChatDatabase", "free space unknown")
_NEEDED = QT_TRANSLATE_NOOP("ChatDatabase", "; about {size} more is needed")
_BECAME_READ_ONLY = QT_TRANSLATE_NOOP(
    "ChatDatabase", "the chat could not be saved: {path} has become read-only. Tandem keeps the reply in memory."
)
_IO_ERROR = QT_TRANSLATE_NOOP(
    "ChatDatabase", "the chat could not be saved: the disk reported an I/O error on {path} ({error})."
)
_DAMAGED = QT_TRANSLATE_NOOP(
    "ChatDatabase", "the chat could not be saved: {path} is damaged ({error}). Restart Tandem to recover it."
)
_BUSY = QT_TRANSLATE_NOOP("ChatDatabase", "the chat could not be saved: {path} is locked by another program ({error}).")
_NOT_SAVED = QT_TRANSLATE_NOOP("ChatDatabase", "the chat could not be saved: {error}")


class StoreOpenError(TandemError):
    """The conversations file could not be opened for writing; ``problem`` says why, in one line."""

    def __init__(self, problem: Problem, path: Path, detail: str | Phrase | Words) -> None:
        super().__init__(_OPEN_FAILED.fill(problem=_PLAIN[problem], path=str(path), detail=detail))
        self.problem = problem
        self.path = path
        self.detail = detail


class StoreWriteError(TandemError):
    """A write the store could not make; what the caller still holds in memory is not lost."""

    def __init__(self, message: str | Words, kind: str) -> None:
        super().__init__(message)
        self.kind = kind  # "full", "io", "read-only", "damaged", "busy" or "other"


def check_folder(folder: Path) -> None:
    """Raise :class:`StoreOpenError` unless ``folder`` exists (or can be made) and can be written."""
    try:
        make_private_folder(folder)
    except OSError as exc:
        raise StoreOpenError(Problem.UNUSABLE_FOLDER, folder, _WITH_ADVICE.fill(reason=_os_reason(exc))) from exc
    if not folder.is_dir():
        raise StoreOpenError(Problem.UNUSABLE_FOLDER, folder, _WITH_ADVICE.fill(reason=_NOT_A_FOLDER))
    if not os.access(folder, os.W_OK):
        raise StoreOpenError(Problem.READ_ONLY, folder, _FOLDER_READ_ONLY)


# The details of "could not open" errors, said by the window's notice (app/ui/store_guard.py).
_WITH_ADVICE = QT_TRANSLATE_NOOP(
    "ChatDatabaseDetail", "{reason}; set TANDEM_DATA_DIR to a folder you can write, or unset it"
)
_NOT_A_FOLDER = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "it is not a folder")
_FOLDER_READ_ONLY = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "the folder is read-only")
_NOT_A_FILE = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "a folder or other non-file is in its place")
_UNREADABLE_FILE = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "the file cannot be read")
_FILE_READ_ONLY = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "the file is read-only")
HEADER_DESTROYED = QT_TRANSLATE_NOOP(
    "ChatDatabaseDetail", "its header is destroyed (it does not start like an SQLite database)"
)
NO_PAGE_SIZE = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "its header is destroyed (no valid page size)")
_NOT_WHOLE_PAGES = QT_TRANSLATE_NOOP(
    "ChatDatabaseDetail", "it is cut short ({size} bytes is not a whole number of {page_size}-byte pages)"
)
_PAGES_MISSING = QT_TRANSLATE_NOOP("ChatDatabaseDetail", "it is cut short ({there} of {pages} pages are there)")


def make_files_private(path: Path) -> None:
    """Make the database readable by this user only: created 0600 if missing, else tightened with its companions.

    Called by the writer before SQLite opens the file. SQLite gives the
    ``-wal`` and ``-shm`` files it creates the main file's mode, so a 0600
    database keeps them 0600 too; ones left looser by an older Tandem are
    tightened here. An empty file is a sound new database (see :func:`check_file`).
    """
    make_private(path)
    for suffix in ("-wal", "-shm"):
        tighten(path.with_name(path.name + suffix))


def check_file(path: Path) -> None:
    """Raise :class:`StoreOpenError` if ``path`` exists but is not a sound, writable SQLite file.

    Only reads: the header's first bytes and length, then ``quick_check``
    through a read-only connection (which never checkpoints or rewrites).
    """
    if not path.exists() and not path.is_symlink():
        return
    if not path.is_file():
        raise StoreOpenError(Problem.NOT_A_FILE, path, _NOT_A_FILE)
    if not os.access(path, os.R_OK):
        raise StoreOpenError(Problem.READ_ONLY, path, _UNREADABLE_FILE)
    damage = header_damage(path)
    if damage:
        raise StoreOpenError(Problem.DAMAGED, path, damage)
    if path.stat().st_size:
        verdict = quick_check(path)
        if verdict != "ok":
            raise StoreOpenError(Problem.DAMAGED, path, verdict)
    if not os.access(path, os.W_OK):
        raise StoreOpenError(Problem.READ_ONLY, path, _FILE_READ_ONLY)


def header_damage(path: Path) -> str | Phrase | Words:
    """What is wrong with the file's header and length, or ``""`` (an empty file is sound: SQLite starts it)."""
    size = path.stat().st_size
    if size == 0:
        return ""
    with path.open("rb") as handle:
        header = handle.read(HEADER_SIZE)
    if len(header) < HEADER_SIZE or not header.startswith(SQLITE_MAGIC):
        return HEADER_DESTROYED
    page_size = page_size_of(header)
    if page_size == 0:
        return NO_PAGE_SIZE
    pages = int.from_bytes(header[28:32], "big")
    counter_valid = header[24:28] == header[92:96]
    if size % page_size:
        return _NOT_WHOLE_PAGES.fill(size=size, page_size=page_size)
    if counter_valid and pages and size < pages * page_size:
        return _PAGES_MISSING.fill(there=size // page_size, pages=pages)
    return ""


def page_size_of(header: bytes) -> int:
    """The page size the header declares (0 when invalid)."""
    raw = int.from_bytes(header[16:18], "big")
    size = 65536 if raw == 1 else raw
    return size if size >= 512 and size & (size - 1) == 0 else 0


def quick_check(path: Path) -> str:
    """SQLite's ``quick_check`` through a read-only connection: ``"ok"`` or the first problems, in one line."""
    try:
        db = connect_read_only(path)
    except sqlite3.Error as exc:
        return f"SQLite cannot open it ({exc})"
    try:
        rows = db.execute("PRAGMA quick_check(5)").fetchall()
    except sqlite3.Error as exc:
        return f"SQLite cannot read it ({exc})"
    finally:
        db.close()
    # A finding can span lines ("*** in database main ***" then the page): one line for the CLI and the notice.
    found = [" ".join(str(row[0]).split()) for row in rows]
    return "ok" if found == ["ok"] else "; ".join(found)


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot change the file (nor checkpoint its WAL).

    ``mode=ro`` still needs the ``-shm`` file when the database is in WAL mode;
    where that cannot be made (a read-only folder) the file is opened as
    ``immutable``, which reads the main file only.
    """
    uri = f"file:{quote(str(path))}"
    try:
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None)
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError:
        with contextlib.suppress(UnboundLocalError, sqlite3.Error):
            db.close()
        return sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None)


def write_error(exc: sqlite3.Error | OSError, path: Path, needed_bytes: int = 0) -> StoreWriteError:
    """A :class:`StoreWriteError` in plain words for a failed write to ``path``."""
    kind = _kind_of(exc)
    folder = path.parent
    if kind == "full":
        free = _free_bytes(folder)
        room = _FREE.fill(free=format_bytes(free)) if free is not None else _FREE_UNKNOWN
        need = _NEEDED.fill(size=format_bytes(max(needed_bytes, 64 * 1024))) if needed_bytes >= 0 else ""
        message: Words = _FULL.fill(folder=str(folder), room=room, need=need)
    elif kind == "read-only":
        message = _BECAME_READ_ONLY.fill(path=str(path))
    elif kind == "io":
        message = _IO_ERROR.fill(path=str(path), error=str(exc))
    elif kind == "damaged":
        message = _DAMAGED.fill(path=str(path), error=str(exc))
    elif kind == "busy":
        message = _BUSY.fill(path=str(path), error=str(exc))
    else:
        message = _NOT_SAVED.fill(error=str(exc))
    return StoreWriteError(message, kind)


def _kind_of(exc: sqlite3.Error | OSError) -> str:
    if isinstance(exc, OSError):
        return {errno.ENOSPC: "full", errno.EDQUOT: "full", errno.EROFS: "read-only", errno.EACCES: "read-only"}.get(
            exc.errno or 0, "io"
        )
    code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    return {
        _SQLITE_FULL: "full",
        _SQLITE_IOERR: "io",
        _SQLITE_READONLY: "read-only",
        _SQLITE_CANTOPEN: "io",
        _SQLITE_CORRUPT: "damaged",
        _SQLITE_NOTADB: "damaged",
        _SQLITE_BUSY: "busy",
        _SQLITE_LOCKED: "busy",
    }.get(code, "other")


def _free_bytes(folder: Path) -> int | None:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def _os_reason(exc: OSError) -> str:
    return exc.strerror.lower() if exc.strerror else str(exc)
