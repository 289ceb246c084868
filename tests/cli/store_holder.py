"""Another process holding the chat database's writer lock, for the tests of what the CLI does then.

Not a test module: the tests import it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT

_HOLD = (
    "import sys; from pathlib import Path; from app.engine.store.conversations import ChatStore; "
    "store = ChatStore(Path(sys.argv[1])); print('holding', flush=True); sys.stdin.read()"
)


@contextmanager
def held_by_another_process(path: Path, data_dir: Path) -> Iterator[None]:
    """A real second process opens ``path`` for writing (taking its lock) until the block ends, then exits cleanly."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TANDEM_DATA_DIR": str(data_dir)},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        yield
    finally:
        holder.communicate("", timeout=60)
    assert holder.returncode == 0
