"""Reading a remote server's answer in bounded pieces: server-sent events, a whole body, an error's start.

The bytes are split into lines here rather than by httpx, whose line reader
keeps growing a line that never ends; each function stops at its cap with a
:class:`StreamLimitError` ("the server sent more than N ..."), which the
client turns into one error with the partial reply
(:mod:`app.engine.remote.client`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import httpx2

from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.errors import TandemError
from app.engine.remote.limits import RemoteLimits
from app.engine.remote.wire import StreamEvent, WireError, parse_event

# Said by the chat window when a reply breaks a cap (app/engine/remote/client.py keeps them as words).
_REPLY_TOO_LARGE = QT_TRANSLATE_NOOP("RemoteErrors", "the server sent more than {cap:,} bytes in one reply")
_NO_EVENT = QT_TRANSLATE_NOOP(
    "RemoteErrors", "the server sent no event for {seconds:g} s (only keep-alives or a trickle)"
)
_ANSWER_TOO_LARGE = QT_TRANSLATE_NOOP("RemoteErrors", "{url}: the server sent more than {cap:,} bytes in one answer")

ERROR_BODY_BYTES = 64 * 1024  # of an error answer, only the start is read: its text is shown in one line


class StreamLimitError(TandemError):
    """The server went past a cap or a time-out while Tandem read its answer (the text says which)."""


class EventStream:
    """The checked events of a server-sent event stream, until ``data: [DONE]`` (``done`` says whether it came).

    Bytes are split into lines here, not by httpx, so that no line (and so no
    event) grows past ``limits.max_event_bytes``; the reply's bytes in all are
    capped by ``limits.max_response_bytes``; keep-alive comments do not count
    as activity for the idle time-out; and the cancel and deadline flags are
    checked after every read, so Stop ends even a stream of comments at once.
    """

    def __init__(
        self,
        response: httpx2.Response,
        limits: RemoteLimits,
        stopping: Callable[[], bool],
        expired: Callable[[], bool],
    ) -> None:
        self._response = response
        self._limits = limits
        self._stopping = stopping
        self._expired = expired
        self.done = False

    def _lines(self) -> Iterator[bytes]:
        limits = self._limits
        buffer = bytearray()
        total = 0
        last_event = time.monotonic()
        for chunk in self._response.iter_raw():
            if self._stopping():
                return
            if self._expired():
                raise StreamLimitError("the deadline passed")  # generate() words it
            total += len(chunk)
            if total > limits.max_response_bytes:
                raise StreamLimitError(_REPLY_TOO_LARGE.fill(cap=limits.max_response_bytes))
            scan = len(buffer)  # what the buffer held has no newline: look only in the new bytes
            buffer += chunk
            start = 0
            while (end := buffer.find(b"\n", scan)) >= 0:
                line = bytes(buffer[start:end]).rstrip(b"\r")
                start = scan = end + 1
                if line.startswith(b"data:"):
                    last_event = time.monotonic()
                yield line
            del buffer[:start]
            if len(buffer) > limits.max_event_bytes:
                raise WireError(f"an event of more than {limits.max_event_bytes:,} bytes")
            if time.monotonic() - last_event > limits.idle_s:
                raise StreamLimitError(_NO_EVENT.fill(seconds=limits.idle_s))
        if buffer:
            yield bytes(buffer)

    def __iter__(self) -> Iterator[StreamEvent]:
        for line in self._lines():
            if not line.startswith(b"data:"):
                continue  # comments, event names, keep-alives
            data = line[5:].strip()
            if data == b"[DONE]":
                self.done = True
                return
            yield parse_event(data, self._limits.max_event_bytes)


def read_capped(response: httpx2.Response, cap: int, url: str) -> bytes:
    """The whole body, or RemoteError as soon as it passes ``cap`` bytes."""
    body = bytearray()
    for chunk in response.iter_raw():
        body += chunk
        if len(body) > cap:
            raise StreamLimitError(_ANSWER_TOO_LARGE.fill(url=url, cap=cap))
    return bytes(body)


def read_error_body(response: httpx2.Response) -> str:
    """The start of an error answer (the rest is not read: an error's text is one line)."""
    body = bytearray()
    for chunk in response.iter_raw():
        body += chunk
        if len(body) >= ERROR_BODY_BYTES:
            break
    return bytes(body[:ERROR_BODY_BYTES]).decode("utf-8", "replace")
