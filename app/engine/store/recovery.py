"""Getting chats back from a damaged database: read what can be read into a new file; move the damaged one aside.

Python's ``sqlite3`` has no ``.recover`` and the ``sqlite3`` command-line tool
may be missing on a user's machine, so recovery is done here with SQLite's
own reader, row by row, from a *copy* of the damaged file (and its ``-wal``):

- a destroyed 100-byte header is rebuilt on the copy from a fresh header of
  the same page size (the size is found by looking for the schema page's
  b-tree header), so the pages behind it can be read again;
- each table is walked in key order in chunks; where a chunk hits a damaged
  page, rows are probed one key at a time past the damage, so one bad page
  costs only the rows stored on it;
- messages whose conversation was lost go into a "Recovered messages"
  conversation; replies whose text was never written get it from their tokens;
- attached files come back with the links of the messages that came back
  (a file no recovered message links is left out; the retrieval chunks are
  not copied: they are rebuilt from the text when first searched).

The original file is never opened for writing. :func:`recover_in_place`
moves it (with its ``-wal`` and ``-shm``) aside under a dated name and puts
the recovered file in its place.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.core.errors import TandemError
from app.engine.safe_files import make_private
from app.engine.store.database import (
    HEADER_DESTROYED,
    HEADER_SIZE,
    NO_PAGE_SIZE,
    SQLITE_MAGIC,
    header_damage,
    page_size_of,
)
from app.engine.store.schema import SCHEMA

_CHUNK = 256
# How far past the last readable key to keep probing when the table's maximum cannot be read.
_PROBE_SPAN = 20_000
_SIDE_FILES = ("-wal", "-shm")

# Said by the window's notice after "Recover what can be read" (app/ui/store_guard.py).
_RECOVERED = QT_TRANSLATE_NOOP(
    "ChatRecovery", "recovered {conversations} conversations, {messages} messages and {tokens} tokens{skipped}{kept}"
)
_SKIPPED = QT_TRANSLATE_NOOP("ChatRecovery", "; {unreadable} unreadable parts were skipped")
_KEPT_AS = QT_TRANSLATE_NOOP("ChatRecovery", "; the damaged file is kept as {path}")
_NOT_MOVED = QT_TRANSLATE_NOOP("ChatRecovery", "could not move {path} aside ({error})")
_NO_OVERWRITE = QT_TRANSLATE_NOOP("ChatRecovery", "will not overwrite {path}")
_NOT_READ = QT_TRANSLATE_NOOP("ChatRecovery", "could not read {path} to recover it ({error})")
_NOTHING_READ = QT_TRANSLATE_NOOP("ChatRecovery", "nothing could be read from {path} ({error})")
_NOT_IN_PLACE = QT_TRANSLATE_NOOP(
    "ChatRecovery", "the recovered chats are in {path}, but could not be put in place ({error})"
)


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    """What a recovery read back, and where the files went."""

    recovered: Path
    conversations: int
    messages: int
    tokens: int
    unreadable: int  # runs of rows that could not be read
    damaged_copy: Path | None = None  # where the original was moved, by recover_in_place

    def summary(self) -> str:
        """One line for the user (the CLI); the window says :meth:`words`."""
        return str(self.words())

    def words(self) -> Words:
        """The summary, translatable, its counts kept as numbers."""
        skipped: Words | str = _SKIPPED.fill(unreadable=self.unreadable) if self.unreadable else ""
        kept: Words | str = _KEPT_AS.fill(path=str(self.damaged_copy)) if self.damaged_copy is not None else ""
        return _RECOVERED.fill(
            conversations=self.conversations, messages=self.messages, tokens=self.tokens, skipped=skipped, kept=kept
        )


def aside_name(path: Path, label: str) -> Path:
    """A free name beside ``path`` for a file moved aside, e.g. ``conversations.damaged-20260101-120000.sqlite3``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.stem}.{label}-{stamp}{path.suffix}")
    n = 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}.{label}-{stamp}-{n}{path.suffix}")
    return candidate


def move_aside(path: Path, label: str = "damaged") -> Path | None:
    """Rename ``path`` (file or folder) and its WAL files aside, unchanged; returns the new name (None if absent)."""
    if not path.exists() and not path.is_symlink():
        return None
    target = aside_name(path, label)
    try:
        path.rename(target)
        for suffix in _SIDE_FILES:
            side = path.with_name(path.name + suffix)
            if side.exists():
                side.rename(target.with_name(target.name + suffix))
    except OSError as exc:
        raise TandemError(_NOT_MOVED.fill(path=str(path), error=str(exc.strerror or exc))) from exc
    return target


