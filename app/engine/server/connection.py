"""One connection of ``tandem serve`` under the edge rules: a capped thread, deadlines, checks, JSON errors.

:class:`EdgeServer` admits a connection only into a free slot (closing an
idle one for it, else a 503 written from the accepting thread without reading
anything). :class:`EdgeHandler` runs each request of a connection: the idle
wait, the head read under its deadline, HTTP/1.0 and 1.1 only, the ``Host``
and ``Origin`` policy, then the route a subclass names, with the key checked
before the body, the body read under its deadline, every failure answered
in JSON (a bug too: a 500, never a closed socket) and one log line per
request. The rules themselves are in :mod:`app.engine.server.edge`; the
routes are :mod:`app.engine.server.http`'s.
"""

from __future__ import annotations

import contextlib
import hmac
import io
import json
import socket
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from app.engine.server.edge import AccessPolicy, ConnectionSlots, DeadlineReader, EdgeLimits, Lingerer
from app.engine.server.protocol import RequestError

RequestLog = Callable[[str], None]
MAX_REQUEST_LINE = 8192
DISCARD_LIMIT = 64 * 2**10  # a refused request's body up to this is read and dropped (keep-alive); more closes
_BUSY_BODY = json.dumps(
    RequestError("too many connections; try again in a moment", 503, kind="server_error").body()
).encode()
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
    b"Connection: close\r\nContent-Length: " + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY
)


class EdgeServer(ThreadingHTTPServer):
    """A threading HTTP server with a connection cap, a sized backlog, a host/origin policy and a request log."""

    daemon_threads = True
    block_on_close = False

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[EdgeHandler],
        api_key: str | None = None,
        cors_origins: Iterable[str] = (),
        limits: EdgeLimits | None = None,
        log: RequestLog | None = None,
    ) -> None:
        self.api_key = api_key
        self.limits = limits or EdgeLimits()
        self.log = log
        self.refused_busy = 0  # connections answered 503 for the cap
        self.slots = ConnectionSlots(self.limits.max_connections, self.limits.evict_after)
        self._lingerer = Lingerer()
        self.request_queue_size = self.limits.backlog
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, handler)
        self.policy = AccessPolicy.for_bind(address[0], str(self.server_address[0]), cors_origins)

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread for the connection if there is a slot; else a 503 from this thread, without reading."""
        if not self.slots.admit(request, str(client_address[0])):
            self.refused_busy += 1
            self._refuse_busy(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread could start: the slot is free again
            self.slots.release(request)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """The connection's thread; its slot is released however it ends."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release(request)

    def _refuse_busy(self, sock: socket.socket) -> None:
        try:
            sock.setblocking(False)  # the accepting thread never waits on a client
            sock.send(_BUSY)  # a fresh socket's send buffer holds it whole
        except OSError:
            pass
        self._lingerer.close(sock)

    def server_close(self) -> None:
        """Close the listening socket, end the live connections and the refused ones still lingering."""
        super().server_close()
        self.slots.close_all()
        self._lingerer.stop()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A traceback for bugs only: a client that vanished is not one."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


