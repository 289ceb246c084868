"""Files Tandem writes for the user, written without clobbering, and its own files kept private.

:func:`write_text_safely` is the one way an export reaches the disk (``tandem
chats export --out`` and the window's Export): the text goes to a fresh,
randomly named temporary file beside the target (``mkstemp``: created
exclusively, so nothing planted there is followed), is flushed to disk, then
takes the target's name in one step. Only a missing path or an existing
regular file can be that target: a symbolic link, a folder, a device node
(``/dev/full``), a FIFO or a socket is refused, since a rename would replace the
thing itself (and following a link would write wherever it points). An
existing regular file is replaced only when the caller says so (the CLI's
``--force``; the window's save dialog has already asked).

:func:`make_private` and :func:`tighten` keep what holds the user's chats,
settings and keys readable only by them (0600, folders 0700): created that
way, and tightened when found looser. Both are no-ops on Windows, where
POSIX modes do not describe who may read a file.

:func:`read_regular_bytes` reads a file anyone else may have put in
Tandem's way (an attachment, a cache entry, a settings file): only a
regular file is opened, never a FIFO (which would wait for a writer for ever),
a device (which may never end) or a socket, and at most a stated number of
bytes is read.

Tandem's own stores (the prefix cache, its limit, the learned speeds) are read
through :func:`open_regular`, which opens only a regular file, never through
a link and never waiting on a FIFO, and written through :func:`create_private`,
which makes a new 0600 file and never writes through a name planted before it.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import io
import os
import stat
import tempfile
from pathlib import Path

from app.core.errors import TandemError

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700
_POSIX = os.name != "nt"
_OTHERS = 0o077  # the group's and everyone else's permission bits


class Refusal(enum.Enum):
    """Why a path cannot be written as an export."""

    EXISTS = "exists"  # a regular file is there and replacing it was not asked for
    NOT_A_FILE = "not-a-file"  # a folder, device, FIFO or socket
    SYMLINK = "symlink"  # a symbolic link (to anything, or to nothing)


class UnsafeTargetError(TandemError):
    """The path holds something an export must not replace; ``refusal`` says what."""

    def __init__(self, path: Path, refusal: Refusal, what: str) -> None:
        words = {
            Refusal.EXISTS: "already exists",
            Refusal.NOT_A_FILE: f"is {what}, not a regular file: Tandem does not replace it",
            Refusal.SYMLINK: "is a symbolic link: Tandem does not replace links; give the real file's path",
        }[refusal]
        super().__init__(f"{path} {words}")
        self.path = path
        self.refusal = refusal


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_target(path: Path, *, overwrite: bool) -> os.stat_result | None:
    """The status of the regular file at ``path`` (None when nothing is there), or :class:`UnsafeTargetError`."""
    try:
        status = os.lstat(path)  # lstat: a link is judged as the link, never as what it points to
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(status.st_mode):
        raise UnsafeTargetError(path, Refusal.SYMLINK, "a symbolic link")
    if not stat.S_ISREG(status.st_mode):
        raise UnsafeTargetError(path, Refusal.NOT_A_FILE, _kind(status.st_mode))
    if not overwrite:
        raise UnsafeTargetError(path, Refusal.EXISTS, "a file")
    return status


def write_text_safely(path: Path, text: str, *, overwrite: bool = False) -> int:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all; returns the bytes written.

    Raises :class:`UnsafeTargetError` for a target it must not replace and
    :class:`~app.core.errors.TandemError` (one line) when the write fails; a
    failed write leaves the target as it was and no temporary file behind.
    A replaced file keeps its mode; a new one is 0600, private like the chats it holds.
    """
    data = text.encode("utf-8")
    existing = check_target(path, overwrite=overwrite)
    folder = path.parent
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=folder)
    except OSError as exc:
        raise TandemError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if existing is not None and _POSIX:
            os.chmod(temporary, stat.S_IMODE(existing.st_mode))
        _move_into_place(temporary, path, overwrite=overwrite)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise TandemError(f"cannot write {path}: {exc.strerror or exc}") from exc
        raise
    return len(data)


