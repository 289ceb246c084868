"""MCP servers run for the model: started (stdio) or reached (HTTP) with the official SDK, tools listed and called.

The SDK is asyncio; Tandem's engine is synchronous. :class:`McpClient` owns a
private event loop on its own thread, and every server's connection lives in
one task on that loop (the SDK's context managers must be entered and left in
the same task). The sync side hands coroutines to the loop and waits with a
bound, so no server can hold the caller forever.

Every way a call can go wrong ends that call only, as a :class:`ToolResult`
with ``is_error`` and one clear line: a tool the servers do not offer,
arguments that are not a JSON object, a server that does not answer within
the time-out, one whose process ends during the call (the next call starts
it again), a result the SDK cannot read, or the tool's own error. The text of
a result is data for the model: it goes back as a tool message's content.

Each tool is marked when it may change things (``writes``): by the server's
annotations (``readOnlyHint``, ``destructiveHint``) where it gives them, else
by the verbs in its name (:mod:`app.core.tools.writes`).

A server's command is passed to ``before_start`` before it first runs (the CLI
prints it, the window asks, both with its environment, secrets masked); a
server it declines offers no tools. Each local server runs in its own process
group, ended whole when the client closes or drops it, and only the last 64 KiB
of its stderr are kept (:mod:`app.engine.tools.mcp_process`). A remote server
(a ``url``) is reached over HTTP instead (:mod:`app.engine.tools.mcp_remote`),
its answers bounded as a local server's lines are, and used through the same
SDK session; where its headers give no ``Authorization``, the key
``saved_key`` finds for its address (the key store the window keeps it in)
is sent. Error lines never quote a secret-looking value of the configuration
(:func:`~app.core.tools.mcp_config.masked`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mcp import ClientSession
from mcp.types import CallToolResult, TextContent, Tool
from pydantic import ValidationError

from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.core.tools.mcp_config import McpServerConfig, masked
from app.core.tools.records import NAME_PATTERN, ToolCall, ToolResult, ToolSpec
from app.core.tools.writes import tool_writes
from app.engine.tools.mcp_process import ServerPipes, server_streams
from app.engine.tools.mcp_remote import remote_session

DEFAULT_CALL_TIMEOUT = 60.0  # seconds a tool may take before its call ends with an error line
DEFAULT_START_TIMEOUT = 60.0  # seconds a server may take to start and answer the handshake
_MARGIN = 5.0  # the sync side waits this much longer than the SDK's own time-out, as a backstop
_ONE_LINE = 300  # characters of an error quoted in a line
_STDERR_SETTLE = 5.0  # seconds a failed start waits for the rest of the server's stderr (its group has ended)

T = TypeVar("T")

# The window's Tools tab says these (app/ui/chat/tools/flow.py); a start failure that ends a tool
# call goes to the model as its English ``str``.
_NOT_STARTED_IN_TIME = QT_TRANSLATE_NOOP(
    "McpClient", "MCP server {name} did not start within {seconds:g} s ({command})"
)
_COULD_NOT_START = QT_TRANSLATE_NOOP("McpClient", "MCP server {name} could not start: {error}")
_LAST_WORDS = QT_TRANSLATE_NOOP("McpClient", "{error} (its last words: {tail})")
_SAME_NAME = QT_TRANSLATE_NOOP(
    "McpClient", "MCP tool {tool} of server {name} left out: server {owner} offers a tool of that name"
)
_BAD_NAME = QT_TRANSLATE_NOOP("McpClient", "MCP tool {tool} of server {name} left out: not a valid function name")


class McpStartError(Exception):
    """A server that could not be started or did not finish the handshake; the message is one line."""


@dataclass
class _Running:
    """One started server: its session, the task holding its connection, and what tells that task to end."""

    config: McpServerConfig
    session: ClientSession
    stop: asyncio.Event
    task: asyncio.Task[None]
    pipes: ServerPipes
    tools: tuple[ToolSpec, ...] = ()

    @property
    def alive(self) -> bool:
        return not self.task.done()

    def last_stderr_line(self) -> str:
        """The server's last line on stderr (its own word on why it ended), "" when it wrote none."""
        return self.pipes.stderr.last_line()