class EdgeHandler(BaseHTTPRequestHandler):
    """One connection's requests under the edge rules; a subclass gives the routes (:meth:`route`)."""

    protocol_version = "HTTP/1.1"
    server: EdgeServer

    def route(self, method: str) -> Callable[[], None] | None:
        """The handler of ``method`` (None: 405); called after the host and origin checks passed."""
        return None

    def setup(self) -> None:
        """The socket's write time-out and a reader with deadlines in place of the plain file."""
        super().setup()
        self.connection.settimeout(self.server.limits.write_timeout)  # for writes; reads set their own
        plain = self.rfile
        self._reader = DeadlineReader(self.connection, self.server.limits.write_timeout)
        self._buffered = io.BufferedReader(self._reader, 64 * 2**10)
        self.rfile = self._buffered
        plain.close()  # else the socket's close would wait for this file's reference
        self._linger = False

    def finish(self) -> None:
        """After a refusal that left body bytes unread: half-close and drain a little, so no RST eats the answer."""
        if self._linger:
            try:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_WR)
                self._reader.deadline = time.monotonic() + 1.0
                drained = 0
                while drained < 2**20 and (chunk := self._reader.read(DISCARD_LIMIT)):
                    drained += len(chunk)
            except (OSError, ValueError):
                pass
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the log line per request is ours (see :meth:`_log_request`)."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """Remember the status for the log line (called by ``send_response``)."""
        self._status = int(code) if str(code).isdigit() else 0

    # -- one request, with its deadlines and its errors ------------------------------------

    def handle_one_request(self) -> None:
        """Wait (idle time-out) for a request, read it (head time-out), route it, answer every failure in JSON."""
        limits = self.server.limits
        self._status = 0
        self._tokens: int | None = None
        self._cors: str | None = None
        self._expect_continue = False
        self._answered = False
        self.command = ""
        self.server.slots.set_idle(self.connection)
        self._reader.deadline = time.monotonic() + limits.idle_timeout
        try:
            waiting = self._buffered.peek(1)
        except (OSError, ValueError):  # idle too long (TimeoutError is an OSError), reset, or closed for a newcomer
            waiting = b""
        if not waiting:
            self.close_connection = True
            return
        started = time.monotonic()
        self._reader.deadline = started + limits.header_timeout
        try:
            self._one_request()
            self.wfile.flush()
        except TimeoutError:
            self._fail(RequestError("the request did not arrive in time", 408, kind="timeout_error"))
        except RequestError as exc:
            self._fail(exc)
        except OSError:  # the client went away
            self.close_connection = True
        except Exception as exc:  # a bug: the traceback for us, a JSON 500 for the client instead of a dead socket
            traceback.print_exc(file=sys.stderr)
            self._fail(RequestError(f"internal server error: {type(exc).__name__}", 500, kind="server_error"))
        finally:
            self._log_request(started)

    def _one_request(self) -> None:
        self.raw_requestline = self.rfile.readline(MAX_REQUEST_LINE + 1)
        self.request_version = "HTTP/1.1"  # how an early refusal is answered
        self.requestline = str(self.raw_requestline[:200], "iso-8859-1").rstrip("\r\n")
        if len(self.raw_requestline) > MAX_REQUEST_LINE:
            raise RequestError("the request line is too long", 414)
        words = self.raw_requestline.split()
        if len(words) == 2:  # HTTP/0.9: no headers, no status line; nothing here speaks it
            raise RequestError("HTTP/0.9 requests are not supported", 400)
        if len(words) == 3 and words[2].startswith(b"HTTP/") and words[2] not in (b"HTTP/1.0", b"HTTP/1.1"):
            raise RequestError(f"{words[2].decode('ascii', 'replace')[:20]} is not supported: use HTTP/1.1", 505)
        if not self.parse_request():  # answered already (send_error)
            return
        if not self.server.slots.set_busy(self.connection):  # closed for a newcomer while its head trickled in
            self.close_connection = True
            return
        route = self.route(self.command)
        if route is None:
            self._reject(
                RequestError(f"method {self.command[:20]} is not allowed", 405), {"Allow": "GET, POST, OPTIONS"}
            )
            return
        problem = self.server.policy.refusal(
            self.headers.get_all("Host") or [],
            self.headers.get_all("Origin") or [],
            self.headers.get("Sec-Fetch-Site"),
            self.request_version == "HTTP/1.0",
        )
        if problem is not None:
            self._reject(RequestError(problem, 403, kind="permission_error"))
            return
        self._cors = self.headers.get("Origin", "").strip().rstrip("/") or None
        route()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's own refusals (bad request line, header too long...) as JSON."""
        self._fail(RequestError(message or HTTPStatus(code).phrase, code))

    def handle_expect_100(self) -> bool:
        """Say "100 Continue" only once the request passed its checks (see :meth:`_read_body`)."""
        self._expect_continue = True
        return True

    def send_response(self, code: int, message: str | None = None) -> None:
        """Every response, with the CORS headers for an allowed origin."""
        self._answered = True
        super().send_response(code, message)
        if self._cors is not None:
            self.send_header("Access-Control-Allow-Origin", self._cors)
            self.send_header("Vary", "Origin")

    def _fail(self, error: RequestError) -> None:
        """Answer ``error`` if nothing was sent yet, and end the connection either way."""
        self.close_connection = True
        if not self._answered:
            self._error(error, {"Connection": "close"})

    def _log_request(self, started: float) -> None:
        log = self.server.log
        if log is None or not (self.command or self._status):
            return
        path = ascii(self.path[:200] if self.command else "-")[1:-1]  # escapes: the log shows no control bytes
        tokens = "-" if self._tokens is None else str(self._tokens)
        ms = (time.monotonic() - started) * 1000
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        log(f"{stamp} {self.client_address[0]} {self.command or '-'} {path} {self._status} {tokens} tokens {ms:.0f} ms")

    # -- plumbing ---------------------------------------------------------------------------

    def _authorised(self) -> bool:
        """The key, checked before any body byte is read (a refused body is dropped or the connection closed)."""
        key = self.server.api_key
        if not key:
            return True
        given = self.headers.get("Authorization", "")
        # Anthropic's clients send the key as x-api-key: the same key, checked the same way.
        token = given[7:] if given.lower().startswith("bearer ") else self.headers.get("x-api-key", "")
        if hmac.compare_digest(token.encode("utf-8", "replace"), key.encode()):
            return True
        self._reject(RequestError("invalid or missing API key", status=401, kind="authentication_error"))
        return False

    def _content_length(self) -> int:
        """The declared body length; chunked bodies, duplicates and oversize refused (and the connection closed)."""
        lengths = self.headers.get_all("Content-Length") or []
        if self.headers.get("Transfer-Encoding") is not None:
            self.close_connection = True
            raise RequestError("chunked request bodies are not supported: send Content-Length", status=411)
        if not lengths:
            self.close_connection = True
            raise RequestError("a request body with Content-Length is required", status=411)
        text = lengths[0].strip()
        if len(lengths) > 1 or not (text.isascii() and text.isdigit()) or len(text) > 12:
            self.close_connection = True
            raise RequestError("Content-Length is not a number")
        return int(text)

    def _read_body(self) -> bytes:
        limit = self.server.limits.max_body_bytes
        n = self._content_length()
        if n > limit:
            self.close_connection = True
            self._linger = True
            raise RequestError(f"the request body must be at most {limit // 2**20} MiB", status=413)
        if self._expect_continue:
            self.send_response_only(HTTPStatus.CONTINUE)
            self.end_headers()
            self.wfile.flush()
        self._reader.deadline = time.monotonic() + self.server.limits.body_timeout
        self.server.slots.set_reading(self.connection)  # a stalled body may make room for a newcomer
        data = self.rfile.read(n)
        if len(data) < n:  # the client closed before sending all it announced (or was closed for a newcomer)
            raise ConnectionAbortedError("the request body ended early")
        if not self.server.slots.set_busy(self.connection):
            raise ConnectionAbortedError("the connection was closed for a newcomer as its body ended")
        return data

    def _reject(self, error: RequestError, headers: dict[str, Any] | None = None) -> None:
        """Refuse without reading what the request carries: a small body is dropped, a large one closes."""
        self._skip_body()
        self._error(error, {**(headers or {}), **({"Connection": "close"} if self.close_connection else {})})

    def _reject_body_on_get(self) -> None:
        if self.headers.get("Content-Length") or self.headers.get("Transfer-Encoding"):
            self._skip_body()

    def _skip_body(self) -> None:
        if getattr(self, "headers", None) is None or self._answered:
            return
        if self.headers.get("Transfer-Encoding") is not None:
            self.close_connection = self._linger = True
            return
        text = (self.headers.get("Content-Length") or "0").strip()
        n = int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else -1
        if 0 <= n <= DISCARD_LIMIT and not self._expect_continue:
            self._reader.deadline = time.monotonic() + self.server.limits.body_timeout
            if len(self.rfile.read(n)) == n:
                return
        self.close_connection = True
        self._linger = n != 0

    def _json(self, status: HTTPStatus | int, payload: dict[str, Any], headers: dict[str, Any] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8", "backslashreplace")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, str(value))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client left before the answer
            self.close_connection = True

    def _error(self, error: RequestError, headers: dict[str, Any] | None = None) -> None:
        self._json(error.status, error.body(), headers)
