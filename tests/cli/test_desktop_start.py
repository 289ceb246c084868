"""Starting the window where it cannot open: no display, a missing X11 library, an X server that does not answer.

Real subprocesses of ``main.py``. A missing library is simulated for the real
dynamic loader: a folder on ``LD_LIBRARY_PATH`` holds a file by the library's
name that is not a library, which the loader finds first (Qt itself then
aborts, as ``test_the_simulation_breaks_qt_itself`` shows). A real Xvfb display
checks the other side: where the window can open, the check lets it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.ui.start.desktop_check import desktop_problem
from tests.cli.helpers import ROOT

needs_xvfb = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")


def bare_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    return {**env, **extra}


def start(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
        check=False,
    )


@pytest.fixture
def broken_libraries(tmp_path: Path) -> Path:
    """A folder where libxcb-cursor and libEGL are files the loader cannot load."""
    folder = tmp_path / "broken-libs"
    folder.mkdir()
    for name in ("libxcb-cursor.so.0", "libEGL.so.1"):
        (folder / name).write_bytes(b"not a shared library")
    return folder


@pytest.fixture
def xvfb_display() -> Iterator[str]:
    """A real X server (Xvfb) on a free display number, stopped afterwards."""
    number = 200 + os.getpid() % 700
    while Path(f"/tmp/.X11-unix/X{number}").exists():
        number += 1
    server = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", "800x600x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not Path(f"/tmp/.X11-unix/X{number}").exists():
        assert server.poll() is None and time.monotonic() < deadline, "Xvfb did not start"
        time.sleep(0.05)
    yield f":{number}"
    server.terminate()
    server.wait(timeout=30)


def assert_one_line_exit_2(result: subprocess.CompletedProcess[str], *words: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    for word in words:
        assert word in lines[0]
    return lines[0]


def test_without_a_display_the_window_says_so_and_points_to_the_terminal_chat() -> None:
    line = assert_one_line_exit_2(start(env=bare_env()), "no display", "python main.py chat")
    assert "xcb-cursor" not in line  # Qt's misleading guess is not repeated


def test_missing_x11_libraries_are_named_with_the_packages_to_install(broken_libraries: Path) -> None:
    result = start(env=bare_env(DISPLAY=":0", LD_LIBRARY_PATH=str(broken_libraries)))
    line = assert_one_line_exit_2(result, "libxcb-cursor.so.0", "libEGL.so.1", "python main.py chat")
    assert "apt install libxcb-cursor0 libegl1" in line
    assert "dnf install xcb-util-cursor libglvnd-egl" in line
    assert "pacman -S xcb-util-cursor libglvnd" in line


def test_an_x_server_that_does_not_answer_is_reported() -> None:
    assert_one_line_exit_2(start(env=bare_env(DISPLAY=":987")), "no X server answers at DISPLAY=:987")


def test_an_explicit_platform_skips_the_check() -> None:
    assert desktop_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert desktop_problem({}) is not None


@needs_xvfb
def test_the_simulation_breaks_qt_itself(xvfb_display: str, broken_libraries: Path) -> None:
    probe = [sys.executable, "-c", "from PySide6.QtGui import QGuiApplication; QGuiApplication([])"]
    env = bare_env(DISPLAY=xvfb_display)
    assert subprocess.run(probe, env=env, capture_output=True, timeout=120, check=False).returncode == 0
    broken = subprocess.run(
        probe, env={**env, "LD_LIBRARY_PATH": str(broken_libraries)}, capture_output=True, timeout=120, check=False
    )
    assert broken.returncode != 0  # what the check spares the user: Qt's abort


@needs_xvfb
def test_on_a_real_display_the_check_passes_and_the_selftest_starts_the_platform(
    xvfb_display: str, small_pair: tuple[Path, Path]
) -> None:
    assert desktop_problem(bare_env(DISPLAY=xvfb_display)) is None  # this machine's real libraries
    result = start("--selftest", env=bare_env(DISPLAY=xvfb_display))
    assert result.returncode == 0, result.stderr
    assert "gui: platform xcb starts" in result.stdout


def test_the_selftest_fails_when_the_window_could_never_open(
    broken_libraries: Path, small_pair: tuple[Path, Path]
) -> None:
    result = start("--selftest", env=bare_env(LD_LIBRARY_PATH=str(broken_libraries)))
    assert result.returncode == 2
    assert result.stderr.strip().startswith("selftest failed: the window cannot start")
    assert "libxcb-cursor0" in result.stderr


def test_the_selftest_passes_headless_when_the_libraries_are_there(small_pair: tuple[Path, Path]) -> None:
    result = start("--selftest", env=bare_env())
    assert result.returncode == 0, result.stderr
    assert "no display here" in result.stdout
