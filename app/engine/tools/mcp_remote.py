"""A remote MCP server's connection: streamable HTTP, else SSE where the server offers only that, reads bounded.

:func:`remote_session` opens the SDK's streamable-HTTP transport at the
configured ``url`` with the configured ``headers`` and runs the handshake.
When the server refuses that first request with 400, 404 or 405 (what a
server that speaks only the older SSE transport answers), it opens the SDK's
SSE transport at the same address instead. Either way the session is the
SDK's :class:`~mcp.ClientSession`, the one a local server's pipes feed, so
listing and calling tools is the same road for both.

Every response passes through :class:`ResponseBound`: one JSON body, or
one server-sent event, may take :data:`~app.engine.tools.mcp_process.MAX_LINE`
bytes (what one stdio line may take); past that the response is cut, the
call it answered ends, and :attr:`ServerPipes.cut_off
<app.engine.tools.mcp_process.ServerPipes.cut_off>` says why. Responses are
asked for uncompressed, so the bound is on what is held, not on what was
compressed.
"""

from __future__ import annotations

import http
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import TypeVar

import httpx2
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from app.core.tools.mcp_config import McpServerConfig
from app.engine.tools import mcp_process
from app.engine.tools.mcp_process import ServerPipes

CONNECT_TIMEOUT = 30.0  # seconds to connect, send a request or wait for a pooled connection
STREAM_READ_TIMEOUT = 300.0  # seconds an open response may stay silent (a call's own time-out is shorter)
SSE_ONLY = frozenset({400, 404, 405})  # how a server without streamable HTTP answers its first POST
E = TypeVar("E", bound=BaseException)

_CUT_OFF = "it sent a response over {mib} MiB"
_REFUSED = "the server answered HTTP {status} ({reason})"
_NO_ENDPOINT = "its SSE stream ended before it said where to send messages"
_EVENT_ENDS = (b"\n\n", b"\r\n\r\n", b"\r\r")  # what ends one server-sent event

# The SDK logs a broken response with its traceback at ERROR; with no handler of the application's
# own, Python would print that to the terminal. What went wrong reaches the user as the call's line.
logging.getLogger("mcp.client").addHandler(logging.NullHandler())


class RemoteRefusedError(Exception):
    """The server answered the handshake with an HTTP error (a wrong key: 401); the message is one line."""


def _reason(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "error"


def _leaf(exc: BaseException, kind: type[E]) -> E | None:
    """``exc`` when it is a ``kind``, else the first ``kind`` inside it (a task group's exceptions), else None."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := _leaf(inner, kind)) is not None:
                return found
    return None


class ResponseTooLargeError(httpx2.StreamError):
    """A response (or one of its events) past the bound; a stream error, so the SDK ends that request only."""


class _BoundedStream(httpx2.AsyncByteStream):
    """A response body that ends with :class:`ResponseTooLargeError` once one message in it passes ``limit`` bytes."""

    def __init__(self, inner: httpx2.AsyncByteStream, pipes: ServerPipes, limit: int, events: bool) -> None:
        self.inner = inner
        self.pipes = pipes
        self.limit = limit
        self.events = events  # an event stream: the count starts again after each event

    async def __aiter__(self) -> AsyncIterator[bytes]:
        held = 0
        async for chunk in self.inner:
            held += len(chunk)
            if self.events:
                ends = [chunk.rfind(end) + len(end) for end in _EVENT_ENDS if end in chunk]
                if ends:
                    held = len(chunk) - max(ends)
            if held > self.limit:
                self.pipes.cut_off = _CUT_OFF.format(mib=self.limit >> 20)
                raise ResponseTooLargeError(self.pipes.cut_off)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class ResponseBound:
    """The client's response hook: each body bounded, and the status the first POST was answered with noted.

    A hook rather than a transport of its own, so the client keeps its usual
    connection handling (the environment's proxy settings included).
    """

    def __init__(self, pipes: ServerPipes) -> None:
        self.pipes = pipes
        self.first_post: int | None = None  # the status the first POST was answered with

    async def __call__(self, response: httpx2.Response) -> None:
        if response.request.method == "POST" and self.first_post is None:
            self.first_post = response.status_code
        limit = mcp_process.MAX_LINE  # read at each response: the tests lower it
        events = response.headers.get("content-type", "").lower().startswith("text/event-stream")
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)  # an async client's responses stream asynchronously
        response.stream = _BoundedStream(stream, self.pipes, limit, events)


def _http_client(config: McpServerConfig, bound: ResponseBound) -> httpx2.AsyncClient:
    headers = {"Accept-Encoding": "identity", **config.headers}
    timeout = httpx2.Timeout(CONNECT_TIMEOUT, read=STREAM_READ_TIMEOUT)
    return httpx2.AsyncClient(headers=headers, timeout=timeout, event_hooks={"response": [bound]})


async def remote_session(config: McpServerConfig, pipes: ServerPipes, stack: AsyncExitStack) -> ClientSession:
    """A session with the server at ``config.url``, its handshake done; what it holds is closed by ``stack``.

    Streamable HTTP first; SSE when the server refused that first request
    with one of :data:`SSE_ONLY`. Any other failure is raised as it is.
    """
    pipes.stderr.close_writer()  # a remote server has no stderr: the ring's thread ends now
    bound = ResponseBound(pipes)
    attempt = AsyncExitStack()
    try:
        client = await attempt.enter_async_context(_http_client(config, bound))
        read, write = await attempt.enter_async_context(
            streamable_http_client(config.url, http_client=client, max_sse_event_size=None)
        )
        session = await attempt.enter_async_context(ClientSession(read, write))
        await session.initialize()
    except Exception as exc:
        await attempt.aclose()
        status = bound.first_post
        if status is not None and status >= 400 and status not in SSE_ONLY:
            raise RemoteRefusedError(_REFUSED.format(status=status, reason=_reason(status))) from exc
        if status not in SSE_ONLY:
            raise
    except BaseException:
        await attempt.aclose()
        raise
    else:
        stack.push_async_exit(attempt)
        return session
    return await _sse_session(config, pipes, stack)


async def _sse_session(config: McpServerConfig, pipes: ServerPipes, stack: AsyncExitStack) -> ClientSession:
    """A session over the SDK's SSE transport (the server refused streamable HTTP)."""

    def client(
        headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
    ) -> httpx2.AsyncClient:
        # The SDK asks for no headers and the time-outs given below: the configured client is that client.
        return _http_client(config, ResponseBound(pipes))

    try:
        read, write = await stack.enter_async_context(
            sse_client(
                config.url, timeout=CONNECT_TIMEOUT, sse_read_timeout=STREAM_READ_TIMEOUT, httpx_client_factory=client
            )
        )
    except Exception as exc:
        refused = _leaf(exc, httpx2.HTTPStatusError)
        if refused is not None:  # neither transport is offered there (a wrong address: 404)
            status = refused.response.status_code
            raise RemoteRefusedError(_REFUSED.format(status=status, reason=_reason(status))) from exc
        if _leaf(exc, RuntimeError) is not None:  # the SDK's reader left before the server named where messages go
            raise RemoteRefusedError(_NO_ENDPOINT) from exc
        raise
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session
