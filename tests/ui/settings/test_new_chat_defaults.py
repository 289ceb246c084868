"""A new chat starts from the defaults or the default preset, never from what the last chat was given.

The settings panel edits the open chat; a schema or a system prompt typed for
one new chat (sent or not) must not come back on the next one, nor after a
restart from a settings file an older Tandem wrote.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.core.conversation.chat_settings import ChatSettings
from app.ui.main_window import MainWindow
from app.ui.settings.store import settings_path
from tests.ui.helpers import Recorder, send

SCHEMA = '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'


def _type_shape(qtbot: QtBot, window: MainWindow) -> None:
    """Type a JSON schema and a system prompt into the new chat's settings, as a person does."""
    panel = window.settings_panel
    panel.system_prompt.setFocus()
    QTest.keyClicks(panel.system_prompt, "Answer about cities.")
    panel.json_schema.setFocus()
    QTest.keyClicks(panel.json_schema, SCHEMA)
    assert window.controller.chat_settings().json_schema == SCHEMA


def _assert_unshaped(window: MainWindow) -> None:
    panel = window.settings_panel
    assert window.controller.conversation_id is None
    assert panel.system_prompt.toPlainText() == "" and panel.json_schema.toPlainText() == ""
    settings = window.controller.chat_settings()
    assert settings.system_prompt == "" and settings.json_schema == ""


def test_a_new_chat_does_not_inherit_an_unsent_chats_schema_and_prompt(window: MainWindow, qtbot: QtBot) -> None:
    _type_shape(qtbot, window)
    window.new_action.trigger()
    _assert_unshaped(window)


def test_a_new_chat_does_not_inherit_a_sent_chats_schema_and_prompt(window: MainWindow, qtbot: QtBot) -> None:
    window.settings_panel.max_tokens.setValue(8)
    _type_shape(qtbot, window)
    send(qtbot, window, "Name a city.", Recorder(window))
    assert window.controller.path[-1].meta["produced_by"]["system_prompt"] == "Answer about cities."
    window.new_action.trigger()
    _assert_unshaped(window)
    send(qtbot, window, "What is a list comprehension?", Recorder(window))
    produced = window.controller.path[-1].meta["produced_by"]
    assert produced["system_prompt"] == ""
    assert not ChatSettings.from_dict(window.store.conversation_settings(window.controller.conversation_id)).json_schema


def test_an_older_settings_files_new_chat_values_are_ignored_at_start(make_window) -> None:
    # What an older Tandem kept as "the next new chat's settings", and before that as global generation settings.
    older = QSettings(str(settings_path()), QSettings.Format.IniFormat)
    older.setValue("chat/new_chat", json.dumps(ChatSettings(system_prompt="Old prompt.", json_schema=SCHEMA).to_dict()))
    older.setValue("generation/system_prompt", "Older prompt.")
    older.setValue("generation/temperature", 0.3)
    older.sync()
    window = make_window(greedy=False)  # the app's own defaults: the stored temperature must not come back either
    _assert_unshaped(window)
    assert window.settings_panel.chat_settings() == ChatSettings(adaptive=False)