def recover(source: Path, destination: Path) -> RecoveryReport:
    """Copy every readable conversation, message and token of ``source`` into a new file ``destination``."""
    if destination.exists():
        raise TandemError(_NO_OVERWRITE.fill(path=str(destination)))
    with tempfile.TemporaryDirectory(prefix="tandem-recover-") as work:
        copy = Path(work) / source.name
        try:
            shutil.copyfile(source, copy)
            for suffix in _SIDE_FILES[:1]:
                side = source.with_name(source.name + suffix)
                if side.is_file():
                    shutil.copyfile(side, copy.with_name(copy.name + suffix))
        except OSError as exc:
            raise TandemError(_NOT_READ.fill(path=str(source), error=str(exc.strerror or exc))) from exc
        _repair_header(copy)
        try:
            # A normal connection on the copy, so a -wal left by a crash is read too
            # (a read-only one could not build the -shm it needs and would skip it).
            src = sqlite3.connect(copy, isolation_level=None)
        except sqlite3.Error as exc:
            raise TandemError(_NOTHING_READ.fill(path=str(source), error=str(exc))) from exc
        try:
            src.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            src.close()
            raise TandemError(_NOTHING_READ.fill(path=str(source), error=str(exc))) from exc
        make_private(destination)  # the recovered chats: 0600 like the database they replace
        dest = sqlite3.connect(destination, isolation_level=None)
        try:
            dest.executescript(SCHEMA)
            dest.execute("BEGIN")
            report = _copy_rows(src, dest, destination)
            dest.execute("COMMIT")
        except BaseException:
            dest.close()
            destination.unlink(missing_ok=True)
            raise
        finally:
            src.close()
        dest.close()
    return report


def recover_in_place(path: Path) -> RecoveryReport:
    """Recover ``path`` into a new file, move the damaged one aside, and put the recovered one in its place."""
    fresh = aside_name(path, "recovered")
    report = recover(path, fresh)
    damaged = move_aside(path)
    try:
        fresh.rename(path)
    except OSError as exc:
        raise TandemError(_NOT_IN_PLACE.fill(path=str(fresh), error=str(exc))) from exc
    return RecoveryReport(path, *_counts(report), damaged_copy=damaged)


def _counts(report: RecoveryReport) -> tuple[int, int, int, int]:
    return report.conversations, report.messages, report.tokens, report.unreadable


def _repair_header(copy: Path) -> None:
    """Make a damaged copy readable: a fresh header where it was destroyed, the file's own length where cut short."""
    damage = header_damage(copy)
    if not damage:
        return
    size = copy.stat().st_size
    with copy.open("rb") as handle:
        first = handle.read(65536)
    if damage in (HEADER_DESTROYED, NO_PAGE_SIZE):
        page_size = _guess_page_size(first, size)
        if page_size == 0:
            return
        header = bytearray(_fresh_header(page_size))
        has_wal = copy.with_name(copy.name + "-wal").is_file()
        header[18] = header[19] = 2 if has_wal else 1
    else:
        page_size = page_size_of(first[:HEADER_SIZE])
        header = bytearray(first[:HEADER_SIZE])
    header[28:32] = (0).to_bytes(4, "big")  # size unknown: SQLite then trusts the file's length
    with copy.open("r+b") as handle:
        handle.write(bytes(header))
        handle.truncate(size - size % page_size)  # a torn last page is unreadable anyway


def _guess_page_size(first: bytes, size: int) -> int:
    """The page size whose second page starts like a b-tree page (the first page's own tree sits after the header)."""
    declared = page_size_of(first[:HEADER_SIZE]) if first.startswith(SQLITE_MAGIC) else 0
    candidates = [declared] if declared else []
    candidates += [4096, 1024, 2048, 8192, 16384, 32768, 65536, 512]
    tree_starts = (b"\x0d", b"\x05", b"\x0a", b"\x02", b"\x00")  # b-tree page types, or an unused page
    for page_size in candidates:
        if not page_size or size % page_size or first[HEADER_SIZE : HEADER_SIZE + 1] not in (b"\x0d", b"\x05"):
            continue
        if size == page_size or len(first) <= page_size or first[page_size : page_size + 1] in tree_starts:
            return page_size
    return 0


def _fresh_header(page_size: int) -> bytes:
    with tempfile.TemporaryDirectory(prefix="tandem-header-") as work:
        path = Path(work) / "fresh.sqlite3"
        db = sqlite3.connect(path)
        db.execute(f"PRAGMA page_size={page_size}")
        db.execute("CREATE TABLE t(x)")
        db.commit()
        db.close()
        return path.read_bytes()[:HEADER_SIZE]


