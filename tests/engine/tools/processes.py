"""Steps the MCP process tests share: whether a pid still runs, and waiting for it to end.

Not a test module: the engine's and the CLI's MCP tests import it.
"""

from __future__ import annotations

import os
import signal
import time

import psutil


def still_running(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie no one has reaped yet counts as ended)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def ended_within(pid: int, seconds: float) -> bool:
    """Wait up to ``seconds`` for ``pid`` to end; whether it did. One still running then is killed (never left)."""
    deadline = time.monotonic() + seconds
    while still_running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not still_running(pid):
        return True
    os.kill(pid, signal.SIGKILL)
    return False
