"""Reading a GGUF file's header on the Hub without downloading the file: HTTP Range requests that grow.

A GGUF header (metadata, vocabulary, tensor table) is a small prefix of the
file: Qwen2.5's, with its 152k-token vocabulary and 151k BPE merges, is
5,950,506 bytes of a 1.1 GB Q4_K_M file (0.5%); SmolLM2's 49k vocabulary
needs about 1.3 MB. Its length is not stated anywhere up front, so the
reader asks for the first MiB, tries to parse it, and on
:class:`~app.engine.gguf.header.HeaderIncompleteError` asks for the next
stretch, doubling the prefix each time (at most twice the header is read,
in about log2(header / 1 MiB) + 1 requests: four for Qwen).

The HEAD call is huggingface_hub's ``get_hf_file_metadata`` (size, ETag,
commit, CDN location and the Hub's typed errors), shared with
:mod:`app.engine.hub.download`; the body requests go through the library's
HTTP session. A server that ignores Range and sends the whole file is read
from that one response only as far as the header goes, then hung up on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlparse

import httpx2
from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url
from huggingface_hub.errors import HfHubHTTPError
from huggingface_hub.utils import build_hf_headers, hf_raise_for_status, http_stream_backoff

from app.engine.gguf.header import GGUFHeader, HeaderIncompleteError, ModelFileError, parse_header_bytes
from app.engine.hub.download import hub_endpoint, metadata_error, offline_mode
from app.engine.hub.progress import DownloadError

FIRST_READ_BYTES = 1 << 20
# The reader's last resort: 20 times the largest real header (Gemma's 262k tokens, ~6 MB). The parser
# refuses most hostile headers long before, from their own counts against the bytes left in the file
# (app.engine.gguf.header.Cursor.plausible), so this is reached only by one that really sends its bytes.
MAX_HEADER_BYTES = 128 << 20
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True, slots=True)
class RemoteFile:
    """One file on the Hub as its HEAD answer describes it."""

    repo_id: str
    filename: str
    revision: str
    size: int
    etag: str
    commit: str | None
    url: str
    location: str

    @property
    def sha256(self) -> str | None:
        """The content's SHA-256 when the ETag is one (LFS files), else ``None``."""
        return self.etag if _SHA256.match(self.etag) else None

    @property
    def spec(self) -> str:
        """``owner/name/path/in/repo.gguf``, the way the CLI writes a remote file."""
        return f"{self.repo_id}/{self.filename}"


@dataclass(frozen=True, slots=True)
class RemoteHeader:
    """A remote file's parsed header, its exact bytes, and what reading it cost."""

    file: RemoteFile
    header: GGUFHeader
    data: bytes  # the header's bytes (the file's first header.header_size bytes)
    bytes_transferred: int  # body bytes received, the header and the overshoot of the last request
    requests: int  # GET requests made


def remote_file(repo_id: str, filename: str, *, revision: str = "main", token: str | None = None) -> RemoteFile:
    """The HEAD answer for ``repo_id/filename``; :class:`DownloadError` with a clear reason when it fails."""
    if offline_mode():
        raise DownloadError(f"offline mode is on (HF_HUB_OFFLINE): cannot look up {repo_id}/{filename} on the Hub")
    endpoint = hub_endpoint()
    url = hf_hub_url(repo_id, filename, revision=revision, endpoint=endpoint)
    try:
        meta = get_hf_file_metadata(url, token=token, endpoint=endpoint)
    except Exception as exc:
        raise metadata_error(exc, repo_id, filename, revision, endpoint, bool(token)) from exc
    if not meta.etag or meta.size is None:
        raise DownloadError(f"{endpoint} sent no ETag or size for {repo_id}/{filename}: not a Hub-compatible server")
    return RemoteFile(
        repo_id=repo_id,
        filename=filename,
        revision=revision,
        size=meta.size,
        etag=meta.etag,
        commit=meta.commit_hash,
        url=url,
        location=meta.location or url,
    )


