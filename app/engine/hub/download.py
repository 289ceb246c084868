"""Downloading GGUF files from the Hugging Face Hub: progress, cancel, resume, clear errors.

Built on huggingface_hub's own pieces: ``hf_hub_url`` and
``get_hf_file_metadata`` (the HEAD call that yields the ETag, commit, size
and CDN location, with the Hub's typed errors for missing, private and gated
repos), ``build_hf_headers`` (token from the argument, ``HF_TOKEN`` or the
saved login), the library's shared HTTP session and ``hf_raise_for_status``.
The body transfer itself is a short loop here rather than
``hf_hub_download`` because, as of huggingface_hub 2.4.0, that function
writes each attempt to a process-unique temporary file and deletes it when
the call fails (see ``_download_to_tmp_and_move``): it resumes only within a
call, so a cancelled or crashed 5 GB download would restart from zero. It
also reads the body in 10 MB chunks, too coarse for a progress bar or a
prompt cancel on a slow line.

Here the bytes go to ``<name>.<etag>.partial`` in the models folder; a later
call for the same file continues it with an HTTP Range request; only a file
whose size, SHA-256 (when the ETag is one, as for LFS files) and GGUF header
check out is renamed to its final name. ``HF_HUB_OFFLINE`` and
``HF_ENDPOINT`` are read at call time so they can change while the app runs.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
import threading
import time
from pathlib import Path, PurePosixPath
from urllib.parse import urlparse

import httpx2
from filelock import FileLock, Timeout
from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url, try_to_load_from_cache
from huggingface_hub.errors import (
    FileMetadataError,
    HfHubHTTPError,
    OfflineModeIsEnabled,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import build_hf_headers, hf_raise_for_status, http_stream_backoff

from app.core.display.units import bytes_words
from app.core.display.wording import QT_TRANSLATE_NOOP, Value, words_of
from app.engine.gguf.header import ModelFileError, read_header
from app.engine.hub.auth import auth_error
from app.engine.hub.cache import hf_cache_dir
from app.engine.hub.progress import (
    CHUNK_BYTES,
    DownloadCancelledError,
    DownloadError,
    ProgressCallback,
    ProgressMeter,
)
from app.engine.paths import models_dir

MAX_RETRIES = 5  # consecutive network failures without new bytes before giving up
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_TRANSIENT = (httpx2.TransportError,)  # connect, read, protocol and timeout errors: retry with Range


def _truthy(value: str | None) -> bool:
    return (value or "").strip().upper() in {"1", "ON", "YES", "TRUE"}


def offline_mode() -> bool:
    """True when ``HF_HUB_OFFLINE`` is set now or was set when huggingface_hub was imported."""
    return _truthy(os.environ.get("HF_HUB_OFFLINE")) or constants.is_offline_mode()


def hub_endpoint() -> str:
    """``HF_ENDPOINT`` as set now (a mirror or a local stand-in), else the library's default."""
    return (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def partial_path(destination: Path, etag: str) -> Path:
    """Where the bytes of ``destination`` collect until it is complete, tied to one server version."""
    return destination.with_name(f"{destination.name}.{etag[:16]}.partial")


def _check_cancel(cancel: threading.Event | None, filename: str, done: int = 0) -> None:
    if cancel is not None and cancel.is_set():
        if done:
            raise DownloadCancelledError(
                QT_TRANSLATE_NOOP(
                    "HubErrors", "download of {name} cancelled; {done:,} bytes are kept for a later resume"
                ).fill(name=filename, done=done)
            )
        raise DownloadCancelledError(QT_TRANSLATE_NOOP("HubErrors", "download of {name} cancelled").fill(name=filename))


def metadata_error(
    exc: Exception, repo_id: str, filename: str, revision: str, endpoint: str, token: bool
) -> DownloadError:
    """A message the user can act on, for each way the HEAD call can fail."""
    refused = auth_error(exc, repo_id, endpoint, token)
    if refused is not None:
        return refused
    if isinstance(exc, RepositoryNotFoundError):
        return DownloadError(
            QT_TRANSLATE_NOOP(
                "HubErrors", "repository {repo} was not found on {endpoint} (if it is private, pass a token)"
            ).fill(repo=repo_id, endpoint=endpoint)
        )
    if isinstance(exc, RevisionNotFoundError):
        return DownloadError(f"{repo_id} has no revision {revision!r} (a branch, tag or commit)")
    if isinstance(exc, RemoteEntryNotFoundError):
        return DownloadError(
            f"{repo_id} has no file {filename!r} (revision {revision}); the catalog may be out of date"
        )
    if isinstance(exc, OfflineModeIsEnabled):
        return _offline_error(filename)
    if isinstance(exc, httpx2.TransportError):
        return DownloadError(
            QT_TRANSLATE_NOOP(
                "HubErrors", "cannot reach {endpoint} ({error}); check the network connection or HF_ENDPOINT"
            ).fill(endpoint=endpoint, error=str(exc))
        )
    if isinstance(exc, FileMetadataError):
        return DownloadError(f"{endpoint} did not answer like the Hugging Face Hub: {exc}")
    if isinstance(exc, HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else "an error"
        return DownloadError(f"the Hub answered {status} for {repo_id}/{filename}; try again later")
    return DownloadError(f"could not look up {repo_id}/{filename}: {exc}")


def _offline_error(filename: str) -> DownloadError:
    return DownloadError(
        QT_TRANSLATE_NOOP(
            "HubErrors",
            "offline mode is on (HF_HUB_OFFLINE) and {name} is not on this computer yet; "
            "unset HF_HUB_OFFLINE to download it",
        ).fill(name=filename)
    )


def _disk_error(exc: OSError, folder: Path, filename: str, done: int) -> DownloadError:
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        free = shutil.disk_usage(folder).free if folder.exists() else 0
        return DownloadError(
            QT_TRANSLATE_NOOP(
                "HubErrors",
                "the disk is full: {folder} has {free} free while writing {name}; "
                "free some space and download again ({done:,} bytes are kept and the download will resume)",
            ).fill(folder=str(folder), free=bytes_words(free), name=filename, done=done)
        )
    return DownloadError(f"cannot write {filename} in {folder}: {exc.strerror or exc}")


def _check_space(folder: Path, needed: int, filename: str) -> None:
    free = shutil.disk_usage(folder).free
    if needed > free:
        raise DownloadError(
            QT_TRANSLATE_NOOP(
                "HubErrors", "not enough disk space for {name}: it needs {needed} more but {folder} has {free} free"
            ).fill(name=filename, needed=bytes_words(needed), folder=str(folder), free=bytes_words(free))
        )


def _stream_once(
    url: str, headers: dict[str, str], partial: Path, meter: ProgressMeter, cancel: threading.Event | None
) -> int:
    """One GET from the current end of ``partial``; returns the bytes on disk afterwards."""
    done = partial.stat().st_size if partial.exists() else 0
    request_headers = dict(headers)
    if done:
        request_headers["Range"] = f"bytes={done}-"
    with (
        http_stream_backoff(
            "GET",
            url,
            headers=request_headers,
            timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT,
            retry_on_exceptions=(),  # transfer retries are ours, so they resume from the right byte
            retry_on_status_codes=(408, 429),
        ) as response,
        partial.open("ab") as out,
    ):
        if done and response.status_code == 416 and meter.total == done:
            return done  # the partial file already holds everything
        hf_raise_for_status(response)
        resumed_at = re.match(r"bytes (\d+)-", response.headers.get("Content-Range", ""))
        if done and response.status_code == 206 and resumed_at and int(resumed_at[1]) != done:
            # Appending bytes from the wrong offset would corrupt the file silently.
            out.truncate(0)
            raise DownloadError(
                f"the server resumed {meter.filename} at byte {int(resumed_at[1]):,} instead of {done:,}; "
                "the partial download was discarded: download again"
            )
        if done and response.status_code == 200:
            # The server ignored the Range header and is sending the whole file.
            out.truncate(0)
            done = 0
            meter.start(0, meter.total)
        for chunk in response.iter_bytes(chunk_size=CHUNK_BYTES):
            _check_cancel(cancel, meter.filename, done)
            out.write(chunk)
            done += len(chunk)
            meter.update(done)
    meter.update(done, force=True)  # the last count always reaches the caller, however fast the transfer
    return done


def _transfer(
    url: str, headers: dict[str, str], partial: Path, meter: ProgressMeter, cancel: threading.Event | None
) -> None:
    """GET until ``partial`` holds ``meter.total`` bytes, resuming after dropped connections."""
    failures = 0
    while True:
        before = partial.stat().st_size if partial.exists() else 0
        try:
            done = _stream_once(url, headers, partial, meter, cancel)
            if meter.total is None or done >= meter.total:
                return
            error: Exception = DownloadError(
                QT_TRANSLATE_NOOP("HubErrors", "the server stopped after {done:,} of {total:,} bytes").fill(
                    done=done, total=meter.total
                )
            )
        except _TRANSIENT as exc:
            error = exc
        after = partial.stat().st_size if partial.exists() else 0
        failures = 0 if after > before else failures + 1
        if failures >= MAX_RETRIES:
            cause: Value = words_of(error) or str(error)
            raise DownloadError(
                QT_TRANSLATE_NOOP(
                    "HubErrors",
                    "the connection keeps failing ({error}); {kept:,} bytes are kept: download again to resume",
                ).fill(error=cause, kept=after)
            ) from error
        # Wait before reconnecting, but wake at once on cancel.
        if cancel is not None and cancel.wait(min(0.5 * 2**failures, 8.0)):
            _check_cancel(cancel, meter.filename, after)
        elif cancel is None:
            time.sleep(min(0.5 * 2**failures, 8.0))


def _verify(partial: Path, size: int | None, sha256: str | None, meter: ProgressMeter, name: str) -> None:
    actual = partial.stat().st_size
    if size is not None and actual != size:
        partial.unlink(missing_ok=True)
        raise DownloadError(
            QT_TRANSLATE_NOOP(
                "HubErrors", "{name} arrived with {actual:,} bytes instead of {size:,}; it was deleted, try again"
            ).fill(name=name, actual=actual, size=size)
        )
    if sha256:
        digest = hashlib.sha256()
        done = 0
        meter.start(0, actual)  # hashing speed, not the download's, drives this stage's ETA
        with partial.open("rb") as handle:
            while block := handle.read(8 * CHUNK_BYTES):
                digest.update(block)
                done += len(block)
                meter.update(done, stage="verifying")
        if digest.hexdigest() != sha256.lower():
            partial.unlink(missing_ok=True)
            raise DownloadError(
                QT_TRANSLATE_NOOP(
                    "HubErrors", "{name} did not match its SHA-256 checksum; it was deleted, download it again"
                ).fill(name=name)
            )
    try:
        read_header(partial)
    except ModelFileError as exc:
        partial.unlink(missing_ok=True)
        raise DownloadError(f"{name} is not a usable GGUF model ({exc}); it was deleted") from exc


def _fetch_locked(
    folder: Path,
    name: str,
    partial: Path,
    size: int | None,
    location: str,
    headers: dict[str, str],
    meter: ProgressMeter,
    cancel: threading.Event | None,
    sha256: str | None,
) -> None:
    """Bring ``partial`` to a verified, complete file (the caller holds the lock)."""
    for stale in folder.glob(f"{name}.*.partial"):
        if stale != partial:
            stale.unlink(missing_ok=True)  # an older server version of this file: useless now
    done = partial.stat().st_size if partial.exists() else 0
    if size is not None and done > size:
        partial.unlink()
        done = 0
    meter.start(done, size)
    if size is not None:
        _check_space(folder, size - done, name)
    try:
        _transfer(location, headers, partial, meter, cancel)
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else "?"
        kept = partial.stat().st_size if partial.exists() else 0
        raise DownloadError(
            f"the server answered {status} while sending {name}; {kept:,} bytes are kept: download again to resume"
        ) from exc
    except OSError as exc:
        raise _disk_error(exc, folder, name, partial.stat().st_size if partial.exists() else 0) from exc
    _verify(partial, size, sha256, meter, name)


def download_model(
    repo_id: str,
    filename: str,
    progress: ProgressCallback | None,
    cancel: threading.Event | None = None,
    token: str | None = None,
    *,
    revision: str = "main",
    folder: str | Path | None = None,
    sha256: str | None = None,
    file_index: int = 1,
    file_count: int = 1,
) -> Path:
    """Download ``filename`` from ``repo_id`` into the models folder; return its path.

    Returns at once when the file is already there and complete. A cancelled
    or failed download leaves only ``*.partial`` (resumed by the next call).
    ``progress`` is called from this thread. Raises :class:`DownloadCancelledError`
    when ``cancel`` is set, :class:`DownloadError` with a clear reason otherwise.
    """
    folder = Path(folder) if folder is not None else models_dir()
    folder.mkdir(parents=True, exist_ok=True)
    name = PurePosixPath(filename).name
    destination = folder / name
    meter = ProgressMeter(progress, name, file_index, file_count)
    if destination.is_file():
        try:
            read_header(destination)
        except ModelFileError as exc:
            raise DownloadError(f"{destination} exists but is damaged ({exc}); delete it and download again") from exc
        size = destination.stat().st_size
        meter.start(size, size)
        meter.update(size, stage="done", force=True)
        return destination
    if offline_mode():
        cached = try_to_load_from_cache(repo_id, filename, cache_dir=hf_cache_dir(), revision=revision)
        if isinstance(cached, str):
            return Path(cached)  # already in the Hugging Face cache: use it where it is
        raise _offline_error(name)
    _check_cancel(cancel, name)
    endpoint = hub_endpoint()
    url = hf_hub_url(repo_id, filename, revision=revision, endpoint=endpoint)
    meter.start(0, None)
    meter.update(0, stage="connecting", force=True)
    try:
        meta = get_hf_file_metadata(url, token=token, endpoint=endpoint)
    except Exception as exc:
        raise metadata_error(exc, repo_id, filename, revision, endpoint, bool(token)) from exc
    if not meta.etag:
        raise DownloadError(f"{endpoint} sent no ETag for {repo_id}/{filename}: not a Hub-compatible server")
    headers = build_hf_headers(token=token)
    headers["Accept-Encoding"] = "identity"  # byte ranges must refer to the file, not a compressed stream
    location = meta.location or url
    if urlparse(location).netloc != urlparse(url).netloc:
        headers.pop("authorization", None)  # never send the token to a CDN
    if sha256 is None and _SHA256.match(meta.etag):
        sha256 = meta.etag  # LFS files: the ETag is the content's SHA-256
    partial = partial_path(destination, meta.etag)
    # The lock keeps two windows or processes from appending to one partial file.
    # Lock files live in a hidden folder (never scanned for models) and are left
    # in place: deleting one another process may hold would break the lock.
    lock_path = folder / ".tandem-locks" / f"{name}.lock"
    lock_path.parent.mkdir(exist_ok=True)
    try:
        with FileLock(str(lock_path), timeout=0.5):
            _fetch_locked(
                folder=folder,
                name=name,
                partial=partial,
                size=meta.size,
                location=location,
                headers=headers,
                meter=meter,
                cancel=cancel,
                sha256=sha256,
            )
            os.replace(partial, destination)
    except Timeout:
        raise DownloadError(
            QT_TRANSLATE_NOOP("HubErrors", "{name} is already being downloaded by another window or process").fill(
                name=name
            )
        ) from None
    final = destination.stat().st_size
    meter.update(final, stage="done", force=True)
    return destination
