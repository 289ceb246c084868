"""An MCP server's process under the client's bounds: its stderr kept as a bounded ring, its whole group ended.

The hostile servers are real processes (``hostile_mcp_server.py``): one floods
stderr, one floods it and dies before the handshake, one forks a sleeping
grandchild that would outlive the chat, one answers a call with a message
that has no end.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from pathlib import Path

import pytest

from app.core.tools.mcp_config import McpServerConfig
from app.core.tools.records import ToolCall
from app.engine.tools.mcp_client import McpClient
from app.engine.tools.mcp_process import StderrRing
from tests.engine.tools.hostile_mcp_server import LAST_WORDS
from tests.engine.tools.processes import ended_within, still_running

HOSTILE = Path(__file__).with_name("hostile_mcp_server.py")
FLOOD_MB = 20  # what the flooding server writes on stderr before it serves


def hostile(name: str, mode: str, **env: str) -> McpServerConfig:
    return McpServerConfig(name, sys.executable, (str(HOSTILE), mode), env)


def largest_open_file() -> int:
    """The size of the largest regular file this process holds open (a server's stderr kept on disk shows here)."""
    sizes = [0]
    for fd in os.listdir("/proc/self/fd"):
        try:
            info = os.stat(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # closed since the listing
        if stat.S_ISREG(info.st_mode):
            sizes.append(info.st_size)
    return max(sizes)


def test_the_ring_keeps_only_its_last_bytes_and_names_the_last_line() -> None:
    ring = StderrRing(capacity=4096)
    writer = threading.Thread(target=lambda: _write_and_close(ring, (b"noise " * 200 + b"\n") * 2000 + b"last one\n"))
    writer.start()
    writer.join(60)
    assert not writer.is_alive() and ring.wait_closed(60)
    assert ring.received > 2_000_000  # all of it went through the pipe
    assert len(ring.held()) <= 4096
    assert ring.last_line() == "last one"


def test_a_partial_last_line_and_invalid_utf8_are_read_tolerantly() -> None:
    ring = StderrRing(capacity=64)
    _write_and_close(ring, b"first\n\xff\xfe broken \x1b[31m no newline")
    assert ring.wait_closed(60)
    assert ring.last_line() == "\ufffd\ufffd broken \x1b[31m no newline"


def _write_and_close(ring: StderrRing, data: bytes) -> None:
    with os.fdopen(ring.writer, "wb", closefd=False) as out:
        out.write(data)
    ring.close_writer()


@pytest.mark.subprocess  # the client starts the hostile MCP server
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads this process's open files from /proc")
def test_a_server_flooding_stderr_costs_no_disk_and_still_serves() -> None:
    with McpClient([hostile("noisy", "flood", TANDEM_TEST_FLOOD_MB=str(FLOOD_MB))], call_timeout=30) as client:
        assert [t.name for t in client.list_tools()] == ["add"]
        assert largest_open_file() < 1 << 20  # the 20 MiB it wrote are not kept in a file
        assert client.call(ToolCall("call_1", "add", '{"a": 1, "b": 2}')).text == "3"


@pytest.mark.subprocess  # the client starts the hostile MCP server
def test_a_server_that_floods_then_dies_is_one_line_with_its_last_words() -> None:
    with McpClient([hostile("dies", "flood-and-die", TANDEM_TEST_FLOOD_MB=str(FLOOD_MB))]) as client:
        assert client.list_tools() == ()
        [notice] = client.notices
    assert notice.startswith("MCP server 'dies' could not start: ")
    assert LAST_WORDS in notice and "\n" not in notice and len(notice) < 1000


@pytest.mark.subprocess  # the client starts the hostile MCP server, which starts a grandchild
@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
def test_a_grandchild_the_server_forks_ends_with_the_client(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    with McpClient([hostile("forks", "fork", TANDEM_TEST_PID_FILE=str(pid_file))]) as client:
        assert [t.name for t in client.list_tools()] == ["add"]
        grandchild = int(pid_file.read_text(encoding="utf-8"))
        assert still_running(grandchild)
    assert ended_within(grandchild, 60)  # a generous bound: ending the group takes a few seconds at most


@pytest.mark.subprocess  # the client starts the hostile MCP server
def test_a_message_past_the_line_bound_cuts_the_server_off_and_it_starts_again() -> None:
    with McpClient([hostile("endless", "endless")], call_timeout=60) as client:
        assert {t.name for t in client.list_tools()} == {"add", "huge"}
        result = client.call(ToolCall("call_1", "huge", "{}"))
        assert result.is_error and "\n" not in result.text
        why = "it sent a message over 64 MiB without a line end"
        assert result.text == f"MCP server 'endless' was cut off in the call to 'huge': {why}"
        assert client.call(ToolCall("call_2", "add", '{"a": 2, "b": 2}')).text == "4"
