"""Tandem's conversation export as a file format: what version 3 holds, and reading back version 1, 2 or 3.

Version 2 (written since the store holds trees) carries the whole tree:
every message with its ``id`` and ``parent``, the active leaf, the chat's
settings and pin, each reply's tokens with origins and probabilities, and its
metadata (``produced_by`` included); a local reply made since Tandem records
its verify steps also has ``steps`` (each the JSON of a
:class:`~app.core.reply.step_record.StepRecord`). An export without the key,
an older one, has no steps; a step this Tandem cannot read (a newer Tandem's)
is left out on import rather than refusing the whole chat. Version 3 adds
attached files: the top-level ``attachments`` holds each file once
(``sha256``, ``kind``, ``size``, its extracted ``text`` and ``meta``), and a
message's ``attachments`` list links them by ``sha256`` under the ``name``
each was attached as. Version 1 was a linear list of messages without ids;
each one follows the one before it. Older versions (without attachments) still read.

:func:`parse_export` checks everything before the store writes anything, so
a file that is not an export is refused whole with one line saying why
(:class:`ImportFormatError`) and nothing is half-imported.

A file is hostile input: :func:`read_export_file` reads only a regular
file (never a FIFO or a device) and at most :data:`MAX_EXPORT_BYTES`, and
a document nested deeper than :data:`MAX_DEPTH`, a number of more digits than Python converts (4,300) or beyond SQLite's
64-bit integers, or a lone UTF-16 surrogate (``"\\ud800"``, which no UTF-8
file or SQLite text can hold) is refused in one line like any other mistake.
"""

from __future__ import annotations

import enum
import json
import math
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from app.core.attachments.record import Attachment, AttachmentKind
from app.core.conversation.chat import MessageState, Role
from app.core.errors import TandemError
from app.core.reply.step_record import StepRecord
from app.core.reply.token_record import TokenRecord
from app.engine.safe_files import Unreadable, UnreadableFileError, read_regular_bytes

FORMAT = "tandem-conversation"
EXPORT_VERSION = 3
READ_VERSIONS = (1, 2, 3)
_SHA256 = re.compile("[0-9a-f]{64}")

_E = TypeVar("_E", bound=enum.StrEnum)
# The biggest export read: far beyond a long chat with every token (about 100 bytes per token), far below memory.
MAX_EXPORT_BYTES = 128 * 1024 * 1024
# Nesting an export may have: its own structure is 6 deep; a reply's metadata adds a few levels.
MAX_DEPTH = 64
_INT_LIMIT = 2**63  # SQLite's integers: a bigger one could only be stored as text or a float
_SURROGATE = re.compile("[\ud800-\udfff]")


