"""The HTTP side of ``tandem serve``: OpenAI's routes over the standard library's threading HTTP server.

Written on :mod:`http.server` rather than FastAPI/uvicorn on purpose: the
frozen bundle gains no dependency, every byte of the event stream is ours
(one SSE event per verify step, ``data: [DONE]`` at the end), and the model
fits threads naturally: each connection has a thread that queues its request
for the one engine thread (:mod:`app.engine.server.scheduler`) and then
relays that request's events. While it waits it watches its socket, so a
client that disconnects cancels its generation before the next verify step.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import select
import socket
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import app
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.errors import TandemError
from app.engine.server.protocol import (
    CompletionRequest,
    RequestError,
    ResponseShape,
    parse_body,
    parse_chat_request,
    parse_completion_request,
)
from app.engine.server.scheduler import Engine, PromptAccepted, QueueFullError, Ticket

MAX_BODY_BYTES = 16 * 2**20  # a long pasted document fits; a runaway upload does not


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_binding(host: str, api_key: str | None) -> None:
    """Refuse to listen beyond this machine without an API key."""
    if not is_loopback(host) and not api_key:
        raise TandemError(
            f"refusing to listen on {host} without --api-key: anyone who can reach this address could use "
            "the models; pass --api-key KEY, or keep the default --host 127.0.0.1"
        )


class TandemHTTPServer(ThreadingHTTPServer):
    """One listening socket, a thread per connection, one engine behind them (:class:`.scheduler.Engine`)."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], engine: Engine, api_key: str | None = None) -> None:
        self.engine = engine
        self.api_key = api_key
        self.requests_served = 0
        super().__init__(address, _Handler)

    @property
    def url(self) -> str:
        """The base URL clients use (``.../v1``)."""
        host, port = self.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{name}]" if ":" in name else name
        return f"http://{shown}:{port}/v1"


