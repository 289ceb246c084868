"""Each reply's header says the pair in short; the reply's Info keeps the full file names."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.core.display.model_names import short_pair_name
from app.ui.main_window import MainWindow
from tests.ui.helpers import Recorder, send


def test_a_replys_header_names_the_pair_in_short(window: MainWindow, qtbot: QtBot, small_pair) -> None:
    target, draft = small_pair
    window.settings_panel.max_tokens.setValue(8)
    send(qtbot, window, "Say hi.", Recorder(window))
    short = short_pair_name(target.name, draft.name)
    assert short == "SmolLM2 135M Q4_1 + Q4_0"  # the test pair: one model in two quantisations
    reply = window.chat.view.messages[-1]
    assert reply.header == short  # as it streamed: the live header
    assert f"·  {short}" in window.chat.view.toPlainText() and target.stem not in window.chat.view.toPlainText()
    assert target.name in reply.info and draft.name in reply.info  # the reply's Info says the files whole

    chat = window.controller.conversation_id
    window.new_action.trigger()
    window.conversations.select(chat)  # drawn again from the store
    assert window.chat.view.messages[-1].header == short
