"""First steps on an empty models folder: the status bar follows the picker, and Enter loads the picked pair."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.engine.llama.session import DrafterKind
from app.ui.chat.controller import Activity
from app.ui.settings.store import PairChoice
from tests.ui.helpers import REPLY_TIMEOUT_MS, Recorder


def test_enter_on_a_picked_pair_loads_it_then_sends(
    make_window, small_pair, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, qtbot: QtBot
) -> None:
    empty = tmp_path / "no-models"
    empty.mkdir()
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(empty))
    window = make_window()
    status = window.statusBar()
    assert window.stack.currentWidget() is window.welcome
    assert "no models yet" in status.currentMessage()
    # Nothing picked: a message sent anyway says what to do.
    assert not window.controller.send("hello")
    assert "No model pair" in window.chat.banner.text.text()

    window.welcome.add_file(small_pair[0])
    qtbot.waitUntil(lambda: window.picker.ready_choice() is not None, timeout=60_000)
    assert window.stack.currentWidget() is window.chat
    assert window.controller.pair is None and window.chat.send_button.isEnabled()
    assert "no models yet" not in status.currentMessage()
    assert "is picked" in status.currentMessage() and "SmolLM2 135M" in status.currentMessage()

    window.settings_panel.max_tokens.setValue(8)
    recorder = Recorder(window)
    window.chat.prompt.setFocus()
    QTest.keyClicks(window.chat.prompt, "Say hello.")
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Return)  # Enter sends (Shift+Enter adds a line)
    qtbot.waitUntil(lambda: bool(recorder.finished) or bool(recorder.errors), timeout=REPLY_TIMEOUT_MS)
    assert not recorder.errors, recorder.errors
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE)
    assert window.controller.pair is not None and window.controller.pair.config.target.name == small_pair[0].name
    assert window.app_settings.pair() == PairChoice(window.controller.pair.config.target, None, DrafterKind.NGRAM)
    stored = window.store.messages(window.controller.conversation_id)
    assert [m.role for m in stored] == ["user", "assistant"] and stored[0].content == "Say hello."
    assert window.chat.prompt.toPlainText() == ""
