"""Raw-socket HTTP for the attack tests: exactly the bytes a hostile client sends, and what comes back."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from typing import Any

from app.engine.server.http import RunningServer


@dataclass
class Reply:
    """One HTTP response as read off the socket."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def json(self) -> Any:
        return json.loads(self.body)


def address(server: RunningServer) -> tuple[str, int]:
    host, port = server.httpd.server_address[:2]
    return str(host), int(port)


def connect(server: RunningServer, timeout: float = 15) -> socket.socket:
    sock = socket.create_connection(address(server), timeout=timeout)
    return sock


def request_bytes(
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    host: str | None = "127.0.0.1",
    content_type: str | None = "application/json",
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
        if content_type is not None:
            lines.append(f"Content-Type: {content_type}")
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")


def read_reply(sock: socket.socket, timeout: float = 15) -> Reply:
    """Read one response (head, then Content-Length bytes or up to the close); fails the test on a time-out."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a complete response head: {data!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "-1"))
    while length >= 0 and len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return Reply(int(status_line.split()[1]), headers, rest if length < 0 else rest[:length])


def exchange(server: RunningServer, raw: bytes, timeout: float = 15) -> Reply:
    """One request on a fresh connection."""
    with connect(server, timeout) as sock:
        sock.sendall(raw)
        return read_reply(sock, timeout)


def post_json(server: RunningServer, path: str, body: bytes, **headers: str) -> Reply:
    return exchange(server, request_bytes("POST", path, body, headers))


def seconds_until_closed(sock: socket.socket, limit: float) -> float:
    """How long until the server closes ``sock`` (data it sends first is read and dropped); fails past ``limit``."""
    started = time.monotonic()
    sock.settimeout(limit)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    return time.monotonic() - started


def is_closed(sock: socket.socket) -> bool:
    """True when the server has closed ``sock`` (end-of-file or reset waiting), without blocking."""
    sock.setblocking(False)
    try:
        return sock.recv(65536) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True
    finally:
        sock.setblocking(True)