class ImportFormatError(TandemError):
    """A file that is not a Tandem conversation export (or a damaged one), in one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"not a Tandem conversation export: {reason}")
        self.reason = reason


@dataclass(slots=True)
class ImportedMessage:
    """One message of an export; ``key`` and ``parent`` are the file's ids, not the store's."""

    key: int
    parent: int | None
    role: Role
    content: str
    state: MessageState
    created: float
    meta: dict[str, Any] = field(default_factory=dict)
    tokens: list[TokenRecord] = field(default_factory=list)
    steps: list[StepRecord] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)  # each named as the message's link names it


@dataclass(slots=True)
class ImportedConversation:
    """A checked export, ready to be written as a new conversation."""

    title: str
    settings: dict[str, Any]
    pinned: bool
    messages: list[ImportedMessage]
    active_leaf: int | None  # a message key


def read_export_file(path: Path) -> object:
    """The JSON document in ``path``, read within the limits above; one-line errors for anything else.

    :class:`ImportFormatError` for a file that is not readable JSON (too big,
    not UTF-8, not JSON, too deep, a number too long); a plain
    :class:`~app.core.errors.TandemError` when the file cannot be read at all.
    """
    try:
        # Only a regular file: a FIFO would wait for a writer for ever, a device might never end.
        raw = read_regular_bytes(path, MAX_EXPORT_BYTES)  # bounded even for a file still growing
    except UnreadableFileError as exc:
        if exc.reason is Unreadable.TOO_BIG:
            raise ImportFormatError(f"the file is larger than {MAX_EXPORT_BYTES // (1024 * 1024)} MiB") from None
        raise TandemError(str(exc)) from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFormatError(f"not UTF-8 text (byte {exc.start})") from exc
    del raw
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"not JSON (line {exc.lineno})") from exc
    except RecursionError:  # json's parser stops at Python's recursion limit (about 1,000 levels)
        raise ImportFormatError(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:  # int() of more than 4,300 digits (Python 3.11's limit against slow conversions)
        raise ImportFormatError(f"a number with more than {sys.get_int_max_str_digits()} digits") from None


def check_document(data: object) -> None:
    """Raise :class:`ImportFormatError` for a nesting, number or text that nothing may store.

    Walks the whole document once without recursion (a deep one cannot
    exhaust the stack): nesting up to :data:`MAX_DEPTH`, integers within
    SQLite's 64 bits, text without lone surrogates, keys included.
    """
    pending: list[tuple[object, int]] = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise ImportFormatError(f"nested deeper than {MAX_DEPTH} levels")
            if isinstance(value, dict):
                pending.extend((key, depth) for key in value)
                pending.extend((item, depth + 1) for item in value.values())
            else:
                pending.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            found = _SURROGATE.search(value)
            if found:
                raise ImportFormatError(
                    f"text holds a lone surrogate (\\u{ord(found.group(0)):04x}), which is not a character"
                )
        elif isinstance(value, int) and not isinstance(value, bool) and not -_INT_LIMIT <= value < _INT_LIMIT:
            raise ImportFormatError(f"a number ({len(str(abs(value)))} digits) is larger than 64 bits")


def parse_export(data: object) -> ImportedConversation:
    """Check an export (v1 or v2) completely; raise :class:`ImportFormatError` naming the first problem."""
    check_document(data)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ImportFormatError(f'no "format": "{FORMAT}" at the top')
    version = data.get("version")
    if version not in READ_VERSIONS or isinstance(version, bool):
        raise ImportFormatError(f"version {version!r} is not one this Tandem reads (1, 2 or 3)")
    title = data.get("title", "Imported chat")
    if not isinstance(title, str):
        raise ImportFormatError('"title" is not text')
    raw_messages = data.get("messages")
    if not isinstance(raw_messages, list):
        raise ImportFormatError('"messages" is not a list')
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise ImportFormatError('"settings" is not an object')
    files = _files(data.get("attachments", []))
    messages: list[ImportedMessage] = []
    seen: set[int] = set()
    for n, raw in enumerate(raw_messages, start=1):
        message = _message(raw, n, version, messages[-1].key if messages else None, files)
        if message.key in seen:
            raise ImportFormatError(f"message {n} repeats id {message.key}")
        if message.parent is not None and message.parent not in seen:
            raise ImportFormatError(f"message {n} follows id {message.parent}, which no earlier message has")
        seen.add(message.key)
        messages.append(message)
    leaf = data.get("active_leaf", messages[-1].key if messages else None) if version >= 2 else None
    if version == 1 and messages:
        leaf = messages[-1].key
    if leaf is not None and leaf not in seen:
        raise ImportFormatError(f'"active_leaf" {leaf!r} is not the id of one of its messages')
    return ImportedConversation(title.strip() or "Imported chat", settings, data.get("pinned") is True, messages, leaf)


def _files(raw: object) -> dict[str, Attachment]:
    """The export's attached files by hash, each checked as the store would read it back."""
    if not isinstance(raw, list):
        raise ImportFormatError('"attachments" is not a list')
    files: dict[str, Attachment] = {}
    for n, item in enumerate(raw, start=1):
        where = f"attachment {n}"
        if not isinstance(item, dict):
            raise ImportFormatError(f"{where} is not an object")
        sha256, kind, size, text, meta = (item.get(k) for k in ("sha256", "kind", "size", "text", "meta"))
        if not (isinstance(sha256, str) and _SHA256.fullmatch(sha256)):
            raise ImportFormatError(f'{where} has no "sha256" of 64 hex digits')
        if _member(AttachmentKind, kind) is None:
            raise ImportFormatError(f"{where} has the kind {kind!r} (expected {_spelled(AttachmentKind)})")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ImportFormatError(f'{where} has a "size" that is not a byte count')
        if not isinstance(text, str):
            raise ImportFormatError(f"{where} has no text")
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise ImportFormatError(f'{where} has "meta" that is not an object')
        try:
            files[sha256] = Attachment.from_stored("", str(kind), sha256, size, text, meta)
        except ValueError as exc:
            raise ImportFormatError(f"{where}: {exc}") from None
    return files


