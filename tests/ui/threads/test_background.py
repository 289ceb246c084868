"""Background jobs: the result (or the error) comes back on the GUI thread, typed by the job."""

from __future__ import annotations

import threading
from pathlib import Path

from pytestqt.qtbot import QtBot

from app.ui.threads.background import Background


def test_a_job_result_reaches_its_callback_on_the_gui_thread(qapp, tmp_path: Path, qtbot: QtBot) -> None:
    background = Background()
    (tmp_path / "header.bin").write_bytes(b"GGUF" + bytes(12))
    got: list[tuple[bytes, str]] = []
    worked_on: list[str] = []

    def read() -> bytes:
        worked_on.append(threading.current_thread().name)
        return (tmp_path / "header.bin").read_bytes()[:4]

    background.submit(read, lambda magic: got.append((magic, threading.current_thread().name)))
    qtbot.waitUntil(lambda: bool(got), timeout=10_000)
    assert got == [(b"GGUF", threading.main_thread().name)]
    assert worked_on[0].startswith("tandem-bg")  # the work itself ran off the GUI thread
    background.shutdown()


def test_a_failing_job_reports_its_error_and_nothing_arrives_after_shutdown(qapp, tmp_path: Path, qtbot: QtBot) -> None:
    background = Background()
    errors: list[Exception] = []
    done: list[bytes] = []
    background.submit(lambda: (tmp_path / "missing.gguf").read_bytes(), done.append, errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=10_000)
    assert isinstance(errors[0], FileNotFoundError) and not done

    background.shutdown()
    background.post(done.append, b"late")
    qapp.processEvents()
    assert not done
