"""The edge of ``tandem serve``: what a connection may cost, who may talk to the server, and hostile JSON.

:mod:`app.engine.server.http` routes requests; this module holds the rules it
applies before any route runs, each one an answer to an attack on the earlier
server (issue 25):

- :class:`EdgeLimits`: time-outs for the request head, the body and an idle
  keep-alive connection, a cap on live connections, the listen backlog, and
  the size, depth and number limits of a request body;
- :class:`DeadlineReader`: a socket reader with an overall deadline, so a
  client that sends one byte every few seconds (slowloris) or a Content-Length
  longer than its body cannot hold a thread past the deadline (a per-``recv``
  time-out would be reset by every byte);
- :class:`AccessPolicy`: the ``Host`` names the server answers to (DNS
  rebinding gives a hostile page a name of its own pointing at 127.0.0.1, and
  its requests carry that name) and the browser origins the user allowed (any
  web page can POST ``text/plain`` to 127.0.0.1; the ``Origin`` header is how a
  browser says a page sent it);
- :func:`parse_json_object`: a body parsed with bounded depth, number length
  and container count, and no lone surrogates, each refused with a 400.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import json
import math
import queue
import re
import selectors
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from app.engine.server.protocol import RequestError

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

MAX_BODY_BYTES = 16 * 2**20  # a long pasted document fits; a runaway upload does not
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True, slots=True)
class EdgeLimits:
    """What one client may cost the server; the defaults suit a desktop and a small LAN."""

    max_connections: int = 64  # threads at most; an engine serves one request at a time anyway
    header_timeout: float = 10.0  # request line and headers, from their first byte
    body_timeout: float = 60.0  # the whole body, once the headers are in (16 MiB at ~300 kB/s)
    idle_timeout: float = 15.0  # a keep-alive connection waiting for its next request
    write_timeout: float = 60.0  # a client that reads nothing for this long is dropped
    evict_after: float = 2.0  # a connection idle (or still sending its head) this long may make room for a new one
    max_body_bytes: int = MAX_BODY_BYTES
    max_json_depth: int = 64  # an OpenAI request nests about 5 deep
    max_number_chars: int = 40  # a 64-bit seed has 20 digits; a 5,000-digit one costs CPU to convert
    max_json_containers: int = 200_000  # each [] or {} costs ~60 bytes parsed; 16 MiB of "[]," would be ~400 MB
    prepare_workers: int = 2  # requests decoded, their documents read and tokenised at once (off the engine thread)
    prepare_waiting: int = 8  # requests waiting for a preparation thread; more get a 429
    prepare_timeout: float = 300.0  # one request's preparation, after which it is abandoned with a 503

    @property
    def backlog(self) -> int:
        """The listen queue: room for a burst of the cap's size twice over, so a burst gets answers, not resets."""
        return max(128, 2 * self.max_connections)


class DeadlineReader(io.RawIOBase):
    """A socket's bytes with one deadline over many reads (set ``deadline`` before each phase).

    The socket keeps ``write_timeout`` for writes; each read narrows it to
    what is left of the deadline and restores it, so a read past the deadline
    raises :class:`TimeoutError` however the bytes trickle in.
    """

    def __init__(self, sock: socket.socket, write_timeout: float) -> None:
        super().__init__()
        self._sock = sock
        self._write_timeout = write_timeout
        self.deadline = math.inf

    def readable(self) -> bool:
        """Always: this is the read side."""
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        """One ``recv`` into ``buffer``, bounded by the deadline."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the client took too long")
        self._sock.settimeout(min(left, 3600.0))
        try:
            return self._sock.recv_into(buffer)
        finally:
            self._sock.settimeout(self._write_timeout)


class ConnectionSlots:
    """The live connections, at most ``cap`` (and half of them per remote address); waiting ones make room.

    A connection waits from its start (or the end of its last response)
    until the head of its next request is in, and again while its request
    body arrives. Closing an idle one is what HTTP lets a server do at any
    time (a client reusing it retries on a new one), and one still sending
    its head or its body ``evict_after`` seconds after it began, under a full
    house, is slow or hostile (slowloris, or a body that stalls: without this,
    64 of them held every slot for the whole body deadline). A connection
    whose request is being served is never closed here: past the cap with
    none waiting long enough, the newcomer gets a 503 at once. One address on the
    network may hold at most half the slots, so a single host sending headers
    slowly cannot lock out the others (on loopback every client shares one
    address, so the share does not apply there).
    """

    def __init__(self, cap: int, evict_after: float) -> None:
        self._cap = cap
        self._share = max(1, cap // 2)
        self._evict_after = evict_after
        self._lock = threading.Lock()
        self._live: dict[socket.socket, str] = {}  # each connection's remote address
        self._idle: dict[socket.socket, float] = {}  # insertion order: the longest idle first

    def __len__(self) -> int:
        with self._lock:
            return len(self._live)

    def admit(self, sock: socket.socket, client: str = "") -> bool:
        """Take a slot for ``sock`` from ``client`` (closing an idle connection if need be); False when full."""
        victim: socket.socket | None = None
        with self._lock:
            shared = not _is_loopback_address(client)
            mine = [s for s, owner in self._live.items() if owner == client] if shared else []
            if len(mine) >= self._share:
                victim = self._evictable(set(mine))
                if victim is None:
                    return False
            elif len(self._live) >= self._cap:
                victim = self._evictable(None)
                if victim is None:
                    return False
            if victim is not None:
                del self._idle[victim]
                del self._live[victim]
            self._live[sock] = client
        if victim is not None:
            with contextlib.suppress(OSError):  # its thread, blocked reading, sees end-of-file; only it closes it
                victim.shutdown(socket.SHUT_RDWR)
        return True

    def _evictable(self, among: set[socket.socket] | None) -> socket.socket | None:
        """The longest-idle connection (of ``among``, if given) idle for ``evict_after`` at least."""
        now = time.monotonic()
        for sock, since in self._idle.items():
            if now - since < self._evict_after:
                return None  # the rest are younger still
            if among is None or sock in among:
                return sock
        return None

    def release(self, sock: socket.socket) -> None:
        """The connection has ended."""
        with self._lock:
            self._live.pop(sock, None)
            self._idle.pop(sock, None)

    def close_all(self) -> None:
        """End every live connection (the server stops): each thread sees end-of-file or a failed write."""
        with self._lock:
            live = list(self._live)
        for sock in live:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def set_idle(self, sock: socket.socket) -> None:
        """``sock`` waits for its next request: it may be closed for a newcomer."""
        with self._lock:
            if sock in self._live:
                self._idle.pop(sock, None)
                self._idle[sock] = time.monotonic()

    def set_reading(self, sock: socket.socket) -> None:
        """``sock``'s request body starts to arrive: until it is in, it may be closed for a newcomer."""
        self.set_idle(sock)

    def set_busy(self, sock: socket.socket) -> bool:
        """The head (or body) of a request on ``sock`` is in; False if it was closed for a newcomer meanwhile."""
        with self._lock:
            self._idle.pop(sock, None)
            return sock in self._live