def _copy_rows(src: sqlite3.Connection, dest: sqlite3.Connection, destination: Path) -> RecoveryReport:
    unreadable = [0]

    def skipped() -> None:
        unreadable[0] += 1

    # A v2 file's extra columns come along; a v1 file's linear chats get their parent links below.
    tree = _has_columns(src, "messages", ("parent_id", "active_child"))
    chat_extra = ", pinned, settings, active_leaf, deleted" if _has_columns(src, "conversations", ("settings",)) else ""
    message_extra = ", parent_id, active_child" if tree else ""
    conversations: set[int] = set()
    for row in _readable(src, f"SELECT id, title, created, updated{chat_extra} FROM conversations", "id", skipped):
        marks = ", ".join("?" * len(row))
        dest.execute(f"INSERT INTO conversations(id, title, created, updated{chat_extra}) VALUES ({marks})", row)
        conversations.add(int(row[0]))
    orphans: int | None = None
    messages: list[tuple[int, str, str]] = []
    select = f"SELECT id, conversation_id, role, content, state, created, meta{message_extra} FROM messages"
    for row in _readable(src, select, "id", skipped):
        values = list(row)
        if int(values[1]) not in conversations:
            if orphans is None:
                now = time.time()
                cursor = dest.execute(
                    "INSERT INTO conversations(title, created, updated) VALUES (?, ?, ?)",
                    ("Recovered messages", now, now),
                )
                orphans = int(cursor.lastrowid or 0)
                conversations.add(orphans)
            values[1] = orphans
        marks = ", ".join("?" * len(values))
        dest.execute(
            f"INSERT INTO messages(id, conversation_id, role, content, state, created, meta{message_extra}) "
            f"VALUES ({marks})",
            values,
        )
        messages.append((int(values[0]), str(values[2]), str(values[3])))
    n_tokens = 0
    for message_id, role, content in messages:
        if role != "assistant":
            continue
        texts: list[str] = []
        select = (
            "SELECT message_id, idx, text, origin, p_target, q_draft, rejected_text, rejected_p, rejected_q "
            f"FROM tokens WHERE message_id={message_id}"
        )
        for row in _readable(src, select, "idx", skipped, where_joiner=" AND "):
            if int(row[1]) != len(texts):
                # Rows after a lost one cannot be placed: the reply keeps the tokens that spell its
                # text's beginning, and its text (kept in full on the message) is what it shows.
                break
            dest.execute(
                "INSERT INTO tokens(message_id, idx, text, origin, p_target, q_draft, rejected_text, rejected_p, "
                "rejected_q) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                tuple(row),
            )
            texts.append(str(row[2]))
            n_tokens += 1
        if not content and texts:
            dest.execute("UPDATE messages SET content=? WHERE id=?", ("".join(texts), message_id))
    _copy_presets(src, dest)
    for blobs in (_ATTACHMENTS, _IMAGES):
        blobs.copy(src, dest, [message_id for message_id, _, _ in messages], skipped)
    _relink(dest, linear=not tree)
    return RecoveryReport(destination, len(conversations), len(messages), n_tokens, unreadable[0])


def _has_columns(src: sqlite3.Connection, table: str, columns: tuple[str, ...]) -> bool:
    try:
        present = {str(row[1]) for row in src.execute(f"PRAGMA table_info({table})")}
    except sqlite3.DatabaseError:
        return False
    return all(column in present for column in columns)


def _copy_presets(src: sqlite3.Connection, dest: sqlite3.Connection) -> None:
    """Presets and preferences, as far as they can be read (small tables: all or nothing each)."""
    for table, columns in (("presets", "name, settings, created"), ("preferences", "key, value")):
        try:
            rows = src.execute(f"SELECT {columns} FROM {table}").fetchall()
        except sqlite3.DatabaseError:
            continue
        marks = ", ".join("?" * len(columns.split(",")))
        dest.executemany(f"INSERT OR IGNORE INTO {table}({columns}) VALUES ({marks})", rows)