class _Prefix:
    """The file's first bytes as read so far, and the next length worth parsing at."""

    def __init__(self, file: RemoteFile, first_read: int) -> None:
        self.file = file
        self.data = bytearray()  # grown in place: one copy of the prefix in memory, not two
        self.goal = min(first_read, file.size)
        self.received = 0
        self.requests = 0

    def try_parse(self) -> GGUFHeader | None:
        """The header once ``data`` holds it; otherwise raise ``goal`` and return ``None``."""
        try:
            return parse_header_bytes(self.data, self.file.spec, self.file.size)
        except HeaderIncompleteError as exc:
            if len(self.data) >= MAX_HEADER_BYTES:
                raise ModelFileError(f"{self.file.spec} claims a header over {MAX_HEADER_BYTES:,} bytes") from exc
            # Doubling, not a jump to what the header claims it needs: a claim is data, not a size to fetch.
            grown = max(2 * len(self.data), min(exc.needed, 4 * len(self.data)))
            self.goal = min(self.file.size, MAX_HEADER_BYTES, grown)
            return None

    def fetch(self, headers: dict[str, str]) -> GGUFHeader | None:
        """One GET for ``[len(data), goal)``; the header when it is complete, else ``None``."""
        request_headers = dict(headers)
        request_headers["Range"] = f"bytes={len(self.data)}-{self.goal - 1}"
        self.requests += 1
        with http_stream_backoff(
            "GET",
            self.file.location,
            headers=request_headers,
            timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT,
            retry_on_status_codes=(408, 429, 500, 502, 503, 504),
        ) as response:
            hf_raise_for_status(response)
            if response.status_code == 206:
                # Only the bytes asked for are kept, and reading stops there: a server that sends more
                # than its Range (without end, even) costs no more memory than the range.
                want, got = self.goal - len(self.data), 0
                for chunk in response.iter_bytes(chunk_size=256 * 1024):
                    self.received += len(chunk)
                    take = chunk[: want - got]
                    self.data += take
                    got += len(take)
                    if got >= want:
                        break
                if not got:
                    raise DownloadError(f"the server sent no bytes of {self.file.spec} at {len(self.data):,}")
                return self.try_parse()
            # A 200 carries the whole file from byte 0 (the server ignored Range): keep
            # reading this one stream, parsing each time the goal is reached, and hang
            # up as soon as the header is complete.
            self.data = bytearray()
            for chunk in response.iter_bytes(chunk_size=256 * 1024):
                self.data += chunk
                self.received += len(chunk)
                if len(self.data) >= self.goal:
                    header = self.try_parse()
                    if header is not None:
                        return header
            header = self.try_parse()
            if header is None:
                raise DownloadError(f"the server stopped sending {self.file.spec} at byte {len(self.data):,}")
            return header


def read_remote_header(
    repo_id: str,
    filename: str,
    *,
    revision: str = "main",
    token: str | None = None,
    first_read: int = FIRST_READ_BYTES,
    file: RemoteFile | None = None,
) -> RemoteHeader:
    """Read only the header of a GGUF file on the Hub, growing the Range until it parses.

    Raises :class:`DownloadError` for lookup and transfer failures and
    :class:`ModelFileError` when the file is not a GGUF model or its header is
    cut short (the file ends inside it). ``file`` spares the HEAD call when
    the caller has just made it.
    """
    if file is None:
        file = remote_file(repo_id, filename, revision=revision, token=token)
    headers = build_hf_headers(token=token)
    headers["Accept-Encoding"] = "identity"  # byte ranges must refer to the file, not a compressed stream
    if urlparse(file.location).netloc != urlparse(file.url).netloc:
        headers.pop("authorization", None)  # never send the token to a CDN
    prefix = _Prefix(file, first_read)
    header: GGUFHeader | None = None
    while header is None:
        try:
            header = prefix.fetch(headers)
        except HfHubHTTPError as exc:
            status = exc.response.status_code if exc.response is not None else "an error"
            raise DownloadError(f"the Hub answered {status} while reading the header of {file.spec}") from exc
        except (httpx2.TransportError, OSError) as exc:
            raise DownloadError(f"cannot read the header of {file.spec}: {exc}") from exc
    return RemoteHeader(file, header, bytes(prefix.data[: header.header_size]), prefix.received, prefix.requests)
