"""Reading a file, a folder, or bytes handed over (an upload, a paste) into an :class:`Attachment`.

:func:`read_attachment` refuses a file over the size cap from its size alone,
before reading it, and reads at most the cap (a file still growing cannot
push past it). Every refusal is one :class:`AttachmentError` line naming the
file and what is wrong; nothing is returned half-read.
"""

from __future__ import annotations

import errno
import hashlib
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath

from app.core.attachments.record import Attachment, AttachmentKind
from app.core.display.wording import QT_TRANSLATE_NOOP, Words, words_of
from app.engine.attachments.folder import read_folder
from app.engine.attachments.html_text import html_to_text
from app.engine.attachments.kinds import NotTextError, decode, kind_of
from app.engine.attachments.limits import DEFAULT_LIMITS, AttachmentError, AttachmentLimits, cap_text, size_words
from app.engine.attachments.pdf import PdfError, read_pdf

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


def read_attachment(path: Path, limits: AttachmentLimits = DEFAULT_LIMITS) -> Attachment:
    """The attachment a file or folder at ``path`` makes; :class:`AttachmentError` for anything that cannot be one."""
    name = path.name or str(path)
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
        return _folder(path, name, limits)
    if not stat.S_ISREG(info.st_mode):
        raise AttachmentError(name, _NOT_REGULAR)
    if info.st_size > limits.max_file_bytes:
        raise AttachmentError(name, _too_big(info.st_size, limits))
    try:
        with path.open("rb") as handle:
            data = handle.read(limits.max_file_bytes + 1)  # bounded even if it grows while read
    except OSError as exc:
        raise AttachmentError(name, _UNREADABLE.fill(error=str(exc.strerror or exc))) from exc
    return read_attachment_bytes(name, data, limits)


def read_attachment_bytes(name: str, data: bytes, limits: AttachmentLimits = DEFAULT_LIMITS) -> Attachment:
    """The attachment ``data`` makes under the file name ``name`` (its directories dropped)."""
    name = display_name(name)
    if len(data) > limits.max_file_bytes:
        raise AttachmentError(name, _too_big(len(data), limits))
    kind = kind_of(name, data[:1024])
    sha256 = hashlib.sha256(data).hexdigest()
    if kind is AttachmentKind.PDF:
        try:
            text, sections, notes = read_pdf(data, limits)
        except PdfError as exc:
            raise AttachmentError(name, words_of(exc) or str(exc)) from exc
        return Attachment(name, kind, sha256, len(data), text, sections, notes)
    try:
        decoded = decode(data)
    except NotTextError as exc:
        raise AttachmentError(name, words_of(exc) or str(exc)) from exc
    text = decoded.text
    extra: tuple[str, ...] = ()
    if kind is AttachmentKind.HTML:
        text, title = html_to_text(text)
        if title:
            extra = (f"the page's title: {title}",)
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


def display_name(name: str) -> str:
    """A file name as attached: its last component, whichever separators a client used ("attachment" when none)."""
    base = PureWindowsPath(PurePosixPath(name.replace("\0", "")).name).name.strip()
    return base or "attachment"


def _folder(path: Path, name: str, limits: AttachmentLimits) -> Attachment:
    try:
        found = read_folder(path, limits)
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
