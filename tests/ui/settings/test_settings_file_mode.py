"""settings.ini is this user's only: created 0600, kept 0600 across QSettings' rewrites, tightened if looser."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.ui.settings.store import AppSettings, GenerationSettings, RemoteChoice

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The common 022, so that a file left to the default would be readable by others and the test would see it."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_settings_file_is_0600_after_every_write(tmp_path: Path) -> None:
    path = tmp_path / "settings.ini"
    settings = AppSettings(path)
    assert _mode(path) == 0o600
    settings.set_generation(GenerationSettings(n_ctx=8192))
    settings.set_remote(RemoteChoice("http://gpu-box:8080/v1", "big-model"))
    settings.sync()
    assert "gpu-box" in path.read_text() and _mode(path) == 0o600
    reread = AppSettings(path)
    assert reread.generation().n_ctx == 8192 and _mode(path) == 0o600


def test_an_older_readable_settings_file_is_tightened_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "settings.ini"
    AppSettings(path).set_generation(GenerationSettings(n_threads=3))
    os.chmod(path, 0o644)
    settings = AppSettings(path)
    assert _mode(path) == 0o600 and settings.generation().n_threads == 3
    settings.set_generation(GenerationSettings(n_threads=5))
    assert _mode(path) == 0o600 and AppSettings(path).generation().n_threads == 5
