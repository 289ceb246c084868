"""A real HTTP server on 127.0.0.1 that stands in for the Hugging Face Hub in download and search tests.

It answers the calls huggingface_hub makes, with the headers and JSON shapes
the Hub sends: HEAD and GET on ``/{repo}/resolve/{revision}/{filename}``
(X-Repo-Commit, ETag, Content-Length, Accept-Ranges, Content-Range, and
X-Error-Code on errors) with Range requests, model search on ``/api/models``
(``search``, ``filter``, ``sort``, ``limit``, with a ``Link: rel="next"``
cursor for paging), and a repository's file tree with LFS size and SHA-256
on ``/api/models/{repo}/tree/{revision}`` (main, or a branch or tag given to
:meth:`FakeHub.add`; others are 404 RevisionNotFound). It can be told to cut a
connection mid-file, answer an error status, ignore Range or resume at the
wrong byte, or trickle bytes, and it counts the body bytes it sent per file.
Files are held in memory, or served from a path on disk (a real model of a
gigabyte is read only where a Range asks).
Not a test module: the tests import it.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

COMMIT = "0123456789abcdef0123456789abcdef01234567"  # what X-Repo-Commit reports


@dataclass
class Request:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]


@dataclass
class FakeHub:
    """What the stand-in server serves and how it misbehaves."""

    url: str = ""
    files: dict[tuple[str, str], bytes | Path] = field(default_factory=dict)
    digests: dict[tuple[str, str], str] = field(default_factory=dict)  # the SHA-256 the Hub reports
    gated: dict[str, str] = field(default_factory=dict)  # repo -> the token that grants access
    # Tokens the Hub knows. Empty: any token is taken as known (a wrong one is then "not granted").
    # Set: an unknown token is 401 "Invalid credentials", a known one not granted a gated repo 403, as on the Hub.
    tokens: set[str] = field(default_factory=set)
    announced_sizes: dict[tuple[str, str], int] = field(default_factory=dict)  # lie about a file's size
    plans: list[tuple[str, float]] = field(default_factory=list)  # consumed one per GET
    ignore_range: bool = False  # answer every GET with the whole file, as some mirrors do
    page_size: int = 1000  # the most search results one response holds, as the Hub caps them
    log: list[Request] = field(default_factory=list)
    repo_info: dict[str, dict[str, Any]] = field(default_factory=dict)  # downloads, likes, lastModified, tags
    sent: dict[tuple[str, str], int] = field(default_factory=dict)  # body bytes sent per file
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, repo: str, filename: str, data: bytes, revision: str = "main") -> str:
        """Serve ``data`` as ``filename`` of ``repo`` on ``revision`` (a branch or tag; "main" by default)."""
        key = (repo, filename if revision in _MAIN else revision_key(revision, filename))
        self.files[key] = data
        digest = hashlib.sha256(data).hexdigest()
        self.digests[key] = digest
        return digest

    def add_path(self, repo: str, filename: str, path: Path) -> None:
        """Serve a file from disk. Files over 64 MB report a stand-in SHA-256 (hashing the real
        models would slow every test): those are for header reads, not for downloads."""
        self.files[(repo, filename)] = path
        if path.stat().st_size <= 64 << 20:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            digest = hashlib.sha256(f"{path}:{path.stat().st_size}".encode()).hexdigest()
        self.digests[(repo, filename)] = digest

    def set_info(self, repo: str, **info: Any) -> None:
        """Search fields of ``repo``: downloads, likes, lastModified, tags, gated."""
        self.repo_info.setdefault(repo, {}).update(info)

    def gets(self) -> list[Request]:
        return [r for r in self.log if r.method == "GET"]

    def size(self, key: tuple[str, str]) -> int:
        data = self.files[key]
        return data.stat().st_size if isinstance(data, Path) else len(data)

    def read(self, key: tuple[str, str], start: int, end: int) -> bytes:
        data = self.files[key]
        if isinstance(data, bytes):
            return data[start:end]
        with data.open("rb") as handle:
            handle.seek(start)
            return handle.read(end - start)

    def repos(self) -> list[str]:
        return sorted({r for r, _ in self.files} | set(self.repo_info))

    def count_sent(self, key: tuple[str, str], n: int) -> None:
        with self._lock:
            self.sent[key] = self.sent.get(key, 0) + n


_MAIN = ("main", COMMIT)
_REVISION_MARK = "\x00"  # file keys of other revisions start with it; no Hub path can


def revision_key(revision: str, filename: str) -> str:
    """The key under which a file of a revision other than main is held in :attr:`FakeHub.files`."""
    return f"{_REVISION_MARK}{revision}/{filename}"


def _key_on(repo: str, revision: str, filename: str) -> tuple[str, str]:
    return (repo, filename if revision in _MAIN else revision_key(revision, filename))


def _revision_known(hub: FakeHub, repo: str, revision: str) -> bool:
    prefix = revision_key(revision, "")
    return revision in _MAIN or any(r == repo and f.startswith(prefix) for r, f in hub.files)


_PATH = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<revision>[^/]+)/(?P<filename>.+)$")
_TREE = re.compile(r"^/api/models/(?P<repo>[^/]+/[^/]+)/tree/(?P<revision>[^/]+)/?$")
_RANGE = re.compile(r"bytes=(\d+)-(\d*)")
_SORT_FIELDS = {"downloads": "downloads", "likes": "likes", "lastModified": "lastModified"}


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        """Serves ``hub``'s files on the Hub's resolve URLs; HTTP/1.1 so the client keeps connections alive."""

        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
            pass

        def do_HEAD(self) -> None:
            self._serve(head=True)

        def do_GET(self) -> None:
            split = urlsplit(self.path)
            if split.path.rstrip("/") == "/api/models":
                hub.log.append(Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
                if self._refused(None):
                    return None
                return self._search(parse_qs(split.query))
            tree = _TREE.match(unquote(split.path))
            if tree:
                hub.log.append(Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
                return self._tree(tree["repo"], tree["revision"])
            self._serve(head=False)
            return None

        def _json(self, payload: Any, link: str | None = None) -> None:
            body = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if link:
                self.send_header("Link", f'<{link}>; rel="next"')
            self.end_headers()
            self.wfile.write(body)

        def _search(self, query: dict[str, list[str]]) -> None:
            """The Hub's model search: substring match on the id, the gguf tag filter, sort, limit and a cursor."""
            text = query.get("search", [""])[0].lower()
            wanted_tags = set(query.get("filter", []))
            rows = []
            for repo in hub.repos():
                info = hub.repo_info.get(repo, {})
                tags = set(info.get("tags", ["gguf"]))
                if text in repo.lower() and wanted_tags <= tags:
                    rows.append({"id": repo, "_id": repo, "modelId": repo, "private": False, **info})
            sort = _SORT_FIELDS.get(query.get("sort", [""])[0])
            if sort:
                blank = "" if sort == "lastModified" else 0
                rows.sort(key=lambda row: row.get(sort) or blank, reverse=True)  # the Hub sorts descending
            start = int(query.get("cursor", ["0"])[0])
            limit = min(hub.page_size, int(query.get("limit", ["1000"])[0]))
            page = rows[start : start + limit]
            link = None
            if start + limit < len(rows):
                rest = {k: v for k, v in query.items() if k != "cursor"}
                link = f"{hub.url}/api/models?{urlencode({**rest, 'cursor': start + limit}, doseq=True)}"
            self._json(page, link)

        def _tree(self, repo: str, revision: str) -> None:
            if repo not in hub.repos():
                return self._error(404, "RepoNotFound")
            if self._refused(repo):
                return None
            if not _revision_known(hub, repo, revision):
                return self._error(404, "RevisionNotFound")
            prefix = "" if revision in _MAIN else revision_key(revision, "")
            entries = []
            for (r, stored), _data in sorted(hub.files.items()):
                if r != repo or not stored.startswith(prefix) or (not prefix and stored.startswith(_REVISION_MARK)):
                    continue
                filename = stored[len(prefix) :]
                size = hub.announced_sizes.get((r, stored), hub.size((r, stored)))
                digest = hub.digests[(r, stored)]
                entries.append(
                    {
                        "type": "file",
                        "path": filename,
                        "size": size,
                        "oid": hashlib.sha1(digest.encode()).hexdigest(),  # the git blob id of the LFS pointer
                        "lfs": {"oid": digest, "size": size, "pointerSize": 134},
                    }
                )
            return self._json(entries)

        def _refused(self, repo: str | None) -> bool:
            """Answer as the Hub does for an unknown token (any route) or a gated repo not granted; True if it did."""
            sent = self.headers.get("authorization") or ""
            token = sent.removeprefix("Bearer ") if sent.startswith("Bearer ") else None
            if token is not None and hub.tokens and token not in hub.tokens:
                self._error(401, "", "Invalid credentials in Authorization header")
                return True
            if repo is None or repo not in hub.gated or token == hub.gated[repo]:
                return False
            if token is not None and hub.tokens:
                why = f"Access to model {repo} is restricted and you are not in the authorized list."
                self._error(403, "GatedRepo", f"{why} Visit {hub.url}/{repo} to ask for access.")
            else:
                self._error(401, "GatedRepo", f"Access to model {repo} is restricted. You must have access to it "
                                              "and be authenticated to access it. Please log in.")  # fmt: skip
            return True

        def _error(self, status: int, code: str, message: str = "") -> None:
            self.send_response(status)
            if code:
                self.send_header("X-Error-Code", code)
            if message:
                self.send_header("X-Error-Message", message)
            if code == "EntryNotFound":
                self.send_header("X-Repo-Commit", COMMIT)  # the repo exists, as on the Hub
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _serve(self, head: bool) -> None:
            hub.log.append(Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
            match = _PATH.match(unquote(self.path))
            if not match:
                return self._error(404, "RepoNotFound")
            repo, filename = match["repo"], match["filename"]
            if not any(r == repo for r, _ in hub.files):
                return self._error(404, "RepoNotFound")
            if self._refused(repo):
                return None
            if not _revision_known(hub, repo, match["revision"]):
                return self._error(404, "RevisionNotFound")
            key = _key_on(repo, match["revision"], filename)
            if key not in hub.files:
                return self._error(404, "EntryNotFound")
            real_size = hub.size(key)
            size = hub.announced_sizes.get(key, real_size)
            plan = hub.plans.pop(0) if (not head and hub.plans) else ("normal", 0)
            if plan[0] == "status":
                self.send_response(int(plan[1]))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            start, stop = 0, size  # stop is exclusive
            ranged = False
            range_match = _RANGE.match(self.headers.get("Range") or "")
            ignore = plan[0] == "ignore-range" or hub.ignore_range
            if range_match and not ignore:
                ranged = True
                start = int(range_match[1])
                if range_match[2]:
                    stop = min(size, int(range_match[2]) + 1)
                if plan[0] == "shift":
                    start += int(plan[1])  # a broken server or proxy resuming at the wrong byte
            partial_body = ranged and (start > 0 or stop < size)
            self.send_response(206 if partial_body else 200)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", f'"{hub.digests[key]}"')
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(stop - start))
            if partial_body:
                self.send_header("Content-Range", f"bytes {start}-{stop - 1}/{size}")
            self.end_headers()
            if head:
                return None
            body_start, body_stop = min(start, real_size), min(stop, real_size)
            if plan[0] == "cut":
                body = hub.read(key, body_start, min(body_stop, body_start + int(plan[1])))
            elif isinstance(hub.files[key], bytes):
                body = hub.read(key, body_start, body_stop)
            else:
                return self._stream_file(key, body_start, body_stop, plan)
            if plan[0] == "cut":
                # Send part of the body, then drop the connection as a flaky network would.
                self.wfile.write(body)
                hub.count_sent(key, len(body))
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return None
            step = 256 * 1024
            for offset in range(0, len(body), step):
                try:
                    self.wfile.write(body[offset : offset + step])
                except (BrokenPipeError, ConnectionResetError):
                    return None  # the client hung up (cancelled)
                hub.count_sent(key, len(body[offset : offset + step]))
                if plan[0] == "slow":
                    time.sleep(plan[1])
            return None

        def _stream_file(self, key: tuple[str, str], start: int, stop: int, plan: tuple[str, float]) -> None:
            step = 256 * 1024
            for offset in range(start, stop, step):
                chunk = hub.read(key, offset, min(stop, offset + step))
                try:
                    self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client hung up: it had what it wanted
                hub.count_sent(key, len(chunk))
                if plan[0] == "slow":
                    time.sleep(plan[1])

    return Handler


@contextmanager
def running_hub() -> Iterator[FakeHub]:
    """Serve a fresh :class:`FakeHub` until the block ends."""
    state = FakeHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