def _links(raw: object, n: int, files: dict[str, Attachment]) -> list[Attachment]:
    """A message's attachments: links by hash to the export's files, each under its own name."""
    if not isinstance(raw, list):
        raise ImportFormatError(f'message {n} has "attachments" that is not a list')
    linked = []
    for item in raw:
        name, sha256 = (item.get("name"), item.get("sha256")) if isinstance(item, dict) else (None, None)
        if not isinstance(name, str) or not isinstance(sha256, str):
            raise ImportFormatError(f'message {n} has an attachment without its "name" and "sha256"')
        if sha256 not in files:
            raise ImportFormatError(f"message {n} links the attachment {name!r}, which the export does not hold")
        file = files[sha256]
        linked.append(
            Attachment(
                name=name,
                kind=file.kind,
                sha256=sha256,
                size=file.size,
                text=file.text,
                sections=file.sections,
                notes=file.notes,
                encoding=file.encoding,
            )
        )
    return linked


def _message(raw: object, n: int, version: int, previous: int | None, files: dict[str, Attachment]) -> ImportedMessage:
    if not isinstance(raw, dict):
        raise ImportFormatError(f"message {n} is not an object")
    key: Any
    parent: Any
    if version == 1:
        key, parent = n, previous
    else:
        key, parent = raw.get("id"), raw.get("parent")
        if not _is_int(key):
            raise ImportFormatError(f'message {n} has no integer "id"')
        if parent is not None and not _is_int(parent):
            raise ImportFormatError(f'message {n} has a "parent" that is not an id')
    raw_role, content, raw_state = raw.get("role"), raw.get("content"), raw.get("state", MessageState.DONE)
    role = _member(Role, raw_role)
    if role is None:
        raise ImportFormatError(f"message {n} has the role {raw_role!r} (expected {_spelled(Role)})")
    if not isinstance(content, str):
        raise ImportFormatError(f"message {n} has no text content")
    state = _member(MessageState, raw_state)
    if state is None:
        raise ImportFormatError(f"message {n} has the unknown state {raw_state!r} (expected {_spelled(MessageState)})")
    created = raw.get("created", time.time())
    if not _is_number(created):
        raise ImportFormatError(f'message {n} has a "created" time that is not a number')
    meta = raw.get("meta", {})
    if not isinstance(meta, dict):
        raise ImportFormatError(f'message {n} has "meta" that is not an object')
    raw_tokens = raw.get("tokens", [])
    if not isinstance(raw_tokens, list):
        raise ImportFormatError(f'message {n} has "tokens" that is not a list')
    tokens = [_token(t, n, i) for i, t in enumerate(raw_tokens, start=1)]
    raw_steps = raw.get("steps", [])
    if not isinstance(raw_steps, list):
        raise ImportFormatError(f'message {n} has "steps" that is not a list')
    steps = _steps(raw_steps)
    attachments = _links(raw.get("attachments", []), n, files)
    # Nothing generates an imported reply: one that was streaming when exported was cut off there.
    state = MessageState.INTERRUPTED if state is MessageState.STREAMING else state
    return ImportedMessage(
        key=int(key),
        parent=parent,
        role=role,
        content=content,
        state=state,
        created=float(created),
        meta=meta,
        tokens=tokens,
        steps=steps,
        attachments=attachments,
    )


def _steps(raw_steps: list[Any]) -> list[StepRecord]:
    """The step records an export gives, leaving out any this Tandem cannot read."""
    steps: list[StepRecord] = []
    for raw in raw_steps:
        try:
            steps.append(StepRecord.from_json(raw))
        except (ValueError, TypeError):
            continue
    return steps


def _token(raw: object, n: int, i: int) -> TokenRecord:
    """One exported token, read by the token record's one reader; an export must give its origin and p."""
    where = f"token {i} of message {n}"
    if isinstance(raw, dict) and not {"text", "origin", "p_target"} <= raw.keys():
        raise ImportFormatError(f"{where} lacks its text, origin or p_target")
    try:
        return TokenRecord.from_json(raw, where)
    except ValueError as exc:
        raise ImportFormatError(str(exc)) from None


def _member(kind: type[_E], value: object) -> _E | None:
    """The member of ``kind`` an export's text names; None for any other value (not text, or unknown)."""
    if not isinstance(value, str):
        return None
    try:
        return kind(value)
    except ValueError:
        return None


def _spelled(kind: type[enum.StrEnum]) -> str:
    """The values of ``kind`` as a sentence's list: "a, b or c"."""
    values = [member.value for member in kind]
    return ", ".join(values[:-1]) + " or " + values[-1]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)  # type: ignore[arg-type]


def _float(value: object) -> float | None:
    """A finite number as a float; None for None and for anything that is not one."""
    return float(value) if _is_number(value) else None  # type: ignore[arg-type]
