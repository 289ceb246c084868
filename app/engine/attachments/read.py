"""Reading a file, a folder, or bytes handed over (an upload, a paste) into an :class:`Attachment`.

:func:`read_attachment` refuses a file over the size cap from its size alone,
before reading it, and reads at most the cap (a file still growing cannot
push past it); only a regular file is ever opened (a FIFO, a device or a
socket is refused before and after the open, see
:func:`~app.engine.safe_files.read_regular_bytes`). Each read has a
deadline (:attr:`AttachmentLimits.read_seconds`), checked inside the
readers' loops, and can be called off by the caller's ``cancelled``.
Every refusal is one :class:`AttachmentError` line naming the file and what
is wrong; nothing is returned half-read.
"""

from __future__ import annotations

import errno
import hashlib
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath

from app.core.attachments.record import Attachment, AttachmentKind
from app.core.display.wording import QT_TRANSLATE_NOOP, Words, words_of
from app.engine.attachments.folder import read_folder
from app.engine.attachments.html_text import html_to_text
from app.engine.attachments.kinds import NotTextError, decode, kind_of
from app.engine.attachments.limits import (
    DEFAULT_LIMITS,
    AttachmentError,
    AttachmentLimits,
    Deadline,
    ReadTooSlowError,
    cap_text,
    size_words,
)
from app.engine.attachments.pdf import PdfError, read_pdf
from app.engine.safe_files import Unreadable, UnreadableFileError, read_regular_bytes

# What is wrong with a file, in the window's language there (the error's ``str`` is the English).
_BROKEN_LINK = QT_TRANSLATE_NOOP("AttachmentRead", "it is a broken symbolic link")
_NO_SUCH_FILE = QT_TRANSLATE_NOOP("AttachmentRead", "no such file or folder")
_LINK_LOOP = QT_TRANSLATE_NOOP("AttachmentRead", "a loop of symbolic links (it never reaches a file)")
_UNREADABLE = QT_TRANSLATE_NOOP("AttachmentRead", "it cannot be read ({error})")
_NOT_REGULAR = QT_TRANSLATE_NOOP("AttachmentRead", "not a regular file (a device, socket or pipe)")
_NO_TEXT = QT_TRANSLATE_NOOP("AttachmentRead", "it holds no text")
_EMPTY = QT_TRANSLATE_NOOP("AttachmentRead", "the file is empty")
_FOLDER_UNREADABLE = QT_TRANSLATE_NOOP("AttachmentRead", "the folder cannot be read ({error})")
_NO_TEXT_FILES = QT_TRANSLATE_NOOP("AttachmentRead", "the folder has no text files")
_NO_TEXT_FILES_BECAUSE = QT_TRANSLATE_NOOP("AttachmentRead", "the folder has no text files ({reasons})")
_TOO_BIG = QT_TRANSLATE_NOOP("AttachmentRead", "it is {size}; files over {limit} are not attached")
_TOO_SLOW = QT_TRANSLATE_NOOP(
    "AttachmentRead", "reading it was stopped: it took longer than {seconds:.0f} s (or was called off)"
)


def read_attachment(
    path: Path, limits: AttachmentLimits = DEFAULT_LIMITS, *, cancelled: Callable[[], bool] | None = None
) -> Attachment:
    """The attachment a file or folder at ``path`` makes; :class:`AttachmentError` for anything that cannot be one."""
    name = path.name or str(path)
    deadline = Deadline(limits.read_seconds, cancelled)
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise AttachmentError(name, _BROKEN_LINK) from None
        raise AttachmentError(name, _NO_SUCH_FILE) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise AttachmentError(name, _LINK_LOOP) from exc
        raise AttachmentError(name, _UNREADABLE.fill(error=str(exc.strerror or exc))) from exc
    except RuntimeError as exc:  # a symlink loop, as pathlib reports one on some versions
        raise AttachmentError(name, _LINK_LOOP) from exc
    if stat.S_ISDIR(info.st_mode):
        try:
            return _folder(path, name, limits, deadline)
        except ReadTooSlowError:
            raise AttachmentError(name, _TOO_SLOW.fill(seconds=limits.read_seconds)) from None
    if not stat.S_ISREG(info.st_mode):
        raise AttachmentError(name, _NOT_REGULAR)
    if info.st_size > limits.max_file_bytes:
        raise AttachmentError(name, _too_big(info.st_size, limits))
    try:
        data = read_regular_bytes(path, limits.max_file_bytes)  # bounded even if it grows while read
    except UnreadableFileError as exc:
        raise AttachmentError(name, _unreadable_words(exc, limits)) from exc
    return _from_bytes(name, data, limits, deadline)


