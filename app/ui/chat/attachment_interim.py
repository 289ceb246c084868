"""An interim attachment reader, used only while :mod:`app.engine.attachments` is not on this branch.

The engine's reader (another branch of the same issue) replaces this module:
:mod:`app.ui.chat.attachments` calls the engine's as soon as it can be
imported, and this file is deleted when the branches meet. It reads what the
window's tests attach (text in any encoding, PDFs with a text layer, folders
with a ``.gitignore``) with the same libraries (charset-normalizer, pypdf,
pathspec) and refuses the same bad inputs with one line each.
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

from app.core.attachments.record import Attachment, AttachmentKind, Section
from app.core.units import MIB, format_bytes
from app.ui.chat.attachments import AttachmentReadError

MAX_FILE_BYTES = 64 * MIB
MAX_FOLDER_BYTES = 8 * MIB
_CODE = {".py", ".c", ".h", ".cpp", ".rs", ".go", ".js", ".ts", ".java", ".sh", ".toml", ".json", ".yaml", ".yml"}


def read(path: Path) -> Attachment:
    """An attachment from ``path`` (a file or a folder)."""
    try:
        if path.is_dir():
            return _folder(path)
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise AttachmentReadError(
                f"{path.name} is {format_bytes(size)}: attachments are limited to {format_bytes(MAX_FILE_BYTES)}"
            )
        return read_bytes(path.name, path.read_bytes())
    except FileNotFoundError as exc:
        raise AttachmentReadError(f"{path.name}: the file is no longer there") from exc
    except OSError as exc:
        raise AttachmentReadError(f"{path.name}: {exc.strerror or exc}") from exc


def read_bytes(name: str, data: bytes) -> Attachment:
    """An attachment from ``data`` named ``name``."""
    digest = hashlib.sha256(data).hexdigest()
    suffix = Path(name).suffix.lower()
    if data.startswith(b"%PDF"):
        return _pdf(name, data, digest)
    text, encoding, notes = _decode(name, data)
    kind = AttachmentKind.MARKDOWN if suffix in (".md", ".markdown") else AttachmentKind.TEXT
    kind = AttachmentKind.CODE if suffix in _CODE else kind
    return Attachment(name, kind, digest, len(data), text, notes=notes, encoding=encoding)


def _decode(name: str, data: bytes) -> tuple[str, str, tuple[str, ...]]:
    if b"\0" in data[:8192]:
        raise AttachmentReadError(f"{name} looks like a binary file, not text: only text, code and PDFs attach")
    try:
        return data.decode("utf-8"), "utf-8", ()
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        raise AttachmentReadError(f"{name}: its text encoding could not be recognised")
    return str(best), best.encoding, (f"encoding guessed: {best.encoding}",)


def _pdf(name: str, data: bytes, digest: str) -> Attachment:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise AttachmentReadError(f"{name} is an encrypted PDF: open it, save an unprotected copy and attach that")
        parts: list[str] = []
        sections: list[Section] = []
        offset = 0
        for number, page in enumerate(reader.pages, start=1):
            page_text = (page.extract_text() or "").strip() + "\n\n"
            sections.append(Section(f"p. {number}", offset))
            parts.append(page_text)
            offset += len(page_text)
    except PdfReadError as exc:
        raise AttachmentReadError(f"{name} could not be read as a PDF: {exc}") from exc
    text = "".join(parts)
    if not text.strip():
        raise AttachmentReadError(f"{name} has no text layer (a scanned PDF?): nothing could be extracted")
    return Attachment(name, AttachmentKind.PDF, digest, len(data), text, tuple(sections))


def _folder(root: Path) -> Attachment:
    import pathspec

    ignore = root / ".gitignore"
    lines = ignore.read_text(errors="replace").splitlines() if ignore.is_file() else []
    spec = pathspec.PathSpec.from_lines("gitignore", [".git/", *lines])
    digest = hashlib.sha256()
    parts: list[str] = []
    sections: list[Section] = []
    offset = total = left_out = links = 0
    # followlinks=False: a link to a folder above (a loop) is never walked into.
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for file in sorted(files):
            path = Path(folder) / file
            relative = path.relative_to(root).as_posix()
            if spec.match_file(relative):
                continue
            if path.is_symlink():
                links += 1
                continue
            data = path.read_bytes()
            if b"\0" in data[:8192] or total + len(data) > MAX_FOLDER_BYTES:
                left_out += 1
                continue
            text, _encoding, _notes = _decode(relative, data)
            digest.update(relative.encode() + b"\0" + data)
            sections.append(Section(relative, offset))
            block = f"=== {relative} ===\n{text}\n"
            parts.append(block)
            offset += len(block)
            total += len(data)
    notes = []
    if left_out:
        notes.append(f"{left_out} files left out (binary, or over the {format_bytes(MAX_FOLDER_BYTES)} cap)")
    if links:
        notes.append(f"{links} links not followed")
    if not parts:
        raise AttachmentReadError(f"{root.name}: the folder has no text files to attach")
    return Attachment(
        root.name, AttachmentKind.FOLDER, digest.hexdigest(), total, "".join(parts), tuple(sections), tuple(notes)
    )
