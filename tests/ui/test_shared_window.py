"""The module's shared loaded window (fixture ``window``): whatever a test leaves, the next starts as a fresh load does.

One test leaves the window as untidy as a test can (a chat with a reply, a
default preset, edited chat and machine settings, the demo switch on, an edit
under way, a half-typed prompt with a file attached, the legend, slow motion,
another side tab, a measured baseline, a dialog open and a reply still streaming); the reset that
``window`` runs (:func:`~tests.ui.helpers.reset_window`) is then checked
against what the window showed right after its first load.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QDialog
from pytestqt.qtbot import QtBot

from app.ui.chat.controller import Activity
from app.ui.main_window import MainWindow
from tests.ui.attachments.steps import click_paperclip, wait_read
from tests.ui.helpers import FreshWindow, LoadedWindow, Recorder, click_action, reset_window, send


def _open_dialogs() -> list[QDialog]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible()]


def test_the_reset_leaves_the_window_as_its_first_load_did(
    window: MainWindow, loaded_window: LoadedWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fresh = loaded_window.fresh
    assert FreshWindow.of(window, fresh.choice) == fresh  # the fixture reset it before this test too
    panel, controller = window.settings_panel, window.controller
    presets = panel.presets
    assert presets is not None

    panel.system_prompt.setPlainText("You are a pirate.")
    panel.max_tokens.setValue(8)
    send(qtbot, window, "Hello.", Recorder(window))
    assert presets.save_as("Pirate")
    presets.default_button.click()
    controller.demo.set_on(True)
    panel.n_threads.setValue(1)  # a loading setting: the reset loads the pair again with the one it had
    click_action(window, "edit", 0)
    note = tmp_path / "note.txt"
    note.write_text("A note to attach.\n")
    click_paperclip(qtbot, monkeypatch, window, [note])
    wait_read(qtbot, window)
    window.chat.legend.ghosts.setChecked(not fresh.ghosts)
    window.steps.hold.setValue(2.0)
    window.steps.slow_action.setChecked(True)
    window.side.setCurrentIndex(fresh.side_tab + 1)
    window.stats.set_baseline(123.0, "measured here")  # as an A/B leaves it
    controller.tree.show_info(controller.path[-1].id)
    assert _open_dialogs()
    controller.tree.cancel_edit()
    panel.max_tokens.setValue(400)
    window.chat.prompt.setPlainText("Write a long story about a lighthouse keeper.")
    window.chat.send_button.click()
    window.chat.prompt.setPlainText("half typed")
    assert controller.activity is not Activity.IDLE

    reset_window(qtbot, window, fresh)

    assert FreshWindow.of(window, fresh.choice) == fresh
    store = window.store
    assert store.list_conversations() == [] and store.trashed_conversations() == []
    assert store.presets() == {} and store.default_preset() is None and presets.names() == []
    assert controller.conversation_id is None and window.chat.view.messages == []
    assert window.chat.prompt.toPlainText() == "" and not window.chat.attachments.chips
    assert not controller.demo.on and not window.chat.edit_bar.isVisible()
    assert window.host.worker.step_hold == 0.0 and not _open_dialogs()
    assert controller.pair is not None and controller.pair.config == fresh.choice.config(fresh.generation)
    assert window.new_chat_settings() == fresh.chat
    assert "123.0" not in window.stats.baseline_note.text()

    # The next chat (SQLite gives it the deleted chat's id) starts without the demo switch, on the recorded settings.
    send(qtbot, window, "Say hi.", Recorder(window))
    assert len(store.list_conversations()) == 1
    assert not controller.demo.on
    assert window.controller.path[-1].meta["produced_by"]["system_prompt"] == fresh.chat.system_prompt
