"""The HTTP side of ``tandem serve``: OpenAI's routes over the standard library's threading HTTP server.

Chat and text completions are written here; OpenAI's Responses API and
Anthropic's Messages API are read and written by their own modules
(:mod:`.responses_api`, :mod:`.messages_api`) and relayed by :meth:`_Handler._relay`.

Written on :mod:`http.server` rather than FastAPI/uvicorn on purpose: the
frozen bundle gains no dependency, every byte of the event stream is ours
(one SSE event per verify step, ``data: [DONE]`` at the end), and the model
fits threads naturally: each connection has a thread that hands its body to
the preparation pool (:mod:`app.engine.server.preparing`: decoding, documents,
schema, tokenising), queues the prepared request for the one engine thread
(:mod:`app.engine.server.scheduler`), which only runs the model, and then
relays that request's events. While it waits it watches its socket, so a
client that disconnects cancels its generation before the next verify step.

A thread per connection is only safe under the edge rules (issue 25) that
:mod:`app.engine.server.connection` applies before any route here runs: a
cap on live connections, deadlines on every read, the ``Host`` and ``Origin``
checks, the API key before the body, bounded JSON, and every failure
answered in JSON. One log line per request goes to ``log`` when one is given.
"""

from __future__ import annotations

import ipaddress
import json
import re
import select
import socket
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError
from http import HTTPStatus
from typing import Any

import app
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.logprobs import TokenLogprobs
from app.core.decoding.stats import GenerationStats
from app.core.errors import TandemError
from app.core.reply.token_record import TokenRecord
from app.engine.server.connection import EdgeHandler, EdgeServer, RequestLog
from app.engine.server.edge import MAX_BODY_BYTES, EdgeLimits, parse_json_object
from app.engine.server.messages_api import MessagesWire, messages_error, parse_messages_request
from app.engine.server.preparing import Cancelled, PreparerFullError, RequestPreparer, busy_error
from app.engine.server.protocol import (
    CompletionRequest,
    RequestError,
    ResponseShape,
    merged_choices,
    parse_chat_request,
    parse_completion_request,
)
from app.engine.server.reasoning_wire import ReasoningStream
from app.engine.server.responses_api import ResponsesWire, parse_responses_request
from app.engine.server.scheduler import Engine, PromptAccepted, QueueFullError, Ticket
from app.engine.server.tool_calls import ToolRelay
from app.engine.server.wire import ServerEvent, Wire

__all__ = ["MAX_BODY_BYTES", "EdgeLimits", "RunningServer", "TandemHTTPServer", "check_binding", "is_loopback"]

_TOKEN_LIST = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*")


def api_path(raw: str) -> str:
    """The route a request path names, its query and trailing slash dropped: ``/chat/completions`` is ``/v1/...``.

    llama-server answers every OpenAI route without the ``/v1`` prefix too, and
    some clients are configured with the bare host as their base URL.
    """
    path = raw.split("?", 1)[0].rstrip("/")
    if path == "/health" or path == "/v1" or path.startswith("/v1/"):
        return path
    return "/v1" + path


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_binding(host: str, api_key: str | None) -> None:
    """Refuse to listen beyond this machine without an API key."""
    if not is_loopback(host) and not api_key:
        raise TandemError(
            f"refusing to listen on {host} without --api-key: anyone who can reach this address could use "
            "the models; give a key (--api-key-file FILE, TANDEM_API_KEY or --api-key KEY), or keep the default "
            "--host 127.0.0.1"
        )


class TandemHTTPServer(EdgeServer):
    """One listening socket, a thread per admitted connection, one engine behind them (:class:`.scheduler.Engine`)."""

    def __init__(
        self,
        address: tuple[str, int],
        engine: Engine,
        api_key: str | None = None,
        cors_origins: Iterable[str] = (),
        limits: EdgeLimits | None = None,
        log: RequestLog | None = None,
    ) -> None:
        self.engine = engine
        self.requests_served = 0
        chosen = limits or EdgeLimits()
        # Before the socket binds: a failed bind calls server_close, which closes this too.
        self.preparer = RequestPreparer(chosen.prepare_workers, chosen.prepare_waiting)
        super().__init__(address, _Handler, api_key, cors_origins, chosen, log)

    def server_close(self) -> None:
        """Close as the edge does, and the preparation pool (see :class:`.preparing.RequestPreparer`)."""
        super().server_close()
        self.preparer.close()

    @property
    def url(self) -> str:
        """The base URL clients use (``.../v1``)."""
        host, port = self.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{name}]" if ":" in name else name
        return f"http://{shown}:{port}/v1"


