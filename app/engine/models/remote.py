"""GGUF files on the Hub, inspected and checked from their headers before any download, with the headers cached.

A remote file is written ``owner/name/path/in/repo.gguf`` (the repository
id, then the path inside it). Its header is read with growing Range requests
(:mod:`app.engine.hub.remote`) and its exact bytes are kept under
``cache_dir()/remote``, one ``.header`` file and one ``.json`` file of
facts per (repository, revision, path). The next inspection asks the Hub
only for the file's ETag (one HEAD) and reuses the cached bytes while it is
unchanged; in offline mode the cache is used as it is. Keeping the raw header
rather than a summary means a remote file goes through exactly the code a
local one does: the same inspection, the same compatibility rules with the
same evidence (the first differing tokens). The HTTP stack is imported on
first use, as in :mod:`app.engine.models.library`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

from app.core import stored_json
from app.engine.gguf.header import GGUFHeader, parse_header_bytes
from app.engine.gguf.inspection import ModelInspection, inspect_header
from app.engine.hub.progress import DownloadError
from app.engine.paths import cache_dir

if TYPE_CHECKING:
    from app.engine.hub.remote import RemoteFile

CACHE_VERSION = 1
# owner/name[@revision]/path/in/repo.gguf: Hub ids allow letters, digits, '-', '_' and '.'; a revision
# (branch, tag or commit) is written as huggingface_hub's file system writes it, with any '/' as %2F.
_SPEC = re.compile(r"^(?P<repo>[\w.-]+/[\w.-]+)(?:@(?P<revision>[\w.%-]+))?/(?P<filename>[^\s]+\.gguf)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RemoteSpec:
    """A file on the Hub named by repository, path and revision."""

    repo_id: str
    filename: str
    revision: str = "main"

    def __str__(self) -> str:
        if self.revision == "main":
            return f"{self.repo_id}/{self.filename}"
        return f"{self.repo_id}@{quote(self.revision, safe='')}/{self.filename}"


@dataclass(frozen=True, slots=True)
class RemoteModel:
    """A remote file's parsed header and inspection, and how it was obtained."""

    spec: RemoteSpec
    header: GGUFHeader
    inspection: ModelInspection
    size: int
    sha256: str | None
    header_bytes: int  # the header's length in bytes
    bytes_transferred: int  # what reading it cost (0 when it came from the cache)
    cached: bool


def parse_remote_spec(text: str, revision: str = "main") -> RemoteSpec | None:
    """``owner/name[@rev]/file.gguf`` -> a :class:`RemoteSpec`; ``None`` when ``text`` is not written that way.

    A revision written in ``text`` wins over ``revision`` (the CLI's ``--revision``).
    """
    match = _SPEC.match(text.strip())
    if not match or match["filename"].startswith("/") or ".." in match["filename"].split("/"):
        return None
    written = unquote(match["revision"]) if match["revision"] else None
    return RemoteSpec(match["repo"], match["filename"], written or revision)


def is_remote(text: str | Path) -> bool:
    """True when ``text`` names a Hub file, not a local one (an existing local path always wins)."""
    if isinstance(text, Path) and text.is_absolute():
        return False
    candidate = str(text)
    return not Path(candidate).expanduser().exists() and parse_remote_spec(candidate) is not None


def remote_cache_folder() -> Path:
    """Where remote headers are kept."""
    return cache_dir() / "remote"


def _entry(spec: RemoteSpec) -> tuple[Path, Path]:
    key = hashlib.sha1(f"{spec.repo_id}\n{spec.revision}\n{spec.filename}".encode()).hexdigest()
    folder = remote_cache_folder()
    return folder / f"{key}.json", folder / f"{key}.header"


def _load(spec: RemoteSpec, etag: str | None) -> tuple[dict[str, object], bytes] | None:
    facts_file, bytes_file = _entry(spec)
    facts = stored_json.as_dict(stored_json.read_file(facts_file).value)
    if facts.get("version") != CACHE_VERSION or (etag is not None and facts.get("etag") != etag):
        return None
    data = stored_json.file_bytes(bytes_file)
    if data is None or len(data) != facts.get("header_bytes"):
        return None  # a missing or damaged entry: read the header again
    return facts, data


def _store(spec: RemoteSpec, file: RemoteFile, data: bytes, transferred: int) -> None:
    facts_file, bytes_file = _entry(spec)
    facts = {
        "version": CACHE_VERSION,
        "repo_id": spec.repo_id,
        "filename": spec.filename,
        "revision": spec.revision,
        "etag": file.etag,
        "commit": file.commit,
        "size": file.size,
        "sha256": file.sha256,
        "header_bytes": len(data),
        "bytes_transferred": transferred,
    }
    suffix = f".{os.getpid()}.{threading.get_ident()}.tmp"
    tmp_bytes = bytes_file.with_name(bytes_file.name + suffix)
    tmp_facts = facts_file.with_name(facts_file.name + suffix)
    try:
        facts_file.parent.mkdir(parents=True, exist_ok=True)
        tmp_bytes.write_bytes(data)
        tmp_facts.write_text(json.dumps(facts), encoding="utf-8")
        # Bytes first: a facts file never points at bytes that are not there yet.
        os.replace(tmp_bytes, bytes_file)
        os.replace(tmp_facts, facts_file)
    except OSError:
        # The cache saves a few MB of transfer; a full or read-only disk must not break inspection.
        for tmp in (tmp_bytes, tmp_facts):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _model(spec: RemoteSpec, data: bytes, size: int, sha256: str | None, transferred: int, cached: bool) -> RemoteModel:
    header = parse_header_bytes(data, str(spec), size)
    return RemoteModel(
        spec=spec,
        header=header,
        inspection=inspect_header(header),
        size=size,
        sha256=sha256,
        header_bytes=len(data),
        bytes_transferred=transferred,
        cached=cached,
    )


def describe_remote(spec: RemoteSpec, token: str | None = None) -> RemoteModel:
    """The header and inspection of a Hub file, read with Range requests or from the cache.

    Raises :class:`DownloadError` when the Hub cannot be asked (offline with
    nothing cached, unknown repository or file, gated) and
    :class:`ModelFileError` when the file is not a GGUF model or is cut short.
    """
    # Imported here so that listing and inspecting local models never loads the HTTP stack.
    from app.engine.hub.download import offline_mode
    from app.engine.hub.remote import read_remote_header, remote_file

    if offline_mode():
        hit = _load(spec, None)
        if hit is None:
            raise DownloadError(
                f"offline mode is on (HF_HUB_OFFLINE) and the header of {spec} was never read; "
                "unset HF_HUB_OFFLINE to inspect it"
            )
        facts, data = hit
        return _model(spec, data, int(str(facts["size"])), _optional_str(facts.get("sha256")), 0, True)
    file = remote_file(spec.repo_id, spec.filename, revision=spec.revision, token=token)
    hit = _load(spec, file.etag)
    if hit is not None:
        return _model(spec, hit[1], file.size, file.sha256, 0, True)
    read = read_remote_header(spec.repo_id, spec.filename, revision=spec.revision, token=token, file=file)
    _store(spec, read.file, read.data, read.bytes_transferred)
    return RemoteModel(
        spec=spec,
        header=read.header,
        inspection=inspect_header(read.header),
        size=read.file.size,
        sha256=read.file.sha256,
        header_bytes=len(read.data),
        bytes_transferred=read.bytes_transferred,
        cached=False,
    )


def _optional_str(value: object) -> str | None:
    return None if value is None else str(value)
