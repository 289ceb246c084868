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
from app.ui.settings.store import RemoteChoice
from tests.fixtures.synthetic_drafters import (
    SMOLLM2_FILE,
    Tokenizer,
    write_eagle3_head,
    write_llama_target,
    write_qwen35_mtp,
)
from tests.ui.helpers import Recorder, send

pytestmark = pytest.mark.subprocess  # the picker's button starts llama-server


@pytest.fixture(scope="module")
def mtp_model(tmp_path_factory: pytest.TempPathFactory, models_folder: Path) -> Path:
    folder = tmp_path_factory.mktemp("synthetic")
    return write_qwen35_mtp(folder / "synthetic-qwen35-mtp.gguf", Tokenizer.from_file(models_folder / SMOLLM2_FILE))


@pytest.fixture(scope="module")
def eagle3_pair(tmp_path_factory: pytest.TempPathFactory, models_folder: Path) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("synthetic-eagle3")
    tokenizer = Tokenizer.from_file(models_folder / SMOLLM2_FILE)
    target = write_llama_target(folder / "synthetic-llama-target.gguf", tokenizer)
    return target, write_eagle3_head(folder / "synthetic-llama-target-eagle3.gguf", tokenizer)


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
    remembered = RemoteChoice("http://127.0.0.1:8080/v1", "kept")
    window.app_settings.set_remote(remembered)  # a server the user chose on the Server page earlier
    _start(qtbot, window)
    assert "draft-mtp" in row.status.text() and row.managed is not None
    # The managed server's URL lives only as long as the window: the user's server stays the remembered one.
    assert window.app_settings.remote() == remembered
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


def test_an_eagle3_head_beside_the_target_is_named_and_chats_through_llama_server(
    make_window: Callable[..., MainWindow], eagle3_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    target, head = eagle3_pair
    window = make_window()
    window.settings_panel.max_tokens.setValue(24)
    window.picker.add_model(head)  # the head is listed among the models; then the target is picked
    qtbot.waitUntil(lambda: window.picker.own_drafter.isVisibleTo(window.picker), timeout=60_000)
    _pick(qtbot, window, target)
    row = window.picker.own_drafter
    qtbot.waitUntil(lambda: head.name in row.line.text(), timeout=60_000)
    assert row.line.text() == f"{head.name}: an EAGLE-3 head: drafts for a target 64 wide, reading its layers 0, 1, 3"
    _start(qtbot, window)
    assert "draft-eagle3" in row.status.text()
    finished = send(qtbot, window, "Tell me a story about a lighthouse.")
    assert finished.stats.drafted > 0  # llama.cpp drafted with the head
    window.close()
