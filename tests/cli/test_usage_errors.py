"""Usage mistakes on the command line are one line, like every other error (not argparse's usage block)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.store.conversations import ChatStore
from tests.cli.helpers import one_line_error, run_cli
from tests.paths import REPO_ROOT


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("chat", "--bogus"), ("unrecognized arguments: --bogus", "--help")),
        (("chats", "frob"), ("tandem chats", "invalid choice: 'frob'", "tandem chats --help")),
        (("bench", "--repeats", "x"), ("tandem bench", "--repeats", "'x'")),
        (("serve", "--port"), ("tandem serve", "--port", "expected one argument")),
        (("bench", "--temperatures", "5"), ("--temperatures", "from 0 to 2", "5.0")),
        (("preflight", "--temperature", "-1"), ("temperature", "from 0 to 2")),
    ],
)
def test_a_usage_mistake_is_one_line_naming_it(args: tuple[str, ...], words: tuple[str, ...]) -> None:
    one_line_error(run_cli(*args), *words)


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path: Path) -> None:
    # `tandem chats show 1 | head -1`: the pipe closes while Tandem still writes (far more than a pipe buffers).
    store = ChatStore(tmp_path / "conversations.sqlite3")
    cid = store.create_conversation("long")
    store.add_message(cid, "user", "line\n" * 100_000)
    store.close()
    child = subprocess.Popen(
        [sys.executable, str(REPO_ROOT / "main.py"), "chats", "show", str(cid)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TANDEM_DATA_DIR": str(tmp_path)},
        cwd=REPO_ROOT,
    )
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline()
    child.stdout.close()
    stderr = child.stderr.read().decode()
    child.wait(timeout=60)
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
