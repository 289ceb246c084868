"""An MCP server's process: started in its own process group, its stderr kept as a bounded ring, the group ended.

The SDK's ``stdio_client`` hides the process it starts and ends the process
tree only when the server outlives the grace after stdin closes; a server that
leaves on its own leaves its children running. On POSIX, :func:`server_streams`
therefore starts the server itself (a new session, so the server leads its own
group), bridges its stdout and stdin to the SDK's session streams, and on the
way out closes stdin, waits a grace, then sends SIGTERM to the whole group and
SIGKILL to what is left. On Windows it uses the SDK's ``stdio_client``, which
starts the server in a job object and ends the job (the whole tree) on close.

A server's stderr goes to a pipe that a thread drains into a
:class:`StderrRing`: only the last bytes are kept, in memory, whatever the
server writes and however fast; its last line is what a failed start or a
crash quotes. One JSON-RPC line from the server may take :data:`MAX_LINE`
bytes; past that, the connection is ended and :attr:`ServerPipes.cut_off`
says why (on POSIX; the SDK's own transport reads Windows servers).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
from anyio.abc import Process
from mcp import StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

from app.core.tools.mcp_config import McpServerConfig

STDERR_KEPT = 64 * 1024  # bytes of a server's stderr kept (the rest is read and dropped)
LAST_LINE = 300  # characters of the last stderr line quoted
MAX_LINE = 64 * 1024 * 1024  # bytes one JSON-RPC line from a server may take before the connection is ended
STDIN_GRACE = 2.0  # seconds a server has to leave after its stdin closes, before its group is signalled
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL to the group
_POLL = 0.02  # seconds between looks at a process or group while it ends
_READ = 64 * 1024  # bytes read from the stderr pipe at a time
_CUT_OFF = "it sent a message over {mib} MiB without a line end"

Streams = tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]]


class StderrRing:
    """The last ``capacity`` bytes written to a pipe, drained by a thread so the writer never blocks.

    :attr:`writer` is the pipe's write end, given to the server as its stderr;
    :meth:`close_writer` closes this process's copy once the server holds its
    own, so the ring sees the end when the server (and whatever inherited the
    pipe from it) has gone.
    """

    def __init__(self, capacity: int = STDERR_KEPT) -> None:
        self.capacity = capacity
        self.received = 0  # bytes that went through, kept or not
        self._kept = bytearray()
        self._lock = threading.Lock()
        self._ended = threading.Event()
        reader, self.writer = os.pipe()
        self._writer_open = True
        threading.Thread(target=self._drain, args=(reader,), name="tandem-mcp-stderr", daemon=True).start()

    def _drain(self, reader: int) -> None:
        try:
            while chunk := os.read(reader, _READ):
                with self._lock:
                    self.received += len(chunk)
                    self._kept += chunk
                    if len(self._kept) > self.capacity:
                        del self._kept[: len(self._kept) - self.capacity]
        except OSError:
            pass  # the pipe broke: what was kept stays
        finally:
            os.close(reader)
            self._ended.set()

    def close_writer(self) -> None:
        """Close this process's write end (once; the server keeps its own copy)."""
        with self._lock:
            if not self._writer_open:
                return
            self._writer_open = False
        os.close(self.writer)

    def wait_closed(self, timeout: float) -> bool:
        """Wait until every writer has closed the pipe (True) or ``timeout`` seconds pass (False)."""
        return self._ended.wait(timeout)

    def held(self) -> bytes:
        """The bytes kept: the last ``capacity`` written."""
        with self._lock:
            return bytes(self._kept)

    def last_line(self) -> str:
        """The last line with text in it, decoded tolerantly and cut to :data:`LAST_LINE` characters; "" for none."""
        lines = [line for line in self.held().decode("utf-8", "replace").splitlines() if line.strip()]
        return lines[-1].strip()[:LAST_LINE] if lines else ""


@dataclass
class ServerPipes:
    """What is kept of a server's output besides its messages: the ring of its stderr, and why it was cut off."""

    stderr: StderrRing = field(default_factory=StderrRing)
    cut_off: str = ""  # why Tandem ended the connection itself (a line past MAX_LINE); "" when it did not


