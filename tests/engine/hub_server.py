"""A real HTTP server on 127.0.0.1 that stands in for the Hugging Face Hub in download tests.

It answers the two calls a file download makes, HEAD and GET on
``/{repo}/resolve/{revision}/{filename}``, with the headers the Hub sends
(X-Repo-Commit, ETag, Content-Length, Accept-Ranges, Content-Range, and
X-Error-Code on errors), honours Range requests, and can be told to cut a
connection mid-file, answer an error status, ignore Range or resume at the
wrong byte, or trickle bytes.
Not a test module: the tests import it.
"""

from __future__ import annotations

import hashlib
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

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
    files: dict[tuple[str, str], bytes] = field(default_factory=dict)
    gated: dict[str, str] = field(default_factory=dict)  # repo -> the token that grants access
    announced_sizes: dict[tuple[str, str], int] = field(default_factory=dict)  # lie about a file's size
    plans: list[tuple[str, float]] = field(default_factory=list)  # consumed one per GET
    log: list[Request] = field(default_factory=list)

    def add(self, repo: str, filename: str, data: bytes) -> str:
        self.files[(repo, filename)] = data
        return hashlib.sha256(data).hexdigest()

    def gets(self) -> list[Request]:
        return [r for r in self.log if r.method == "GET"]


_PATH = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<revision>[^/]+)/(?P<filename>.+)$")


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        """Serves ``hub``'s files on the Hub's resolve URLs; HTTP/1.1 so the client keeps connections alive."""

        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
            pass

        def do_HEAD(self) -> None:
            self._serve(head=True)

        def do_GET(self) -> None:
            self._serve(head=False)

        def _error(self, status: int, code: str) -> None:
            self.send_response(status)
            self.send_header("X-Error-Code", code)
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
            if repo in hub.gated and self.headers.get("authorization") != f"Bearer {hub.gated[repo]}":
                return self._error(401, "GatedRepo")
            data = hub.files.get((repo, filename))
            if data is None:
                return self._error(404, "EntryNotFound")
            size = hub.announced_sizes.get((repo, filename), len(data))
            plan = hub.plans.pop(0) if (not head and hub.plans) else ("normal", 0)
            if plan[0] == "status":
                self.send_response(int(plan[1]))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            start = 0
            range_header = self.headers.get("Range")
            if range_header and plan[0] != "ignore-range":
                start = int(re.match(r"bytes=(\d+)-", range_header)[1])  # type: ignore[index]
                if plan[0] == "shift":
                    start += int(plan[1])  # a broken server or proxy resuming at the wrong byte
            self.send_response(206 if start else 200)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size - start))
            if start:
                self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
            self.end_headers()
            if head:
                return None
            body = data[start:]
            if plan[0] == "cut":
                # Send part of the body, then drop the connection as a flaky network would.
                self.wfile.write(body[: int(plan[1])])
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
                if plan[0] == "slow":
                    time.sleep(plan[1])
            return None

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
