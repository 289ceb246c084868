"""A folder of code as one attachment: its text files in path order, each a :class:`Section`, within caps that are said.

The walk respects every ``.gitignore`` in the folder (read with pathspec,
each applying below its own folder, as git applies them), never enters
``.git``, leaves out binary files, and follows no link to a folder (so a
link loop cannot trap it); a link to a file is read when it points inside
the folder. Only regular files are opened: a FIFO, a device node or a
socket in the folder is left out unopened (a FIFO would wait for a writer for
ever, a device might never end). Folders nested deeper than
:attr:`~AttachmentLimits.folder_max_depth` are not entered. Past
:attr:`~AttachmentLimits.folder_max_files` files or
:attr:`~AttachmentLimits.folder_max_bytes` of text, files are left out, and
every file left out is counted in a note, never dropped silently.

Each file's text follows a header line ``==> path <==`` (as ``head`` prints
several files), so a model reading the whole folder knows which file it is in.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from app.core.attachments.record import Section
from app.engine.attachments.kinds import NotTextError, decode
from app.engine.attachments.limits import AttachmentLimits, Deadline, size_text
from app.engine.safe_files import Unreadable, UnreadableFileError, read_regular_bytes

_NEVER = frozenset({".git"})  # version-control internals: never content
_IGNORE_FILE_BYTES = 1_000_000  # a .gitignore bigger than this is not a real one


@dataclass(slots=True)
class FolderText:
    """What a folder's walk kept: the joined text, where each file starts, and what was left out and why."""

    text: str = ""
    sections: list[Section] = field(default_factory=list)
    size: int = 0
    sha256: str = ""
    notes: list[str] = field(default_factory=list)
    encodings: Counter[str] = field(default_factory=Counter)


def header(path: str) -> str:
    """The line that opens a file's text in a folder's attachment."""
    return f"==> {path} <==\n"


def read_folder(root: Path, limits: AttachmentLimits, deadline: Deadline) -> FolderText:
    """Walk ``root`` (see the module's docstring); the files kept and the notes on those left out.

    Raises :class:`~app.engine.attachments.limits.ReadTooSlowError` when ``deadline`` passes.
    """
    out = FolderText()
    left: Counter[str] = Counter()  # why files were left out -> how many
    guessed: list[str] = []
    digest = hashlib.sha256()
    parts: list[str] = []
    at = 0
    for rel in _candidates(root, left, limits, deadline):
        deadline.check()
        path = root / rel
        try:
            target = path.resolve(strict=True) if path.is_symlink() else path
            if path.is_symlink() and not target.is_relative_to(root.resolve()):
                left["links"] += 1
                continue
            status = target.stat()
        except (OSError, RuntimeError):  # a broken or looping link, or a file gone since the walk
            left["links" if path.is_symlink() else "unreadable"] += 1
            continue
        if not stat.S_ISREG(status.st_mode):  # a FIFO, device or socket: never opened
            left["special"] += 1
            continue
        size = status.st_size
        if len(out.sections) >= limits.folder_max_files:
            left["count"] += 1
            continue
        if out.size + size > limits.folder_max_bytes:
            left["size"] += 1
            continue
        try:
            data = read_regular_bytes(target, limits.folder_max_bytes - out.size)  # bounded if it grew meanwhile
        except UnreadableFileError as exc:
            reason = {Unreadable.TOO_BIG: "size", Unreadable.NOT_A_FILE: "special"}.get(exc.reason, "unreadable")
            left[reason] += 1
            continue
        try:
            decoded = decode(data)
        except NotTextError:
            left["binary"] += 1
            continue
        if decoded.guessed:
            guessed.append(f"{rel} ({decoded.encoding})")
        out.encodings[decoded.encoding] += 1
        body = decoded.text if decoded.text.endswith("\n") or not decoded.text else decoded.text + "\n"
        piece = header(rel) + body
        if parts:
            piece = "\n" + piece
            out.sections.append(Section(rel, at + 1))
        else:
            out.sections.append(Section(rel, at))
        parts.append(piece)
        at += len(piece)
        out.size += len(data)
        encoded = rel.encode("utf-8", "surrogateescape")
        digest.update(len(encoded).to_bytes(8, "big") + encoded + len(data).to_bytes(8, "big") + data)
    out.text = "".join(parts)
    out.sha256 = digest.hexdigest()
    out.notes = _notes(left, guessed, limits)
    return out