def _move_into_place(temporary: str, path: Path, *, overwrite: bool) -> None:
    """Give the written file its name; without ``overwrite``, never over something that appeared meanwhile."""
    if overwrite:
        check_target(path, overwrite=True)  # looked at again just before: a link swapped in is still refused
        os.replace(temporary, path)  # rename replaces the name itself, never what a link points to
        return
    try:
        os.link(temporary, path)  # fails if anything holds the name now: no check-then-write race
    except FileExistsError:
        check_target(path, overwrite=False)  # names what is there (a link, a folder, a file)
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        # A file system without hard links (FAT, some network shares): check once more, then rename.
        check_target(path, overwrite=False)
        os.replace(temporary, path)
        return
    os.unlink(temporary)


# -- bounded reads -------------------------------------------------------------------


class Unreadable(enum.Enum):
    """Why :func:`read_regular_bytes` read nothing."""

    MISSING = "missing"  # nothing at the path (or a link to nothing)
    NOT_A_FILE = "not-a-file"  # a folder, device, FIFO or socket
    SYMLINK = "symlink"  # a symbolic link where links were not to be followed
    TOO_BIG = "too-big"  # more than the bytes asked for
    FAILED = "failed"  # the system refused (permissions, I/O error, a loop of links)


class UnreadableFileError(TandemError):
    """A file :func:`read_regular_bytes` would not or could not read, in one line naming it; ``reason`` says why."""

    def __init__(self, path: Path, reason: Unreadable, what: str) -> None:
        super().__init__(f"cannot read {path}: {what}")
        self.path = path
        self.reason = reason
        self.what = what


_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO that slipped past the check opens without waiting
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