class _Handler(EdgeHandler):
    """The routes (OpenAI's, and Anthropic's Messages) and the relay of a request's events."""

    server_version = f"Tandem/{app.version()}"
    server: TandemHTTPServer
    _streaming = False  # the current response's event stream has begun (its status line is sent)

    def route(self, method: str) -> Callable[[], None] | None:
        """GET, POST and the CORS preflight."""
        return {"GET": self._get, "POST": self._post, "OPTIONS": self._options}.get(method)

    # -- routing ----------------------------------------------------------------------------

    def _get(self) -> None:
        """``/v1/models`` and a health check (each also without ``/v1``, see :func:`api_path`)."""
        self._reject_body_on_get()
        path = api_path(self.path)
        if path in ("/health", "/v1/health"):
            self._json(HTTPStatus.OK, {"status": "ok"})
            return
        if not self._authorised():
            return
        if path == "/v1/models":
            self._json(HTTPStatus.OK, self._models())
        else:
            self._error(RequestError(f"no route {self.path[:200]}", status=404, kind="not_found_error"))

    def _post(self) -> None:
        """The generation endpoints (each also without ``/v1``): key, content type, length, then the body."""
        path = api_path(self.path)
        newer = _NEWER_ROUTES.get(path)
        if path not in ("/v1/chat/completions", "/v1/completions") and newer is None:
            self._reject(RequestError(f"no route {self.path[:200]}", status=404, kind="not_found_error"))
            return
        if not self._authorised():
            return
        media = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            shown = media[:60] or "none"
            self._reject(RequestError(f"the body must be sent as Content-Type: application/json (got {shown})", 415))
            return
        raw = self._read_body()  # its own refusals (411, 413) close the connection
        if newer is not None:
            read: Reader = newer[0]
        else:
            read = parse_chat_request if path == "/v1/chat/completions" else _completion_reader
        request = self._prepared(raw, read)
        if request is None:
            return
        try:
            ticket = self.server.engine.submit(request)
        except QueueFullError as exc:
            self._error(RequestError(str(exc), status=429, kind="rate_limit_error"), {"Retry-After": exc.retry_after})
            return
        if request.count_only:
            self._count(ticket)
        elif newer is not None:
            engine = self.server.engine
            wire = newer[1](request, request.model or engine.model_name, engine.config.drafter.value)
            self._relay(request, ticket, wire)
        else:
            self._generate(request, ticket)

    def _error(self, error: RequestError, headers: dict[str, Any] | None = None) -> None:
        """A refusal in the shape of the route's API (Anthropic's on its routes, OpenAI's elsewhere)."""
        path = api_path(getattr(self, "path", ""))
        body = messages_error(error) if path.startswith("/v1/messages") else error.body()
        self._json(error.status, body, headers)

    def _prepared(self, raw: bytes, read: Reader) -> CompletionRequest | None:
        """The request ``raw`` holds, decoded and read on the preparation pool; None once answered or abandoned.

        The wait watches the socket: a client that leaves abandons its
        preparation, as does one past ``prepare_timeout`` (a 503).
        """
        server = self.server
        limits, engine = server.limits, server.engine

        def work(cancel: threading.Event) -> CompletionRequest:
            body = parse_json_object(raw, limits)
            request = read(body, cancel.is_set)
            if cancel.is_set():
                raise Cancelled
            engine.prepare(request, cancel)
            if cancel.is_set():
                raise Cancelled
            return request

        try:
            preparation = server.preparer.submit(work)
        except PreparerFullError:
            self._error(busy_error(), {"Retry-After": 1})
            return None
        deadline = time.monotonic() + limits.prepare_timeout
        while not preparation.wait(0.05):
            if self._client_gone():
                server.preparer.abandon(preparation)
                self.close_connection = True
                return None
            if time.monotonic() > deadline:
                server.preparer.abandon(preparation)
                shown = f"{limits.prepare_timeout:g}"
                self._error(RequestError(f"reading the request took longer than {shown} s", 503, kind="server_error"))
                return None
        try:
            value = preparation.result()
        except RequestError as exc:  # the body was read whole: the connection may go on
            self._error(exc)
            return None
        except (Cancelled, CancelledError):
            self.close_connection = True
            return None
        assert isinstance(value, CompletionRequest)
        return value

    def _options(self) -> None:
        """CORS preflight: reached only with no Origin or an allowed one (the policy refused the rest)."""
        self._reject_body_on_get()
        headers: dict[str, Any] = {"Allow": "GET, POST, OPTIONS", "Content-Length": 0}
        if self._cors is not None:
            asked = self.headers.get("Access-Control-Request-Headers", "").strip()
            headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
            headers["Access-Control-Allow-Headers"] = (
                asked if asked and len(asked) < 2000 and _TOKEN_LIST.fullmatch(asked) else "authorization, content-type"
            )
            headers["Access-Control-Max-Age"] = 600
        self.send_response(HTTPStatus.NO_CONTENT)
        for name, value in headers.items():
            self.send_header(name, str(value))
        self.end_headers()

    # -- generation -------------------------------------------------------------------------

    def _generate(self, request: CompletionRequest, ticket: Ticket) -> None:
        """Relay the request's choices, one after another: ``n`` > 1 queues the next one when one ends.

        The choices share one response (its id, one stream); each has its own
        index, and the usage counts the prompt once and every choice's tokens.
        """
        engine = self.server.engine
        shape = ResponseShape(request.chat, request.model or engine.model_name, top_logprobs=request.top_logprobs)
        self._streaming = False
        self._tokens = 0
        replies: list[dict[str, Any]] = []
        runs: list[GenerationStats] = []
        for index in range(request.n):
            if index:
                try:
                    ticket = engine.submit(request.for_choice(index))
                except QueueFullError as exc:
                    self._fail(RequestError(str(exc), status=429, kind="rate_limit_error"), exc.retry_after)
                    return
            outcome = self._relay_choice(request, ticket, shape.for_choice(index))
            if outcome is None:
                return
            finished, reply = outcome
            runs.append(finished.stats)
            if reply is not None:
                replies.append(reply)
        self.server.requests_served += 1
        if not request.stream:
            self._json(HTTPStatus.OK, merged_choices(replies, runs))
            return
        if request.include_usage:
            self._send_event(shape.usage_chunk(runs))
        self._send_raw(b"data: [DONE]\n\n")

    def _relay_choice(
        self, request: CompletionRequest, ticket: Ticket, shape: ResponseShape
    ) -> tuple[FinishedEvent, dict[str, Any] | None] | None:
        """One choice's events to the client: streamed, or its whole reply returned; None once it failed or left."""
        engine = self.server.engine
        tools = request.tools
        relay: ToolRelay | None = None
        drafter = engine.config.drafter.value
        tokens: list[Any] = []
        logprobs: list[TokenLogprobs] = []
        drafted = accepted = 0
        for item in ticket.events():
            if item is None:
                if self._client_gone():
                    ticket.cancel.set()
                    return None
                continue
            if isinstance(item, RequestError):
                self._fail(item)
                return None
            if isinstance(item, PromptAccepted):
                if tools is not None and tools.reads_calls and item.tool_dialect is not None:
                    relay = ToolRelay(tools, shape, item.tool_dialect)
                if request.chat and request.reasoning:
                    shape.reasoning = ReasoningStream(item.reasoning_inside)
                if request.stream and not self._streaming:
                    self._start_stream()
                    self._streaming = True
                continue
            if isinstance(item, StepEvent):
                if self._client_gone():  # checked every step too: while steps flow, the wait above never idles
                    ticket.cancel.set()
                    return None
                tokens.extend(item.tokens)
                logprobs.extend(item.logprobs)
                self._tokens = (self._tokens or 0) + len(item.tokens)
                if request.stream:
                    first = len(tokens) == len(item.tokens)
                    chunks = relay.step_chunks(item, first) if relay is not None else [shape.chunk(item, first=first)]
                    chunk = chunks[0]
                    drafted += item.drafted
                    accepted += item.accepted
                    if request.timings_per_token:  # running counts, as llama-server sends them
                        chunk["timings"] = {
                            "predicted_n": len(tokens),
                            "draft_n": drafted,
                            "draft_n_accepted": accepted,
                        }
                    if not all(self._send_event(c) for c in chunks):
                        ticket.cancel.set()
                        return None
                continue
            assert isinstance(item, FinishedEvent)
            if not request.stream:
                if relay is not None:
                    reply = relay.complete(item.text, tokens, item.reason, item.stats, drafter)
                else:
                    reply = shape.complete(item.text, tokens, item.reason, item.stats, drafter)
                reply["choices"][0]["logprobs"] = shape.logprobs(logprobs)
                return item, reply
            finals = relay.final_chunks(item.reason, item.stats, drafter) if relay is not None else []
            for final in finals or [shape.final_chunk(item.reason, item.stats, drafter)]:
                self._send_event(final)
            return item, None
        return None

    def _fail(self, error: RequestError, retry_after: int | None = None) -> None:
        """Answer ``error``: its status before the stream began, an error event and the stream's end after."""
        if self._streaming:  # too late for a status code
            self._send_event(error.body())
            self._send_raw(b"data: [DONE]\n\n")
        else:
            self._error(error, {"Retry-After": retry_after} if retry_after is not None else None)

    def _relay(self, request: CompletionRequest, ticket: Ticket, wire: Wire) -> None:
        """A request's events in the words of ``wire``'s API (:mod:`app.engine.server.wire`)."""
        started = False
        tokens: list[TokenRecord] = []
        steps: list[StepEvent] = []  # kept whole only where log-probabilities were asked (they ride on steps)
        self._tokens = 0
        for item in ticket.events():
            # Checked every step too: while steps flow, the wait never idles.
            if (item is None or isinstance(item, StepEvent)) and self._client_gone():
                ticket.cancel.set()
                return
            if item is None:
                continue
            if isinstance(item, RequestError):
                if started:  # too late for a status code: the API's own error events end the stream
                    self._send_named(wire.failed(item))
                else:
                    self._json(item.status, wire.error_body(item))
                return
            if isinstance(item, PromptAccepted):
                opening = wire.accepted(item.n_tokens, item.reasoning_inside, item.tool_dialect)
                if request.stream:
                    self._start_stream()
                    started = True
                    if not self._send_named(opening):
                        ticket.cancel.set()
                        return
                continue
            if isinstance(item, StepEvent):
                tokens.extend(item.tokens)
                self._tokens = len(tokens)
                if item.logprobs and not request.stream:
                    steps.append(item)
                if request.stream and not self._send_named(wire.step(item)):
                    ticket.cancel.set()
                    return
                continue
            self.server.requests_served += 1
            if request.stream:
                self._send_named(wire.closing(item))
            else:
                self._json(HTTPStatus.OK, wire.whole(item, tokens, steps))
            return

    def _count(self, ticket: Ticket) -> None:
        """``/v1/messages/count_tokens``: the prompt's length once the engine fitted it."""
        for item in ticket.events():
            if item is None:
                if self._client_gone():
                    ticket.cancel.set()
                    return
                continue
            if isinstance(item, RequestError):
                self._error(item)
                return
            if isinstance(item, PromptAccepted):
                self._json(HTTPStatus.OK, {"input_tokens": item.n_tokens})
                return

    def _send_named(self, events: Iterable[ServerEvent]) -> bool:
        return all(self._send_raw(event.encode()) for event in events)

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
        """Write and flush; False when the client has gone (or read nothing for the write time-out)."""
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:  # BrokenPipe, ConnectionReset, TimeoutError: the client went away mid-stream
            self.close_connection = True
            return False
        return True

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