def _candidates(root: Path, left: Counter[str], limits: AttachmentLimits, deadline: Deadline) -> list[str]:
    """The folder's files not ignored, as relative POSIX paths in sorted order; ignored ones counted in ``left``."""
    found: list[str] = []
    specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []  # (folder relative to root, its .gitignore)

    def ignored(rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        for base, spec in specs:
            if base and not probe.startswith(base + "/"):
                continue
            if spec.match_file(probe[len(base) + 1 :] if base else probe):
                return True
        return False

    def walk_error(error: OSError) -> None:
        left["unreadable"] += 1

    for current, dirs, files in os.walk(root, topdown=True, onerror=walk_error, followlinks=False):
        deadline.check()
        base = Path(current).relative_to(root).as_posix()
        base = "" if base == "." else base
        if base and base.count("/") + 1 >= limits.folder_max_depth:
            # os.walk recurses once per level: stopping here also keeps a deep tree from exhausting the stack.
            left["deep"] += len(dirs)
            dirs[:] = []
        ignore_file = Path(current) / ".gitignore"
        if ignore_file.is_file() and not ignore_file.is_symlink():
            try:
                data = read_regular_bytes(ignore_file, _IGNORE_FILE_BYTES, follow_links=False)
                lines = data.decode("utf-8", errors="replace").splitlines()
                specs.append((base, pathspec.GitIgnoreSpec.from_lines(lines)))
            except (UnreadableFileError, ValueError):  # ValueError: a pattern pathspec cannot compile
                left["unreadable"] += 1
        kept_dirs = []
        for name in sorted(dirs):
            deadline.check()
            rel = f"{base}/{name}" if base else name
            if name in _NEVER:
                continue
            if (Path(current) / name).is_symlink():  # a link to a folder is not followed: no loop can trap the walk
                left["links"] += 1
            elif ignored(rel, is_dir=True):
                left["ignored"] += 1
            else:
                kept_dirs.append(name)
        dirs[:] = kept_dirs
        for name in sorted(files):
            deadline.check()
            rel = f"{base}/{name}" if base else name
            if ignored(rel, is_dir=False):
                left["ignored"] += 1
            else:
                found.append(rel)
    return sorted(found)


def _notes(left: Counter[str], guessed: list[str], limits: AttachmentLimits) -> list[str]:
    """One note per reason files were left out, and one for guessed encodings."""
    notes = []
    if left["count"]:
        notes.append(f"{left['count']} files left out: a folder is capped at {limits.folder_max_files} files")
    if left["size"]:
        notes.append(
            f"{left['size']} files left out: the folder's text is capped at {size_text(limits.folder_max_bytes)}"
        )
    if left["binary"]:
        notes.append(f"{left['binary']} binary files left out")
    if left["ignored"]:
        notes.append(f"{left['ignored']} files or folders left out by .gitignore")
    if left["links"]:
        notes.append(
            f"{left['links']} symbolic links not followed (to a folder, outside the folder, broken or looping)"
        )
    if left["special"]:
        notes.append(f"{left['special']} FIFOs, devices or sockets left out (not regular files: never opened)")
    if left["deep"]:
        notes.append(
            f"{left['deep']} folders left out: nested deeper than {limits.folder_max_depth} levels are not entered"
        )
    if left["unreadable"]:
        notes.append(f"{left['unreadable']} files could not be read")
    if guessed:
        shown = ", ".join(guessed[:5]) + (f" and {len(guessed) - 5} more" if len(guessed) > 5 else "")
        notes.append(f"encodings detected (not UTF-8), some characters may be wrong: {shown}")
    return notes