@dataclass(frozen=True, slots=True)
class _LinkedBlobs:
    """A table of stored blobs (files, images) and the table that links messages to them by position."""

    table: str  # the blobs: ``id`` first, then the other columns
    columns: tuple[str, ...]
    links: str  # (message_id, position, <key>, name)
    key: str  # the links' column naming a blob's id

    def copy(
        self, src: sqlite3.Connection, dest: sqlite3.Connection, message_ids: list[int], skipped: Callable[[], None]
    ) -> None:
        """The blobs as far as they can be read, and the recovered messages' links to the blobs that came back."""
        if not _has_columns(src, self.links, ("message_id", self.key, "name")):
            return  # a file from before this table
        names = ", ".join(self.columns)
        marks = ", ".join("?" * len(self.columns))
        for row in _readable(src, f"SELECT {names} FROM {self.table}", "id", skipped):
            dest.execute(f"INSERT OR IGNORE INTO {self.table}({names}) VALUES ({marks})", row)
        link_columns = f"message_id, position, {self.key}, name"
        for message_id in message_ids:
            select = f"SELECT {link_columns} FROM {self.links} WHERE message_id={message_id}"
            for row in _readable(src, select, "position", skipped, where_joiner=" AND "):
                dest.execute(
                    f"INSERT INTO {self.links}({link_columns}) "
                    f"SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM {self.table} WHERE id = ?)",
                    (*row, row[2]),
                )
        # A blob whose every link was lost would never be removed by the trigger (it fires on a link's deletion).
        dest.execute(f"DELETE FROM {self.table} WHERE id NOT IN (SELECT {self.key} FROM {self.links})")


# Attached files (a v3 file) and images (a v4 file).
_ATTACHMENTS = _LinkedBlobs(
    "attachments", ("id", "sha256", "kind", "size", "text", "meta", "created"), "message_attachments", "attachment_id"
)
_IMAGES = _LinkedBlobs(
    "images", ("id", "sha256", "mime", "size", "width", "height", "data", "created"), "message_images", "image_id"
)


def _relink(dest: sqlite3.Connection, linear: bool) -> None:
    """Parent links and active branches that hold in the recovered file.

    A v1 file's chats are linear: each message follows the one before it. In
    a v2 file a message whose parent was lost (or moved to "Recovered
    messages") follows the nearest earlier message of its conversation, so
    nothing that came back is unreachable.
    """
    previous = (
        "(SELECT MAX(p.id) FROM messages p WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id)"
    )
    if linear:
        dest.execute(f"UPDATE messages SET parent_id = {previous}")
    else:
        dest.execute(
            f"UPDATE messages SET parent_id = {previous} WHERE parent_id IS NOT NULL AND NOT EXISTS (SELECT 1 "
            "FROM messages p WHERE p.id = messages.parent_id AND p.conversation_id = messages.conversation_id)"
        )
    dest.execute(
        "UPDATE conversations SET active_leaf = (SELECT MAX(m.id) FROM messages m WHERE m.conversation_id = "
        "conversations.id) WHERE active_leaf IS NULL OR NOT EXISTS "
        "(SELECT 1 FROM messages m WHERE m.id = conversations.active_leaf AND m.conversation_id = conversations.id)"
    )


def _readable(
    src: sqlite3.Connection, select: str, key: str, skipped: Callable[[], None], where_joiner: str = " WHERE "
) -> Iterator[tuple[Any, ...]]:
    """Rows of ``select`` in ``key`` order, stepping over keys that sit on damaged pages."""
    upper = _max_key(src, select, key, where_joiner)
    key_index = _column_index(select, key)
    next_key = 0
    last_good = -1
    in_damage = False  # a run of unreadable keys counts once
    while True:
        if upper is not None and next_key > upper:
            return
        if upper is None and next_key > last_good + _PROBE_SPAN:
            return
        try:
            rows = src.execute(
                f"{select}{where_joiner}{key} >= ? ORDER BY {key} LIMIT {_CHUNK}", (next_key,)
            ).fetchall()
        except sqlite3.DatabaseError:
            rows = None
        if rows is None:  # a damaged page in this range: one key at a time until past it
            try:
                one = src.execute(f"{select}{where_joiner}{key} = ?", (next_key,)).fetchall()
            except sqlite3.DatabaseError:
                if not in_damage:
                    skipped()
                in_damage = True
                one = []
            for row in one:
                in_damage = False
                last_good = next_key
                yield tuple(row)
            next_key += 1
            continue
        if not rows:
            if upper is None or next_key > upper:
                return
            next_key = upper + 1
            continue
        in_damage = False
        for row in rows:
            yield tuple(row)
        last_good = int(rows[-1][key_index])
        next_key = last_good + 1


def _max_key(src: sqlite3.Connection, select: str, key: str, where_joiner: str) -> int | None:
    table_and_filter = select.split(" FROM ", 1)[1]
    try:
        row = src.execute(f"SELECT MAX({key}) FROM {table_and_filter}").fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None or row[0] is None else int(row[0])


def _column_index(select: str, key: str) -> int:
    columns = [c.strip() for c in select.split("SELECT ", 1)[1].split(" FROM ", 1)[0].split(",")]
    return columns.index(key)