Reader = Callable[[dict[str, Any], Callable[[], bool]], CompletionRequest]
WireMaker = Callable[[CompletionRequest, str, str], Wire]


def _completion_reader(body: dict[str, Any], cancelled: Callable[[], bool]) -> CompletionRequest:
    return parse_completion_request(body)


def _count_reader(body: dict[str, Any], cancelled: Callable[[], bool]) -> CompletionRequest:
    return parse_messages_request(body, cancelled, counting=True)


# The newer APIs: each route's reader of the body and maker of the response's wire.
_NEWER_ROUTES: dict[str, tuple[Reader, WireMaker]] = {
    "/v1/responses": (parse_responses_request, ResponsesWire),
    "/v1/messages": (parse_messages_request, MessagesWire),
    "/v1/messages/count_tokens": (_count_reader, MessagesWire),
}


class RunningServer:
    """A server listening on a thread: start it, read ``url``, stop it (tests and the window use this)."""

    def __init__(
        self,
        engine: Engine,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        *,
        cors_origins: Iterable[str] = (),
        limits: EdgeLimits | None = None,
        log: RequestLog | None = None,
    ) -> None:
        check_binding(host, api_key)
        self.engine = engine
        self.httpd = TandemHTTPServer((host, port), engine, api_key, cors_origins, limits, log)
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
