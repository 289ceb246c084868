"""Stored JSON read tolerantly: a value, or nothing and the reason, never an exception.

Caches, profiles, limits and database columns are JSON that Tandem wrote
itself; what a crash, a full disk or a hand edit leaves there must read as
"nothing stored" and the caller's default, with a reason for its log line.
:func:`parse` reads text or bytes, :func:`read_file` a file (regular files
only: a FIFO or a device put where a cache file was expected would block the
read or never end; :func:`file_bytes` is the same for a cache's companion
file that is not JSON; a link is not followed, and a file is bounded in size
and in nesting, so a JSON bomb costs a log line, not the memory), and :func:`as_dict`, :func:`as_list` and :func:`field`
take the shape the caller expects out of what was read.

Files that must be refused rather than ignored (an export being imported, a
model list whose loss the user should hear about) have their own readers.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

_T = TypeVar("_T")

# Far above anything Tandem stores in one file; a bigger one is not one of them.
MAX_FILE_BYTES = 64 * 1024 * 1024
# Tandem's stored files nest a few levels; deeper is a bomb that would cost every reader its recursion.
MAX_FILE_DEPTH = 64


@dataclass(frozen=True, slots=True)
class Stored:
    """What a read found: the value (None when there was none) and, when it failed, why."""

    value: object = None
    problem: str = ""  # empty: read (or simply absent); else a short reason for a log line
    missing: bool = False  # no file there at all (no reason to warn)

    @property
    def ok(self) -> bool:
        """The data was there and parsed."""
        return not self.problem and not self.missing


def parse(data: str | bytes | bytearray | None, max_depth: int | None = None) -> Stored:
    """``data`` parsed as JSON; damage (bad JSON, bad UTF-8, too deep, a huge number) is a problem, not an error.

    ``max_depth``: the most arrays and objects nested in one another (None: as deep as Python can parse).
    """
    if data is None:
        return Stored(missing=True)
    try:
        # Tandem writes UTF-8; json.loads would guess UTF-16 or -32 from bytes that are not.
        text = data if isinstance(data, str) else bytes(data).decode("utf-8")
        value = json.loads(text)
        if max_depth is not None and _deeper_than(value, max_depth):
            return Stored(problem=f"nested more than {max_depth} levels deep")
        return Stored(value=value)
    except UnicodeDecodeError as exc:  # before ValueError: it is one
        return Stored(problem=f"not UTF-8 (byte {exc.start})")
    except json.JSONDecodeError as exc:
        return Stored(problem=f"not JSON (line {exc.lineno}, column {exc.colno})")
    except RecursionError:
        return Stored(problem="nested too deeply")
    except (ValueError, TypeError) as exc:  # a number of too many digits; a value of no JSON type
        return Stored(problem=str(exc)[:120] or type(exc).__name__)


def read_file(path: Path, max_bytes: int = MAX_FILE_BYTES, max_depth: int = MAX_FILE_DEPTH) -> Stored:
    """The JSON in the regular file at ``path``; missing, unreadable, not a regular file, too big or deep: no value."""
    data = _regular_bytes(path, max_bytes)
    return data if isinstance(data, Stored) else parse(data, max_depth)


def _deeper_than(value: object, max_depth: int) -> bool:
    """Whether arrays and objects nest more than ``max_depth`` levels in ``value`` (walked without recursion)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            if depth >= max_depth:
                return True
            stack.extend((child, depth + 1) for child in item if isinstance(child, dict | list))
    return False


def file_bytes(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes | None:
    """The bytes of the regular file at ``path`` (a cache's companion file); None when :func:`read_file` finds none."""
    data = _regular_bytes(path, max_bytes)
    return None if isinstance(data, Stored) else data


def _regular_bytes(path: Path, max_bytes: int) -> bytes | Stored:
    """The file's bytes, or why there are none.

    The file is opened without waiting (a FIFO does not block the open) and
    without following a link, and read only once it is known to be a regular file.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return Stored(missing=True)
    except OSError as exc:
        if os.path.islink(path):  # O_NOFOLLOW's ELOOP: named for what is there
            return Stored(problem="a symbolic link, not followed")
        return Stored(problem=exc.strerror or str(exc))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return Stored(problem="not a regular file")
        if info.st_size > max_bytes:
            return Stored(problem=f"larger than {max_bytes} bytes")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        return Stored(problem=exc.strerror or str(exc))
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # grew while being read
        return Stored(problem=f"larger than {max_bytes} bytes")
    return data


def as_dict(value: object) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def dict_of(text: str | bytes | None) -> dict[str, Any]:
    """A stored JSON object from its text; anything else (damage, a hand edit, NULL) reads as empty."""
    return as_dict(parse(text).value)


def field(data: Mapping[str, Any], key: str, kind: type[_T], default: _T) -> _T:
    """``data[key]`` when it is a ``kind`` (a bool is no int here), else ``default``."""
    value = data.get(key)
    if isinstance(value, bool) and kind is not bool:
        return default
    return value if isinstance(value, kind) else default