def read_regular_bytes(path: Path, max_bytes: int, *, follow_links: bool = True) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` of them.

    Anything else at ``path`` is refused with :class:`UnreadableFileError`
    before it is opened (a FIFO, a device node, a socket, a folder), and again
    from the opened descriptor (``fstat``), so a FIFO swapped in between the
    two is still never read. A file with more than ``max_bytes`` bytes is
    refused (``Unreadable.TOO_BIG``), even one that grows while it is read.
    With ``follow_links=False`` a symbolic link is refused as well.
    """
    try:
        status = os.stat(path) if follow_links else os.lstat(path)
    except FileNotFoundError:
        raise UnreadableFileError(path, Unreadable.MISSING, "no such file") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise UnreadableFileError(path, Unreadable.FAILED, _reason(exc)) from exc
    _check_regular(path, status, max_bytes)
    flags = os.O_RDONLY | _O_NONBLOCK | _O_BINARY | _O_CLOEXEC | (0 if follow_links else _O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise UnreadableFileError(path, Unreadable.MISSING, "no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_links:
            raise UnreadableFileError(path, Unreadable.SYMLINK, "it is a symbolic link") from exc
        raise UnreadableFileError(path, Unreadable.FAILED, _reason(exc)) from exc
    try:
        _check_regular(path, os.fstat(fd), max_bytes)  # what was opened, not what was looked at
        parts: list[bytes] = []
        left = max_bytes + 1  # one byte more than allowed tells a file that grew past the cap
        while left > 0:
            part = os.read(fd, min(left, _CHUNK))
            if not part:
                break
            parts.append(part)
            left -= len(part)
    except OSError as exc:
        raise UnreadableFileError(path, Unreadable.FAILED, _reason(exc)) from exc
    finally:
        os.close(fd)
    if left <= 0:
        raise UnreadableFileError(path, Unreadable.TOO_BIG, f"it holds more than {max_bytes:,} bytes")
    return b"".join(parts)


def _check_regular(path: Path, status: os.stat_result, max_bytes: int) -> None:
    if stat.S_ISLNK(status.st_mode):
        raise UnreadableFileError(path, Unreadable.SYMLINK, "it is a symbolic link")
    if not stat.S_ISREG(status.st_mode):
        raise UnreadableFileError(path, Unreadable.NOT_A_FILE, f"it is {_kind(status.st_mode)}, not a regular file")
    if status.st_size > max_bytes:
        raise UnreadableFileError(
            path, Unreadable.TOO_BIG, f"it is {status.st_size:,} bytes, over the {max_bytes:,} it may be"
        )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno == errno.ELOOP:
        return "a loop of symbolic links"
    return str(exc.strerror or exc) if isinstance(exc, OSError) else str(exc)


# -- private files ------------------------------------------------------------------


def tighten(path: Path) -> None:
    """Take away the group's and others' access to the file or folder ``path`` if it has any.

    A link, a device or a missing path is left untouched. Best effort: a file
    this user does not own cannot be changed, and the caller's own open
    reports anything that matters.
    """
    if not _POSIX:
        return
    with contextlib.suppress(OSError):
        status = os.lstat(path)
        mode = stat.S_IMODE(status.st_mode)
        if (stat.S_ISREG(status.st_mode) or stat.S_ISDIR(status.st_mode)) and mode & _OTHERS:
            os.chmod(path, mode & ~_OTHERS)


def make_private(path: Path) -> None:
    """Create ``path`` empty with mode 0600 if nothing is there, else :func:`tighten` it."""
    if _POSIX:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
        except FileExistsError:
            if path.is_file() and not path.is_symlink():
                tighten(path)
            return
        except OSError:
            return  # whoever opens it next reports why it cannot be made
        os.close(fd)


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` (and its missing parents) with the last one 0700; an existing folder is left as it is.

    Raises :class:`OSError` when it cannot be made, as ``Path.mkdir`` does.
    """
    folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER)


# -- Tandem's own files, read ---------------------------------------------------------


def open_regular(path: Path) -> io.BufferedReader:
    """The regular file at ``path`` open for reading, streamed rather than read whole (a prefix-cache entry).

    A symbolic link is never followed and a FIFO never waited on: either, or a
    device, socket or folder, is :class:`UnreadableFileError` (``SYMLINK`` or
    ``NOT_A_FILE``). Other failures of the open (:class:`FileNotFoundError`
    included) are raised as they come.
    """
    try:
        fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC | _O_BINARY)
    except OSError as exc:
        # O_NOFOLLOW on a final link: ELOOP (EMLINK on FreeBSD). Named for what it is, not "too many levels".
        if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):
            raise UnreadableFileError(path, Unreadable.SYMLINK, "it is a symbolic link") from exc
        raise
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise UnreadableFileError(path, Unreadable.NOT_A_FILE, f"it is {_kind(status.st_mode)}, not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def create_private(path: Path) -> io.BufferedWriter:
    """A new file at ``path``, 0600, open for writing; :class:`FileExistsError` if anything (a link too) is there.

    Created exclusively, so a link planted under the name is never written through.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags | getattr(os, "O_BINARY", 0), PRIVATE_FILE)
    try:
        return os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        raise


def regular_file_problem(path: Path, max_bytes: int) -> str:
    """Why what is at ``path`` is no file to read (a FIFO, a device, a folder, over ``max_bytes``); empty when it is.

    Nothing there is no problem (the file is made when first written). A link
    is judged by what it points to: this is for a file that a library opens
    itself (QSettings) and that the user may keep elsewhere and link to.
    """
    try:
        status = os.stat(path)  # stat never opens: a FIFO does not block it
    except FileNotFoundError:
        return ""
    except (OSError, ValueError) as exc:
        return _reason(exc)
    try:
        _check_regular(path, status, max_bytes)
    except UnreadableFileError as exc:
        return exc.what
    return ""