@asynccontextmanager
async def server_streams(config: McpServerConfig, pipes: ServerPipes) -> AsyncIterator[Streams]:
    """The server of ``config`` started, its stderr into ``pipes.stderr``; the session's streams while it runs."""
    ring = pipes.stderr
    if sys.platform == "win32":  # pragma: no cover - the SDK's job object ends the tree there
        params = StdioServerParameters(command=config.command, args=list(config.args), env=dict(config.env) or None)
        errlog = os.fdopen(ring.writer, "wb", closefd=False)
        try:
            async with stdio_client(params, errlog=errlog) as streams:  # type: ignore[arg-type]  # a binary pipe works as the child's stderr
                errlog.close()
                ring.close_writer()
                yield streams
        finally:
            errlog.close()
            ring.close_writer()
        return
    try:
        process = await anyio.open_process(
            [config.command, *config.args],
            env=get_default_environment() | dict(config.env),
            stderr=ring.writer,
            start_new_session=True,  # the server leads its own group, so the group can be ended whole
        )
    finally:
        ring.close_writer()
    try:
        async with _bridged(process, pipes) as streams:
            yield streams
    finally:
        with anyio.CancelScope(shield=True):
            await end_group(process)


@asynccontextmanager
async def _bridged(process: Process, pipes: ServerPipes) -> AsyncIterator[Streams]:
    """The process's stdout read as JSON-RPC lines and its stdin written, as the SDK session's two streams."""
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    stdout, stdin = process.stdout, process.stdin
    assert stdout is not None and stdin is not None  # open_process makes both pipes by default

    async def read_stdout() -> None:
        pending = bytearray()  # the line being received
        async with to_session:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for chunk in stdout:
                    scan = len(pending)  # what came before has no line end: only the new chunk is searched
                    pending += chunk
                    line_start = 0
                    while (end := pending.find(b"\n", scan)) >= 0:
                        line = bytes(pending[line_start:end])
                        line_start = scan = end + 1
                        if line.strip():
                            await to_session.send(_message(line))
                    del pending[:line_start]
                    if len(pending) > MAX_LINE:
                        pipes.cut_off = _CUT_OFF.format(mib=MAX_LINE >> 20)
                        return  # closing the session's stream ends its calls; the group is ended on the way out

    async def write_stdin() -> None:
        async with from_session:
            try:
                async for outgoing in from_session:
                    text = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stdin.send(text.encode("utf-8") + b"\n")
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await to_session.aclose()  # the server stopped reading: the session sees the connection end

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        try:
            yield from_server, to_server
        finally:
            for stream in (from_server, to_server):
                await stream.aclose()
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await stdin.aclose()  # the MCP way to ask a stdio server to leave
            tasks.cancel_scope.cancel()


def _message(line: bytes) -> SessionMessage | Exception:
    """One line from the server as a message, or the error the session reports for it."""
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def end_group(process: Process) -> None:
    """End the server and everything in its process group: stdin closed, a grace, SIGTERM, then SIGKILL.

    The group is signalled even when the server has left by itself: what it
    started stays in its group (unless it made a session of its own) and
    would otherwise outlive the chat. Its stdout is read and dropped all the
    while, so a server blocked writing can leave, and the pipe is closed at
    its end.
    """
    drained = anyio.Event()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_drain, process, drained)
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            if process.stdin is not None:
                await process.stdin.aclose()
        await _until(lambda: process.returncode is not None, STDIN_GRACE)
        group = process.pid  # the leader's pid is the group's id (start_new_session); getpgid fails once reaped
        ended = not _signal_group(group, signal.SIGTERM) or await _until(lambda: not _group_alive(group), TERM_GRACE)
        if not ended:
            _signal_group(group, signal.SIGKILL)
        if not await _until(lambda: process.returncode is not None, TERM_GRACE):
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        with anyio.move_on_after(TERM_GRACE):  # one that left the group may hold the pipe open
            await drained.wait()
        tasks.cancel_scope.cancel()
    if process.stdout is not None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdout.aclose()


async def _drain(process: Process, drained: anyio.Event) -> None:
    """Read the server's stdout to its end, dropping it."""
    if process.stdout is not None:
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            while True:
                await process.stdout.receive()
    drained.set()


async def _until(done: Callable[[], bool], timeout: float) -> bool:
    """Poll ``done`` until it is true (True) or ``timeout`` seconds pass (False)."""
    with anyio.move_on_after(timeout):
        while not done():
            await anyio.sleep(_POLL)
        return True
    return False


def _signal_group(group: int, signum: int) -> bool:
    """Send ``signum`` to the group; False when it has gone already."""
    try:
        os.killpg(group, signum)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a member this user may not signal: the rest got it, and the wait goes on
    return True


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
