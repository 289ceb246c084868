"""The picker offers a model's own MTP layers and chats through the llama-server Tandem starts for them.

On a SYNTHETIC qwen35 file with one NextN block (``tests/fixtures/synthetic_drafters.py``:
random weights, SmolLM2's tokenizer): what is proved is the road (the header
read, the button, the managed server, the per-step counts in the chat and
Stats, the line when the server dies), not the speed of real MTP layers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.ui.chat.controller import Activity
from app.ui.main_window import MainWindow
from tests.fixtures.synthetic_drafters import SMOLLM2_FILE, Tokenizer, write_qwen35_mtp
from tests.ui.helpers import Recorder, send

pytestmark = pytest.mark.subprocess  # the picker's button starts llama-server


@pytest.fixture(scope="module")
def mtp_model(tmp_path_factory: pytest.TempPathFactory, models_folder: Path) -> Path:
    folder = tmp_path_factory.mktemp("synthetic")
    return write_qwen35_mtp(folder / "synthetic-qwen35-mtp.gguf", Tokenizer.from_file(models_folder / SMOLLM2_FILE))


def _pick(qtbot: QtBot, window: MainWindow, model: Path) -> None:
    """Add the file as a target (as the "…" button does) and wait for the picker's line on its own drafter."""
    window.picker.add_model(model)
    row = window.picker.own_drafter
    qtbot.waitUntil(lambda: row.isVisibleTo(window.picker) and bool(row.line.text()), timeout=60_000)


def _start(qtbot: QtBot, window: MainWindow) -> None:
    row = window.picker.own_drafter
    assert row.start_button.isVisibleTo(window.picker) and row.start_button.isEnabled()
    QTest.mouseClick(row.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: window.controller.pair is not None and window.controller.pair.remote is not None, timeout=120_000
    )


def test_the_models_own_mtp_layers_chat_through_a_managed_llama_server(
    make_window: Callable[..., MainWindow], mtp_model: Path, qtbot: QtBot
) -> None:
    window = make_window()
    window.settings_panel.max_tokens.setValue(24)
    _pick(qtbot, window, mtp_model)
    row = window.picker.own_drafter
    assert row.line.text() == (
        "This model: the model's own MTP layers (1 NextN block(s)) draft for it: no second file needed"
    )
    _start(qtbot, window)
    assert "draft-mtp" in row.status.text() and row.managed is not None
    finished = send(qtbot, window, "Tell me a story about a lighthouse.")
    assert finished.stats.drafted > 0  # llama.cpp drafted with the MTP block on the way
    assert f"({finished.stats.accepted}/{finished.stats.drafted})" in window.stats.acceptance.text()
    process = row.managed.process.process
    assert process is not None and process.poll() is None
    window.close()  # closing the window stops the server it started
    assert process.poll() is not None


def test_a_managed_server_that_dies_mid_reply_is_named_in_one_line(
    make_window: Callable[..., MainWindow], mtp_model: Path, qtbot: QtBot
) -> None:
    window = make_window()
    window.settings_panel.max_tokens.setValue(400)
    _pick(qtbot, window, mtp_model)
    _start(qtbot, window)
    row = window.picker.own_drafter
    assert row.managed is not None
    recorder = Recorder(window)
    window.chat.prompt.setPlainText("Tell me a long story about a lighthouse.")
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(recorder.steps) >= 3, timeout=60_000)
    row.managed.process.kill()
    qtbot.waitUntil(lambda: bool(recorder.errors), timeout=30_000)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=10_000)
    error = recorder.errors[-1]
    assert f"the llama-server Tandem started for {mtp_model.name} stopped" in error, error
    assert "\n" not in error.strip()