class _Handler(BaseHTTPRequestHandler):
    """Routes one connection's requests."""

    protocol_version = "HTTP/1.1"
    server_version = f"Tandem/{app.version()}"
    server: TandemHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the CLI prints its own one line per request."""

    # -- routing ----------------------------------------------------------------------------

    def do_GET(self) -> None:
        """``/v1/models`` and a health check."""
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/health", "/v1/health"):
            self._json(HTTPStatus.OK, {"status": "ok"})
            return
        if not self._authorised():
            return
        if path == "/v1/models":
            self._json(HTTPStatus.OK, self._models())
        else:
            self._error(RequestError(f"no route {self.path}", status=404, kind="not_found_error"))

    def do_POST(self) -> None:
        """The two generation endpoints."""
        path = self.path.split("?", 1)[0].rstrip("/")
        if path not in ("/v1/chat/completions", "/v1/completions"):
            self._discard_body()
            self._error(RequestError(f"no route {self.path}", status=404, kind="not_found_error"))
            return
        if not self._authorised():
            self._discard_body()
            return
        try:
            body = parse_body(self._read_body())
            request = parse_chat_request(body) if path == "/v1/chat/completions" else parse_completion_request(body)
        except RequestError as exc:
            self._error(exc)
            return
        try:
            ticket = self.server.engine.submit(request)
        except QueueFullError as exc:
            self._error(RequestError(str(exc), status=429, kind="rate_limit_error"), {"Retry-After": exc.retry_after})
            return
        self._generate(request, ticket)

    # -- generation -------------------------------------------------------------------------

    def _generate(self, request: CompletionRequest, ticket: Ticket) -> None:
        engine = self.server.engine
        shape = ResponseShape(request.chat, request.model or engine.model_name)
        drafter = engine.config.drafter.value
        started = False
        tokens: list[Any] = []
        drafted = accepted = 0
        for item in ticket.events():
            if item is None:
                if self._client_gone():
                    ticket.cancel.set()
                    return
                continue
            if isinstance(item, RequestError):
                if started:  # too late for a status code: end the stream with an error event
                    self._send_event(item.body())
                    self._send_raw(b"data: [DONE]\n\n")
                else:
                    self._error(item)
                return
            if isinstance(item, PromptAccepted):
                if request.stream:
                    self._start_stream()
                    started = True
                continue
            if isinstance(item, StepEvent):
                if self._client_gone():  # checked every step too: while steps flow, the wait above never idles
                    ticket.cancel.set()
                    return
                if request.stream:
                    chunk = shape.chunk(item, first=not tokens)
                    tokens.extend(item.tokens)
                    drafted += item.drafted
                    accepted += item.accepted
                    if request.timings_per_token:  # running counts, as llama-server sends them
                        chunk["timings"] = {
                            "predicted_n": len(tokens),
                            "draft_n": drafted,
                            "draft_n_accepted": accepted,
                        }
                    if not self._send_event(chunk):
                        ticket.cancel.set()
                        return
                else:
                    tokens.extend(item.tokens)
                continue
            assert isinstance(item, FinishedEvent)
            self.server.requests_served += 1
            if not request.stream:
                self._json(HTTPStatus.OK, shape.complete(item.text, tokens, item.reason, item.stats, drafter))
                return
            self._send_event(shape.final_chunk(item.reason, item.stats, drafter))
            if request.include_usage:
                self._send_event(shape.usage_chunk(item.stats))
            self._send_raw(b"data: [DONE]\n\n")
            return

    def _client_gone(self) -> bool:
        """True when the peer closed its end (readable with nothing to read)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _start_stream(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the stream ends when the connection does
        self.end_headers()
        self.close_connection = True

    def _send_event(self, payload: dict[str, Any]) -> bool:
        return self._send_raw(b"data: " + json.dumps(payload, ensure_ascii=False).encode("utf-8") + b"\n\n")

    def _send_raw(self, data: bytes) -> bool:
        """Write and flush; False when the client has gone."""
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:  # BrokenPipe, ConnectionReset: the client went away mid-stream
            return False
        return True

    # -- plumbing ---------------------------------------------------------------------------

    def _authorised(self) -> bool:
        key = self.server.api_key
        if not key:
            return True
        given = self.headers.get("Authorization", "")
        token = given[7:] if given.lower().startswith("bearer ") else ""
        if hmac.compare_digest(token.encode(), key.encode()):
            return True
        self._error(RequestError("invalid or missing API key", status=401, kind="authentication_error"))
        return False

    def _read_body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length is None:
            raise RequestError("a request body with Content-Length is required", status=411)
        try:
            n = int(length)
        except ValueError:
            raise RequestError("Content-Length is not a number") from None
        if n < 0 or n > MAX_BODY_BYTES:
            self.close_connection = True
            raise RequestError(f"the request body must be at most {MAX_BODY_BYTES // 2**20} MiB", status=413)
        return self.rfile.read(n)

    def _discard_body(self) -> None:
        try:
            n = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            n = 0
        if 0 < n <= MAX_BODY_BYTES:
            self.rfile.read(n)
        elif n:
            self.close_connection = True

    def _models(self) -> dict[str, Any]:
        engine = self.server.engine
        config = engine.config
        try:
            created = int(config.target.stat().st_mtime)
        except OSError:
            created = int(time.time())
        return {
            "object": "list",
            "data": [
                {
                    "id": engine.model_name,
                    "object": "model",
                    "created": created,
                    "owned_by": "tandem",
                    "tandem": {
                        "target": config.target.name,
                        "draft": config.draft.name if config.draft is not None else None,
                        "drafter": config.drafter.value,
                        "draft_length": engine.draft_length if engine.draft_length is not None else "adaptive",
                        "n_ctx": config.n_ctx,
                    },
                }
            ],
        }

    def _json(self, status: HTTPStatus | int, payload: dict[str, Any], headers: dict[str, Any] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
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


class RunningServer:
    """A server listening on a thread: start it, read ``url``, stop it (tests and the window use this)."""

    def __init__(self, engine: Engine, host: str = "127.0.0.1", port: int = 0, api_key: str | None = None) -> None:
        check_binding(host, api_key)
        self.engine = engine
        self.httpd = TandemHTTPServer((host, port), engine, api_key)
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="tandem-server-http", daemon=True)

    @property
    def url(self) -> str:
        """The base URL, ``http://host:port/v1``."""
        return self.httpd.url

    def start(self) -> RunningServer:
        """Begin accepting connections (the engine must already be started)."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, then free the engine."""
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=10)
        self.engine.close()

    def __enter__(self) -> RunningServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
