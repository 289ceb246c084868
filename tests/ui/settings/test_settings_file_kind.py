"""settings.ini that is not a settings file (a FIFO, a link to one, a file of megabytes) is left alone; Tandem starts.

Each case opens the settings in a new interpreter: QSettings waits on a FIFO
inside Qt, holding the interpreter, so only a process can be bounded in time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.ui.settings.store import MAX_SETTINGS_BYTES
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX FIFOs and devices")

# Opens the file as the window does, reads a value, changes it, reads it back.
_OPEN = """
import sys
from pathlib import Path
from app.ui.settings.store import AppSettings, GenerationSettings
settings = AppSettings(Path(sys.argv[1]))
before = settings.generation().n_ctx
settings.set_generation(GenerationSettings(n_ctx=2048))
print(before, settings.generation().n_ctx)
"""


@pytest.mark.parametrize("kind", ["fifo", "link to a fifo", "huge"])
def test_a_settings_file_that_is_not_one_is_ignored_in_one_line_and_left_as_it_is(tmp_path: Path, kind: str) -> None:
    """Case 4 and 7: QSettings waited on a FIFO for ever (the window never started) and read a big file whole."""
    path = tmp_path / "settings.ini"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link to a fifo":
        # Never a link to a real device here: QSettings saves through QSaveFile, which follows the link and
        # renames its new file over the target (as root, a link to /dev/zero replaced /dev/zero).
        os.mkfifo(tmp_path / "pipe")
        path.symlink_to(tmp_path / "pipe")
    else:
        with path.open("wb") as out:  # sparse: no disk taken, but QSettings would read it all
            out.write(b"[generation]\nn_ctx=8192\n")
            out.truncate(MAX_SETTINGS_BYTES * 64)
    result = subprocess.run(
        [sys.executable, "-c", _OPEN, str(path)],
        capture_output=True,
        text=True,
        timeout=60,  # a FIFO opened as the file: a timeout, not a hung run
        cwd=REPO_ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "4096 2048\n"  # the defaults; a change kept for the session
    assert result.stderr.startswith(f"settings: ignored {path}: it ") and result.stderr.count("\n") == 1, result.stderr
    if kind == "huge":
        assert path.stat().st_size == MAX_SETTINGS_BYTES * 64
    else:
        assert path.is_symlink() if kind == "link to a fifo" else not path.is_file()
        assert not (tmp_path / "pipe").is_file()
