"""How much an attachment may be, and the one error every refusal raises.

The caps are said, never applied silently: a file over :attr:`AttachmentLimits.max_file_bytes`
is refused before it is read whole; text cut at :attr:`AttachmentLimits.max_text_chars`
and a folder's files left out past its caps are named in the attachment's ``notes``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words
from app.core.errors import TandemError

MB = 1_000_000  # decimal, as the caps are said ("50 MB")


@dataclass(frozen=True, slots=True)
class AttachmentLimits:
    """The sizes past which a file is refused or its text cut (and the cut said in its notes)."""

    max_file_bytes: int = 50 * MB  # a bigger file (or pasted or uploaded data) is refused before reading it whole
    max_text_chars: int = 4_000_000  # extracted text beyond this is cut, with a note
    folder_max_files: int = 500  # a folder's files beyond this are left out, with a note
    folder_max_bytes: int = 2 * MB  # a folder's text beyond this is left out, file by file, with a note
    folder_max_depth: int = 64  # folders nested deeper are not entered, with a note
    pdf_max_pages: int = 2_000  # a PDF's pages beyond this are not read, with a note ("read the first N of M")
    pdf_max_tree_depth: int = 64  # a page tree nested deeper is refused (real ones are a few levels)
    html_max_depth: int = 256  # elements nested deeper add their text but no more structure
    html_max_tags: int = 500_000  # a page's tags beyond this are not read, with a note (real pages have far fewer)
    read_seconds: float = 120.0  # one read (a file, a paste, a folder) taking longer is stopped and refused


# The caps every caller gets unless it passes its own (frozen, so one shared instance is safe as a default).
DEFAULT_LIMITS = AttachmentLimits()


class ReadTooSlowError(Exception):
    """A read passed its :class:`Deadline` (or was called off); :func:`read_attachment` turns it into one line."""


class Deadline:
    """When one read must end: checked inside the readers' loops, so a hostile file cannot hold a thread for ever.

    ``cancelled`` (optional) is asked at each check as well, so whoever started
    the read (a client that went away) can end it early.
    """

    __slots__ = ("_cancelled", "_ends")

    def __init__(self, seconds: float, cancelled: Callable[[], bool] | None = None) -> None:
        self._ends = time.monotonic() + seconds
        self._cancelled = cancelled

    def check(self) -> None:
        """Raise :class:`ReadTooSlowError` once the time is up or the read was called off."""
        if time.monotonic() > self._ends or (self._cancelled is not None and self._cancelled()):
            raise ReadTooSlowError


# What the window says about a file it cannot attach, in its own language (English in the CLI and ``serve``).
_CANNOT_ATTACH = QT_TRANSLATE_NOOP("AttachmentRead", "cannot attach {name}: {problem}")
_BYTES = QT_TRANSLATE_NOOP("AttachmentRead", "{size} bytes")
_SIZE_WHOLE = QT_TRANSLATE_NOOP("AttachmentRead", "{value:.0f} {unit}")
_SIZE_TENTH = QT_TRANSLATE_NOOP("AttachmentRead", "{value:.1f} {unit}")
_CUT = QT_TRANSLATE_NOOP("AttachmentRead", "the text is cut at {limit:,} characters (of {length:,})")


class AttachmentError(TandemError):
    """A file that cannot be attached, in one line naming the file and what is wrong with it."""

    def __init__(self, name: str, problem: str | Words | Phrase) -> None:
        super().__init__(_CANNOT_ATTACH.fill(name=name, problem=problem))
        self.name = name
        self.problem = problem


def size_text(size: int) -> str:
    """A byte count as people read it: "512 bytes", "3.2 KB", "48 MB"."""
    return str(size_words(size))


def size_words(size: int) -> Words:
    """:func:`size_text` translatable, its number written by the reader's locale."""
    if size < 1000:
        return _BYTES.fill(size=size)
    for unit, scale in (("KB", 1e3), ("MB", 1e6), ("GB", 1e9)):
        if size < scale * 1000 or unit == "GB":
            value = size / scale
            whole = value >= 10 or value == int(value)
            return (_SIZE_WHOLE if whole else _SIZE_TENTH).fill(value=value, unit=unit)
    return _BYTES.fill(size=size)  # not reached


def cap_text(text: str, limits: AttachmentLimits) -> tuple[str, tuple[str, ...]]:
    """``text`` cut at the limit, and the note that says so (none when it fits)."""
    if len(text) <= limits.max_text_chars:
        return text, ()
    note = str(_CUT.fill(limit=limits.max_text_chars, length=len(text)))  # a stored note: English
    return text[: limits.max_text_chars], (note,)
