"""Files attached to messages, as the store keeps them: each file once (by SHA-256), linked to every message using it.

A message's attachments are written with the message, in its transaction
(:meth:`~app.engine.store.tree.MessageTree.add_message` calls
:func:`link_attachments`): a file already stored under its hash is linked,
not stored again, and each link keeps the name it was attached under and its
position. :func:`read_attachments` fills
:attr:`~app.engine.store.tree.StoredMessage.attachments` on read, the name on
each being the link's. A file stays while any message links it: the schema's
trigger removes it (and its chunks) with its last link, whichever way the
message goes (deleted, its chat emptied from the trash).

A row's ``sha256`` is a promise: the row under a file's hash holds the text
Tandem itself read from that file. An imported export cannot keep it (it
carries the extracted text, never the bytes, so nothing can check the text
against the hash it claims): an imported file is linked to the row under its
claimed hash only when that row holds exactly the same text and details, and
otherwise is stored under a key of its own, :func:`imported_key` (a SHA-256
over a marker, the claimed hash and everything imported, which no file's
bytes can be made to hash to). Both ways, planted text never stands under a
real file's hash. And when the user attaches a file whose hash a row already
holds with other text (a store an older Tandem imported into, or a reader
that has changed since), that row is moved to its :func:`imported_key`, its
messages keeping it, and the file's own text takes the hash.

:class:`AttachmentSummary` is an attachment without its text, for chips and
listings (``chats show --json``, ``chat --json``); it is the one JSON spelling
of an attachment outside an export.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from app.core import stored_json
from app.core.attachments.record import Attachment, AttachmentKind
from app.engine.store.connection import StoreConnection
from app.engine.store.linked import linked_rows


@dataclass(frozen=True, slots=True)
class AttachmentSummary:
    """An attachment as a chip or a listing shows it: what it is and how big, without its text."""

    name: str
    kind: str  # an AttachmentKind value (a hand-edited file's unknown kind stays as written)
    size: int  # bytes of the original
    sha256: str
    chars: int  # characters of extracted text
    sections: int  # pages or files marked in it
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, attachment: Attachment) -> AttachmentSummary:
        """The summary of a whole attachment."""
        return cls(
            attachment.name,
            attachment.kind.value,
            attachment.size,
            attachment.sha256,
            len(attachment.text),
            len(attachment.sections),
            attachment.notes,
        )

    def to_json(self) -> dict[str, Any]:
        """``{"name", "kind", "size", "sha256", "chars", "sections", "notes"}``."""
        return {
            "name": self.name,
            "kind": self.kind,
            "size": self.size,
            "sha256": self.sha256,
            "chars": self.chars,
            "sections": self.sections,
            "notes": list(self.notes),
        }


def attachment_bytes(attachments: Sequence[Attachment]) -> int:
    """About how many bytes storing ``attachments`` needs (their text), for the full-disk message."""
    return sum(len(a.text.encode("utf-8", "surrogatepass")) + 256 for a in attachments)


def imported_key(attachment: Attachment) -> str:
    """The key an imported file is stored under when its claimed hash cannot be trusted: 64 hex digits of SHA-256.

    It covers the marker, the hash the export claims, and the kind, size, text
    and details imported, so importing the same file again finds the same row.
    """
    digest = hashlib.sha256(b"tandem: imported attachment, its bytes unseen\0")
    for part in (
        attachment.sha256,
        attachment.kind.value,
        str(attachment.size),
        json.dumps(attachment.meta_json(), sort_keys=True),
        attachment.text,
    ):
        encoded = part.encode("utf-8", "surrogatepass")
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
    return digest.hexdigest()


def link_attachments(
    db: sqlite3.Connection, message_id: int, attachments: Sequence[Attachment], *, imported: bool = False
) -> None:
    """Store each file not yet stored and link them all to the message, in order (inside a transaction).

    ``imported``: the attachments come from an export (text whose hash nothing
    has checked), kept apart from files the user attached (see the module's docstring).
    """
    now = time.time()
    for position, attachment in enumerate(attachments):
        key = _key(db, attachment) if imported else _claim(db, attachment)
        db.execute(
            "INSERT INTO attachments(sha256, kind, size, text, meta, created) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(sha256) DO NOTHING",
            (
                key,
                attachment.kind.value,
                attachment.size,
                attachment.text,
                json.dumps(attachment.meta_json()),
                now,
            ),
        )
        row = db.execute("SELECT id FROM attachments WHERE sha256=?", (key,)).fetchone()
        db.execute(
            "INSERT INTO message_attachments(message_id, position, attachment_id, name) VALUES (?, ?, ?, ?)",
            (message_id, position, int(row[0]), attachment.name),
        )


def _stored(db: sqlite3.Connection, key: str) -> tuple[int, Attachment] | None:
    """The row under ``key`` and what it holds, or None."""
    row = db.execute("SELECT id, sha256, kind, size, text, meta FROM attachments WHERE sha256=?", (key,)).fetchone()
    if row is None:
        return None
    return int(row[0]), _attachment((None, "", *tuple(row)[1:]))


def _same(stored: Attachment, attachment: Attachment) -> bool:
    return (
        stored.kind == attachment.kind
        and stored.size == attachment.size
        and stored.text == attachment.text
        and stored.meta_json() == attachment.meta_json()
    )


def _key(db: sqlite3.Connection, attachment: Attachment) -> str:
    """Where an imported file goes: beside an identical stored one, else under its :func:`imported_key`."""
    found = _stored(db, attachment.sha256)
    if found is not None and _same(found[1], attachment):
        return attachment.sha256  # the very text this store already keeps under that hash: nothing is planted
    return imported_key(attachment)


def _claim(db: sqlite3.Connection, attachment: Attachment) -> str:
    """The file's own hash, freed first if a row there holds other text (moved aside, its messages keeping it)."""
    found = _stored(db, attachment.sha256)
    if found is None or _same(found[1], attachment):
        return attachment.sha256
    row_id, other = found
    aside = imported_key(other)
    existing = db.execute("SELECT id FROM attachments WHERE sha256=?", (aside,)).fetchone()
    if existing is None:
        db.execute("UPDATE attachments SET sha256=? WHERE id=?", (aside, row_id))
    else:  # the same text is already kept apart: its messages join that row, and this one goes
        db.execute("UPDATE message_attachments SET attachment_id=? WHERE attachment_id=?", (int(existing[0]), row_id))
        db.execute("DELETE FROM attachment_chunks WHERE attachment_id=?", (row_id,))
        db.execute("DELETE FROM attachments WHERE id=?", (row_id,))
    return attachment.sha256


def read_attachments(db: sqlite3.Connection, message_ids: Iterable[int]) -> dict[int, tuple[Attachment, ...]]:
    """Each message's attachments, in the order attached, named as each link names them (messages without: absent)."""
    found: dict[int, list[Attachment]] = defaultdict(list)
    select = (
        "SELECT l.message_id, l.name, a.sha256, a.kind, a.size, a.text, a.meta FROM message_attachments l "
        "JOIN attachments a ON a.id = l.attachment_id"
    )
    for row in linked_rows(db, select, message_ids):
        found[int(row[0])].append(_attachment(row))
    return {message_id: tuple(items) for message_id, items in found.items()}


def _attachment(row: sqlite3.Row | tuple[Any, ...]) -> Attachment:
    """A stored file as an attachment; details this Tandem cannot read (a hand edit) are said, not refused."""
    _, name, sha256, kind, size, text, meta = tuple(row)
    try:
        return Attachment.from_stored(
            str(name), str(kind), str(sha256), int(size), str(text), stored_json.dict_of(meta)
        )
    except ValueError as exc:
        note = f"its stored details could not be read ({exc})"
        return Attachment(str(name), AttachmentKind.TEXT, str(sha256), int(size), str(text), (), (note,))


class Attachments(StoreConnection):
    """The attachments of stored messages, for chips that need no text."""

    def attachment_summaries(self, message_id: int) -> list[AttachmentSummary]:
        """What is attached to a message (name, kind, size, characters...), in order, without reading the texts."""
        rows = self._db.execute(
            "SELECT l.name, a.kind, a.size, a.sha256, length(a.text) AS chars, a.meta FROM message_attachments l "
            "JOIN attachments a ON a.id = l.attachment_id WHERE l.message_id=? ORDER BY l.position",
            (message_id,),
        ).fetchall()
        out = []
        for row in rows:
            meta = stored_json.dict_of(row["meta"])
            sections, notes = meta.get("sections"), meta.get("notes")
            out.append(
                AttachmentSummary(
                    str(row["name"]),
                    str(row["kind"]),
                    int(row["size"]),
                    str(row["sha256"]),
                    int(row["chars"] or 0),
                    len(sections) if isinstance(sections, list) else 0,
                    tuple(str(n) for n in notes) if isinstance(notes, list) else (),
                )
            )
        return out

    def attachment_count(self) -> int:
        """How many distinct files the store holds (each once, however many messages link it)."""
        return int(self._db.execute("SELECT COUNT(*) FROM attachments").fetchone()[0])
