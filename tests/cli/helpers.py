"""Shared steps for the CLI tests: run ``main.py`` in a subprocess and check one-line errors.

Not a test module. Every CLI test runs the real entry point as a user would,
in its own process, so exit codes, standard output and standard error are
what a shell sees.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


def run_cli(
    *args: str, data: Path | None = None, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``python main.py ARGS`` from the checkout; ``data`` as the data folder, ``env`` added to the environment."""
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