def read_attachment_bytes(
    name: str,
    data: bytes,
    limits: AttachmentLimits = DEFAULT_LIMITS,
    *,
    cancelled: Callable[[], bool] | None = None,
) -> Attachment:
    """The attachment ``data`` makes under the file name ``name`` (its directories dropped)."""
    return _from_bytes(name, data, limits, Deadline(limits.read_seconds, cancelled))


def _from_bytes(name: str, data: bytes, limits: AttachmentLimits, deadline: Deadline) -> Attachment:
    name = display_name(name)
    try:
        return _parsed(name, data, limits, deadline)
    except ReadTooSlowError:
        raise AttachmentError(name, _TOO_SLOW.fill(seconds=limits.read_seconds)) from None


def _parsed(name: str, data: bytes, limits: AttachmentLimits, deadline: Deadline) -> Attachment:
    if len(data) > limits.max_file_bytes:
        raise AttachmentError(name, _too_big(len(data), limits))
    kind = kind_of(name, data[:1024])
    sha256 = hashlib.sha256(data).hexdigest()
    if kind is AttachmentKind.PDF:
        try:
            text, sections, notes = read_pdf(data, limits, deadline)
        except PdfError as exc:
            raise AttachmentError(name, words_of(exc) or str(exc)) from exc
        return Attachment(name, kind, sha256, len(data), text, sections, notes)
    try:
        decoded = decode(data)
    except NotTextError as exc:
        raise AttachmentError(name, words_of(exc) or str(exc)) from exc
    deadline.check()
    text = decoded.text
    extra: tuple[str, ...] = ()
    if kind is AttachmentKind.HTML:
        page = html_to_text(text, limits, deadline)
        text = page.text
        extra = page.notes
    if not text.strip():
        raise AttachmentError(name, _NO_TEXT if data else _EMPTY)
    text, cut = cap_text(text, limits)
    return Attachment(
        name=name,
        kind=kind,
        sha256=sha256,
        size=len(data),
        text=text,
        sections=(),
        notes=(*decoded.notes(), *extra, *cut),
        encoding=decoded.encoding,
    )


def _unreadable_words(exc: UnreadableFileError, limits: AttachmentLimits) -> Words:
    if exc.reason is Unreadable.MISSING:
        return _NO_SUCH_FILE.fill()
    if exc.reason is Unreadable.NOT_A_FILE:
        return _NOT_REGULAR.fill()
    if exc.reason is Unreadable.TOO_BIG:
        return _too_big(limits.max_file_bytes + 1, limits)
    return _UNREADABLE.fill(error=exc.what)


def display_name(name: str) -> str:
    """A file name as attached: its last component, whichever separators a client used ("attachment" when none)."""
    base = PureWindowsPath(PurePosixPath(name.replace("\0", "")).name).name.strip()
    return base or "attachment"


def _folder(path: Path, name: str, limits: AttachmentLimits, deadline: Deadline) -> Attachment:
    try:
        found = read_folder(path, limits, deadline)
    except OSError as exc:
        raise AttachmentError(name, _FOLDER_UNREADABLE.fill(error=str(exc.strerror or exc))) from exc
    if not found.sections:
        reasons = "; ".join(found.notes)
        raise AttachmentError(name, _NO_TEXT_FILES_BECAUSE.fill(reasons=reasons) if reasons else _NO_TEXT_FILES)
    encoding = found.encodings.most_common(1)[0][0] if len(found.encodings) == 1 else None
    return Attachment(
        name=name,
        kind=AttachmentKind.FOLDER,
        sha256=found.sha256,
        size=found.size,
        text=found.text,
        sections=tuple(found.sections),
        notes=tuple(found.notes),
        encoding=encoding,
    )


def _too_big(size: int, limits: AttachmentLimits) -> Words:
    return _TOO_BIG.fill(size=size_words(size), limit=size_words(limits.max_file_bytes))