class Lingerer:
    """Closes refused connections gently, all from one thread, so a refusal reaches the client.

    Closing a socket with request bytes still unread sends a reset, and a
    reset can arrive before the client has read the answer (the 44 resets of
    200 concurrent requests). So a refused connection is half-closed (the
    answer, then end-of-file), and what the client still sends is read and
    dropped for ``linger`` seconds before the close. At most ``limit`` wait at
    once; more are closed at once.
    """

    def __init__(self, linger: float = 0.5, limit: int = 512) -> None:
        self._linger = linger
        self._limit = limit
        self._incoming: queue.SimpleQueue[socket.socket] = queue.SimpleQueue()
        self._waiting = 0
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def close(self, sock: socket.socket) -> None:
        """Half-close ``sock`` now and close it for good within ``linger`` seconds."""
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            sock.close()
            return
        with self._lock:
            if self._waiting >= self._limit or self._stopped.is_set():
                sock.close()
                return
            self._waiting += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="tandem-server-linger", daemon=True)
                self._thread.start()
        self._incoming.put(sock)

    def stop(self) -> None:
        """Close everything still waiting and end the thread."""
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        deadlines: dict[socket.socket, float] = {}

        def drop(sock: socket.socket) -> None:
            selector.unregister(sock)
            del deadlines[sock]
            sock.close()
            with self._lock:
                self._waiting -= 1

        while not self._stopped.is_set() or deadlines:
            while True:
                try:
                    sock = self._incoming.get_nowait()
                except queue.Empty:
                    break
                sock.setblocking(False)
                selector.register(sock, selectors.EVENT_READ)
                deadlines[sock] = time.monotonic() + self._linger
            for key, _ in selector.select(0.05 if deadlines else 0.2):
                ready: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = ready.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    drop(ready)
            now = time.monotonic()
            for sock in [s for s, at in deadlines.items() if at <= now or self._stopped.is_set()]:
                drop(sock)
        selector.close()


def normalise_origin(text: str) -> str:
    """A browser origin as the ``Origin`` header spells it (``scheme://host[:port]``); ValueError otherwise."""
    value = text.strip().rstrip("/").lower()
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if (
        parts is None
        or not re.fullmatch(r"[a-z][a-z0-9+.-]*", parts.scheme or "")
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username is not None
        or "*" in value
    ):
        raise ValueError(
            f"{text.strip()!r} is not a web origin: write it as scheme://host[:port], e.g. http://localhost:3000"
        )
    del port  # parsed only to reject a bad one
    return value


def parse_origins(items: Iterable[str]) -> tuple[str, ...]:
    """Origins from the command line or the window's field (commas or spaces between them), normalised."""
    found: list[str] = []
    for item in items:
        for word in re.split(r"[\s,]+", item):
            if word and normalise_origin(word) not in found:
                found.append(normalise_origin(word))
    return tuple(found)


