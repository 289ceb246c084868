"""Shared steps for the CLI tests: run the command line in this process or in a new one, check one-line errors.

Not a test module. :func:`run_cli` runs ``app.cli.main`` in the test's own
process, with its own standard streams, environment and working folder, and
gives back what a shell would see (exit code, standard output, standard
error) without starting an interpreter and importing the app again.
:func:`run_cli_process` runs ``python main.py`` in a new process, for the
tests whose point is the process itself: a signal, a broken pipe, what
llama.cpp prints to the real file descriptors, a missing library, a
traceback the interpreter prints.
"""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
# What a command may change in the process and must find again afterwards.
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Stream(io.TextIOWrapper):
    """A text stream over bytes, as a pipe is: not a terminal, with a ``buffer`` for binary writes."""

    def __init__(self, data: bytes = b"") -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8", errors="strict", newline=None, write_through=True)

    def text(self) -> str:
        self.flush()
        raw = self.buffer
        assert isinstance(raw, io.BytesIO)
        # As subprocess's text mode reads a pipe: universal newlines (a lone "\r" reads as "\n" too).
        return raw.getvalue().decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


@contextmanager
def _process_state(extra_env: dict[str, str]) -> Iterator[None]:
    """Environment, working folder, signal handlers and logging as they were, whatever the command changed."""
    environ = dict(os.environ)
    cwd = Path.cwd()
    handlers = {number: signal.getsignal(number) for number in _SIGNALS}
    root = logging.getLogger()
    log_handlers, log_level = list(root.handlers), root.level
    os.environ.update(extra_env)
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)
        for number, handler in handlers.items():
            signal.signal(number, handler)
        root.handlers[:] = log_handlers
        root.setLevel(log_level)


def run_cli(
    *args: str, data: Path | None = None, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``main.py ARGS`` in this process; ``data`` as the data folder, ``env`` added to the environment."""
    from app.cli import main

    extra = {**({"TANDEM_DATA_DIR": str(data)} if data is not None else {}), **(env or {})}
    stdin, stdout, stderr = _Stream((input or "").encode()), _Stream(), _Stream()
    saved = sys.stdin, sys.stdout, sys.stderr
    with _process_state(extra):
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                stderr.write(exc.code + "\n")
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
    return subprocess.CompletedProcess(["main.py", *args], code, stdout.text(), stderr.text())


def run_cli_process(
    *args: str, data: Path | None = None, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``python main.py ARGS`` in a new process from the checkout; ``data`` as the data folder, ``env`` added."""
    extra = {**({"TANDEM_DATA_DIR": str(data)} if data is not None else {}), **(env or {})}
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **extra},
        check=False,
    )


def one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    """The command failed as Tandem's errors do: exit 2, nothing on stdout, one ``error:`` line, no traceback."""
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr


def pair_args(pair: tuple[Path, Path]) -> list[str]:
    """The options that name a (target, draft) pair for ``tandem chat``, with a small context and two threads."""
    return ["--target", str(pair[0]), "--draft", str(pair[1]), "--ctx", "512", "--threads", "2"]
