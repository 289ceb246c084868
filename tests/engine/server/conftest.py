"""Fixtures shared by the server tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine


@pytest.fixture(scope="module")
def demo_server(demo_pair: tuple[Path, Path]) -> Iterator[RunningServer]:
    """``serve`` on the Qwen2.5-Coder demo pair (its template has a tool format), draft length 3, one thread."""
    target, draft = demo_pair
    engine = ServerEngine(PairConfig(target, draft, DrafterKind.MODEL, n_ctx=2048, n_threads=1), draft_length=3)
    engine.start()
    running = RunningServer(engine).start()
    yield running
    running.stop()