def _host_name(header: str) -> str | None:
    """The name in a ``Host`` header without its port (``[::1]:8080`` -> ``::1``); None when malformed."""
    try:
        parts = urlsplit("//" + header.strip())
        parts.port  # noqa: B018  # raises for a port that is not a number
    except ValueError:
        return None
    if parts.path or parts.query or parts.fragment or parts.username is not None or not parts.hostname:
        return None
    return parts.hostname.rstrip(".")


def _is_loopback_address(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address == ""  # a test's own call without an address


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class AccessPolicy:
    """Which ``Host`` names and browser origins the server answers (everything else gets a 403)."""

    hosts: frozenset[str]
    any_ip: bool  # a wildcard bind (0.0.0.0, ::) answers at every address this machine has
    origins: frozenset[str]

    @classmethod
    def for_bind(cls, host: str, bound: str, origins: Iterable[str] = ()) -> AccessPolicy:
        """The names that reach a server started with ``--host host`` and bound to the address ``bound``."""
        given = host.strip("[]").lower()
        names = {given, bound.lower()} - {""}
        wildcard = given in ("", "0.0.0.0", "::")
        loopback = given == "localhost" or (_is_ip(given) and ipaddress.ip_address(given).is_loopback)
        if loopback or wildcard:
            names |= LOOPBACK_NAMES
        if wildcard:  # its names on the LAN are the machine's; the API key guards this case anyway
            machine = socket.gethostname().lower()
            names |= {machine, machine + ".local"}
        return cls(frozenset(names), wildcard, frozenset(parse_origins(origins)))

    def refusal(self, host: list[str], origin: list[str], fetch_site: str | None, http10: bool) -> str | None:
        """Why a request with these headers is refused (None: it may go on).

        ``host`` and ``origin`` are every value of those headers (two Host
        headers are an attack on whatever proxy sits in front; refused).
        """
        if len(host) > 1 or len(origin) > 1:
            return "a request may carry one Host and at most one Origin header"
        if not host:
            if not http10:  # HTTP/1.1 requires it; a browser always sends it
                return "a Host header is required"
        else:
            name = _host_name(host[0])
            if name is None or not (name in self.hosts or (self.any_ip and _is_ip(name))):
                return (
                    f"this server does not answer to the host name {host[0].strip()[:100]!r} "
                    "(a web page may be trying to reach it through DNS rebinding)"
                )
        if origin:
            if origin[0].strip().rstrip("/").lower() not in self.origins:
                return (
                    f"requests from web pages at {origin[0].strip()[:100]!r} are not allowed; allow that origin with "
                    "serve --cors-origin (or in the window's Local server switch)"
                )
        elif (fetch_site or "").strip().lower() in ("cross-site", "same-site"):
            return "requests from other web sites are not allowed"
        return None


_JSON_CONSTANTS = frozenset({"NaN", "Infinity", "-Infinity"})
# One body parsed at a time: parsing is fast, and this bounds its memory whatever the number of connections.
_PARSE_LOCK = threading.Lock()


def parse_json_object(raw: bytes, limits: EdgeLimits) -> dict[str, Any]:
    """The JSON object of a request body within ``limits``; :class:`RequestError` (400) for anything else."""
    containers = raw.count(b"[") + raw.count(b"{")  # counts brackets inside strings too: an upper bound
    if containers > limits.max_json_containers:
        raise RequestError(f"the request body has more than {limits.max_json_containers} JSON arrays and objects")

    def number(text: str, convert: type[int] | type[float]) -> int | float:
        if len(text) > limits.max_number_chars:
            raise RequestError(f"a number in the request body is longer than {limits.max_number_chars} characters")
        return convert(text)

    def constant(text: str) -> None:
        raise RequestError(f"{text} is not JSON")

    try:
        text = raw.decode("utf-8")
        with _PARSE_LOCK:
            body = json.loads(
                text,
                parse_int=lambda s: number(s, int),
                parse_float=lambda s: number(s, float),
                parse_constant=constant,
            )
    except UnicodeDecodeError as exc:
        raise RequestError(f"the request body is not valid UTF-8: {exc}") from None
    except json.JSONDecodeError as exc:
        raise RequestError(f"the request body is not valid JSON: {exc}") from None
    except RecursionError:
        raise RequestError(f"the request body nests deeper than {limits.max_json_depth} levels") from None
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    _check_tree(body, limits.max_json_depth)
    return body


def _check_tree(root: Any, max_depth: int) -> None:
    """Refuse nesting deeper than ``max_depth`` and strings with lone surrogates (they cannot become UTF-8)."""
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value)
        elif isinstance(value, dict | list):
            if depth > max_depth:
                raise RequestError(f"the request body nests deeper than {max_depth} levels")
            if isinstance(value, dict):
                for key, item in value.items():
                    _check_text(key)
                    stack.append((item, depth + 1))
            else:
                stack.extend((item, depth + 1) for item in value)


def _check_text(text: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # "\ud800" escaped in JSON: valid JSON, no valid text
        raise RequestError("the request body has a lone UTF-16 surrogate (\\ud800-\\udfff) in a string") from None