@dataclass
class McpClient:
    """The configured MCP servers: started on first use, their tools offered, calls run with a time-out."""

    configs: Sequence[McpServerConfig]
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    start_timeout: float = DEFAULT_START_TIMEOUT
    before_start: Callable[[McpServerConfig], bool] = lambda _config: True
    # The key saved for a remote server's address (the key store), sent where its headers give no Authorization.
    saved_key: Callable[[str], str | None] = lambda _url: None
    notices: list[str] = field(default_factory=list)  # one line each: servers that failed, tools left out
    notice_words: list[str | Words] = field(default_factory=list)  # the same notices, for the window
    _loop: asyncio.AbstractEventLoop = field(init=False)
    _thread: threading.Thread = field(init=False)
    _running: dict[str, _Running] = field(default_factory=dict, init=False)
    _shown: set[str] = field(default_factory=set, init=False)  # servers whose command went to before_start
    _declined: set[str] = field(default_factory=set, init=False)
    _owner: dict[str, str] = field(default_factory=dict, init=False)  # tool name -> server name
    _closed: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        names = [c.name for c in self.configs]
        if len(set(names)) != len(names):
            raise ValueError("two MCP servers have the same name")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tandem-mcp", daemon=True)
        self._thread.start()

    def __enter__(self) -> McpClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _notice(self, words: str | Words) -> None:
        self.notices.append(str(words))  # the English line (the CLI, the tests)
        self.notice_words.append(words)

    def list_tools(self) -> tuple[ToolSpec, ...]:
        """Every tool of every server (started now if not yet), in configuration order; a name only once.

        A server that cannot start, or is declined, adds a notice and offers nothing;
        a tool whose name breaks the function-name rule, or repeats another server's, is left out with a notice.
        """
        offered: list[ToolSpec] = []
        self._owner.clear()
        for config in self.configs:
            try:
                running = self._ensure(config)
            except McpStartError as exc:
                self._notice(_said(exc))
                continue
            if running is None:
                continue
            for spec in running.tools:
                if spec.name in self._owner:
                    self._notice(
                        _SAME_NAME.fill(
                            tool=repr(spec.name), name=repr(config.name), owner=repr(self._owner[spec.name])
                        )
                    )
                    continue
                self._owner[spec.name] = config.name
                offered.append(spec)
        return tuple(offered)

    def call(self, call: ToolCall) -> ToolResult:
        """Run ``call`` on the server offering its tool; every failure is an error result with one line."""
        server = self._owner.get(call.name)
        if server is None:
            return ToolResult(call.id, f"no MCP server offers a tool named {call.name!r}", is_error=True)
        try:
            arguments: Any = json.loads(call.arguments)
        except ValueError:
            arguments = None
        if not isinstance(arguments, dict):
            return ToolResult(call.id, f"the arguments of {call.name!r} are not a JSON object", is_error=True)
        config = next(c for c in self.configs if c.name == server)
        try:
            running = self._ensure(config)
        except McpStartError as exc:
            return ToolResult(call.id, str(exc), is_error=True)
        if running is None:
            return ToolResult(call.id, f"MCP server {server!r} was not allowed to start", is_error=True)
        try:
            result = self._wait(
                running.session.call_tool(call.name, arguments, read_timeout_seconds=self.call_timeout),
                self.call_timeout + _MARGIN,
            )
        except TimeoutError:
            self._drop(running)  # it may be stuck in the call: the next call starts it afresh
            return ToolResult(call.id, self._timed_out(call.name, server), is_error=True)
        except ValidationError as exc:  # the SDK read the answer but it is not a CallToolResult
            fields = ", ".join(sorted({str(e["loc"][0]) for e in exc.errors() if e["loc"]}))
            line = f"MCP tool {call.name!r} (server {server!r}) returned a malformed result (bad fields: {fields})"
            return ToolResult(call.id, line, is_error=True)
        except Exception as exc:  # the SDK's errors, a closed connection
            line, ended = self._failed(call.name, running, exc)
            if ended:
                self._drop(running)
            return ToolResult(call.id, line, is_error=True)
        return ToolResult(call.id, result_text(result), is_error=bool(result.is_error))

    def close(self) -> None:
        """Stop every started server (stdin closed, then its whole process group ended) and the loop's thread."""
        if self._closed:
            return
        self._closed = True
        for running in list(self._running.values()):
            with contextlib.suppress(Exception):
                self._wait(self._stop(running), self.start_timeout)
        self._running.clear()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=self.start_timeout)
        if not self._thread.is_alive():
            self._loop.close()

    def _ensure(self, config: McpServerConfig) -> _Running | None:
        """The running server of ``config``, started now if it is not (None: ``before_start`` declined it)."""
        running = self._running.get(config.name)
        if running is not None and running.alive:
            return running
        if config.name in self._declined:
            return None
        if config.name not in self._shown:
            self._shown.add(config.name)
            if not self.before_start(config):
                self._declined.add(config.name)
                return None
        try:
            if config.needs_key:
                config = config.with_key(self.saved_key(config.url) or "")
            running = self._wait(self._start(config), self.start_timeout + _MARGIN)
        except McpStartError:
            raise
        except TimeoutError as exc:
            raise McpStartError(
                _NOT_STARTED_IN_TIME.fill(
                    name=repr(config.name), seconds=self.start_timeout, command=config.command_line
                )
            ) from exc
        except Exception as exc:
            raise McpStartError(
                _COULD_NOT_START.fill(name=repr(config.name), error=masked(_one_line(exc), config))
            ) from exc
        self._running[config.name] = running
        return running

    async def _start(self, config: McpServerConfig) -> _Running:
        ready: asyncio.Future[_Running] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        pipes = ServerPipes()
        task = asyncio.create_task(self._hold(config, ready, stop, pipes), name=f"mcp-{config.name}")
        try:
            return await asyncio.wait_for(asyncio.shield(ready), self.start_timeout)
        except TimeoutError:
            ready.cancel()  # no one waits for it now: the task must not leave an exception in it
            stop.set()
            task.cancel()
            if pipes.cut_off:  # what it sent was past the bound, and the SDK waited on for the rest
                raise McpStartError(_COULD_NOT_START.fill(name=repr(config.name), error=pipes.cut_off)) from None
            raise

    async def _hold(
        self, config: McpServerConfig, ready: asyncio.Future[_Running], stop: asyncio.Event, pipes: ServerPipes
    ) -> None:
        """The connection's whole life in one task: start, hand the session over, wait for the stop, shut down."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                session = await open_session(config, pipes, stack)
                listed = await session.list_tools()
                specs = [self._spec(config, t) for t in listed.tools]
                kept = tuple(spec for spec in specs if spec is not None)
                task = asyncio.current_task()
                assert task is not None  # always inside the task _start made
                ready.set_result(_Running(config, session, stop, task, pipes, kept))
                await stop.wait()
        except BaseException as exc:
            if not ready.done():
                if not isinstance(exc, asyncio.CancelledError):  # its group has ended: the pipe closes soon
                    await asyncio.get_running_loop().run_in_executor(None, pipes.stderr.wait_closed, _STDERR_SETTLE)
                tail = pipes.stderr.last_line()
                error = pipes.cut_off or masked(_one_line(exc), config)
                detail: str | Words = _LAST_WORDS.fill(error=error, tail=tail) if tail else error
                ready.set_exception(McpStartError(_COULD_NOT_START.fill(name=repr(config.name), error=detail)))
            if isinstance(exc, asyncio.CancelledError):
                raise

    def _spec(self, config: McpServerConfig, tool: Tool) -> ToolSpec | None:
        """The tool as offered, marked when it may change things (the server's hints, else its name)."""
        if not NAME_PATTERN.fullmatch(tool.name):
            self._notice(_BAD_NAME.fill(tool=repr(tool.name), name=repr(config.name)))
            return None
        hints = tool.annotations
        return ToolSpec(
            name=tool.name,
            description=tool.description or "",
            parameters=dict(tool.input_schema) if isinstance(tool.input_schema, dict) else {},
            writes=tool_writes(
                tool.name,
                read_only=hints.read_only_hint if hints is not None else None,
                destructive=hints.destructive_hint if hints is not None else None,
            ),
        )

    async def _stop(self, running: _Running) -> None:
        running.stop.set()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(running.task, self.start_timeout)

    def _wait(self, coroutine: Coroutine[Any, Any, T], timeout: float) -> T:
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    def _drop(self, running: _Running) -> None:
        """Shut a server down that crashed or hung, so that its next use starts it again."""
        if self._running.get(running.config.name) is running:
            del self._running[running.config.name]
        with contextlib.suppress(Exception):
            self._wait(self._stop(running), self.start_timeout + _MARGIN)

    def _timed_out(self, tool: str, server: str) -> str:
        return f"MCP tool {tool!r} (server {server!r}) did not answer within {self.call_timeout:g} s"

    def _failed(self, tool: str, running: _Running, exc: BaseException) -> tuple[str, bool]:
        """The call's error line, and whether the server is gone (or stuck) and must be started again."""
        message = masked(_one_line(exc), running.config)
        if running.pipes.cut_off:
            name, why = running.config.name, running.pipes.cut_off
            return f"MCP server {name!r} was cut off in the call to {tool!r}: {why}", True
        if "timed out" in message.lower():
            return self._timed_out(tool, running.config.name), True
        if "failed to parse" in message.lower():  # the SDK's word for an answer that is not JSON-RPC
            return f"MCP tool {tool!r} (server {running.config.name!r}) answered with a malformed message", False
        if running.config.remote and (not running.alive or "connection closed" in message.lower()):
            return f"the connection to MCP server {running.config.name!r} ended during the call to {tool!r}", True
        if not running.alive or "connection closed" in message.lower():
            tail = running.last_stderr_line()
            said = f"; its last words: {tail}" if tail else ""
            return f"MCP server {running.config.name!r} ended during the call to {tool!r}{said}", True
        return f"MCP tool {tool!r} (server {running.config.name!r}) failed: {message}", False


async def open_session(config: McpServerConfig, pipes: ServerPipes, stack: contextlib.AsyncExitStack) -> ClientSession:
    """A session with the server of ``config``, its handshake done: a local one started, a remote one reached.

    Whatever it holds (the process and its pipes, or the HTTP connection) is closed by ``stack``.
    """
    if config.remote:
        return await remote_session(config, pipes, stack)
    read, write = await stack.enter_async_context(server_streams(config, pipes))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


def result_text(result: CallToolResult) -> str:
    """A result as one text for the model: its text parts joined, other parts named, else its structured content."""
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        else:
            kind = getattr(block, "type", type(block).__name__)
            mime = getattr(block, "mime_type", None)
            parts.append(f"[{kind} content{', ' + mime if mime else ''}, not shown to the model]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _one_line(exc.exceptions[0])
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:_ONE_LINE]


def _said(exc: BaseException) -> str | Words:
    """A start failure's sentence, kept translatable for the window when it was made with words."""
    sentence = exc.args[0] if len(exc.args) == 1 else None
    return sentence if isinstance(sentence, Words) else str(exc)
