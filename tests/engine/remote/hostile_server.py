"""Small hostile HTTP servers on 127.0.0.1, written on raw sockets so they can break every rule.

Each connection runs one script: it reads the request head (and body), then
writes whatever the script wants: an endless body, a line that never ends,
keep-alive comments for ever, more tokens than asked for. Every loop is
bounded (a byte budget and a time budget), and stops as soon as the client
hangs up, so a test that fails leaves nothing running. Not a test module:
the tests and the measuring script import it.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

Script = Callable[["Connection"], None]
BUDGET_BYTES = 512 << 20  # no script sends more than this on one connection
BUDGET_S = 60.0  # nor for longer than this


class Connection:
    """One accepted connection: the request it carried, and bounded ways to answer."""

    def __init__(self, sock: socket.socket, stop: threading.Event) -> None:
        self.sock = sock
        self.stop = stop
        self.sent = 0
        self.started = time.monotonic()
        self.method, self.path, self.body = self._read_request()

    def _read_request(self) -> tuple[str, str, bytes]:
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 1 << 20:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        self.request_head = head.decode("latin-1")
        lines = self.request_head.split("\r\n")
        method, path = [*lines[0].split(" "), "", ""][:2]
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        while len(rest) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            rest += chunk
        return method, path, rest

    @property
    def alive(self) -> bool:
        """Within the budgets and not told to stop."""
        return not self.stop.is_set() and self.sent < BUDGET_BYTES and time.monotonic() - self.started < BUDGET_S

    def send(self, data: bytes) -> bool:
        """Write ``data``; False once the client has gone (or a budget is spent)."""
        if not self.alive:
            return False
        try:
            self.sock.sendall(data)
        except OSError:
            return False
        self.sent += len(data)
        return True

    def head(self, status: int = 200, content_type: str = "application/json", length: int | None = None) -> bool:
        """A status line and headers; without ``length`` the body runs until the connection closes."""
        lines = [f"HTTP/1.1 {status} X", f"Content-Type: {content_type}", "Connection: close"]
        if length is not None:
            lines.append(f"Content-Length: {length}")
        return self.send(("\r\n".join(lines) + "\r\n\r\n").encode())

    def forever(self, piece: bytes, pause_s: float = 0.0) -> None:
        """Send ``piece`` again and again until the client hangs up or a budget runs out."""
        while self.send(piece):
            if pause_s:
                time.sleep(pause_s)

    def event(self, payload: Any) -> bool:
        """One SSE ``data:`` event (a JSON value, or a string sent as it is)."""
        text = payload if isinstance(payload, str) else json.dumps(payload)
        return self.send(f"data: {text}\n\n".encode())

    def models(self, owner: str = "hostile") -> None:
        """A well-formed model list (the client asks for it before a reply when no model is given)."""
        body = json.dumps({"object": "list", "data": [{"id": "m", "owned_by": owner}]}).encode()
        self.head(200, "application/json", len(body))
        self.send(body)


class HostileServer:
    """Listens on 127.0.0.1; runs ``script`` for every connection until closed."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.stop = threading.Event()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.connections: list[Connection] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                sock, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._run, args=(sock,), daemon=True).start()

    def _run(self, sock: socket.socket) -> None:
        with sock:
            try:
                connection = Connection(sock, self.stop)
                self.connections.append(connection)
                self.script(connection)
            except OSError:
                pass

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.listener.close()
        self._thread.join(5)


def chunk(content: str | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """One chat.completion.chunk in OpenAI's shape."""
    delta: dict[str, Any] = {} if content is None else {"content": content}
    out: dict[str, Any] = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta,
                                                                           "finish_reason": finish}]}  # fmt: skip
    out.update(extra)
    return out


# -- the attacks of issue 25 -------------------------------------------------------------


def endless_models(c: Connection) -> None:
    """``/v1/models`` whose list never ends."""
    c.head(200)
    c.send(b'{"object": "list", "data": [')
    c.forever(b'{"id": "model", "owned_by": "x"}, ' * 2000)


def endless_line(c: Connection) -> None:
    """A reply whose first ``data:`` line never ends."""
    if c.method == "GET":
        return c.models()
    c.head(200, "text/event-stream")
    c.send(b'data: {"choices": [{"delta": {"content": "')
    c.forever(b"a" * 65536)
    return None


def trickle_line(c: Connection) -> None:
    """A ``data:`` line that never ends, sent slowly (100 KB/s): still growing when Stop comes."""
    if c.method == "GET":
        return c.models()
    c.head(200, "text/event-stream")
    c.send(b'data: {"choices": [{"delta": {"content": "')
    c.forever(b"a" * 1024, pause_s=0.01)
    return None


def endless_500(c: Connection) -> None:
    """An error status with a body that never ends."""
    c.head(500, "text/plain")
    c.forever(b"Internal error. " * 4096)


def keepalives(c: Connection) -> None:
    """One token, then keep-alive comments every 50 ms, for ever."""
    if c.method == "GET":
        return c.models()
    c.head(200, "text/event-stream")
    c.event(chunk("Hello"))
    c.forever(b": keep-alive\n\n", pause_s=0.05)
    return None


def too_many_tokens(c: Connection) -> None:
    """A server that ignores max_tokens and sends token after token."""
    if c.method == "GET":
        return c.models()
    c.head(200, "text/event-stream")
    while c.event(chunk(" word")):
        pass
    return None


def flood_events(c: Connection) -> None:
    """Fast, small, valid-looking events without end (comments and empty deltas)."""
    if c.method == "GET":
        return c.models()
    c.head(200, "text/event-stream")
    c.event(chunk("Hi"))
    c.forever((b"data: " + json.dumps(chunk(None)).encode() + b"\n\n") * 200)
    return None


def vllm_huge(c: Connection, spec: dict[str, Any]) -> None:
    """vLLM's usage chunk with a hostile ``speculative_decoding`` summary."""
    if c.method == "GET":
        return c.models("vllm")
    c.head(200, "text/event-stream")
    c.event(chunk("Hi", "stop"))
    c.event({"choices": [], "usage": {}, "metrics": {"speculative_decoding": spec}})
    c.send(b"data: [DONE]\n\n")
    return None


def events(items: list[Any], done: bool = True) -> Script:
    """A script that sends ``items`` as events (and ``[DONE]``), then closes."""

    def script(c: Connection) -> None:
        if c.method == "GET":
            return c.models()
        c.head(200, "text/event-stream")
        for item in items:
            c.event(item)
        if done:
            c.send(b"data: [DONE]\n\n")
        return None

    return script
