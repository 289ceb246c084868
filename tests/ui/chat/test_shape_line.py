"""The "Shaped by" line above the prompt: it names the open chat's schema, system prompt and tools, opens each.

Driven as a person does: typed into the settings panel, clicked, a new chat
and an older one opened from the sidebar; the tools come from the SDK-written
test server, ticked and unticked in the chat's tool list.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.core.conversation.chat_settings import ChatSettings
from app.ui.chat.shape_line import ReplyShape, ShapePart
from app.ui.main_window import MainWindow
from tests.ui.chat.mcp_steps import SERVER, choose_config
from tests.ui.helpers import Recorder, send

SCHEMA = '{"type": "object", "properties": {"city": {"type": "string"}}}'


def _type_into(widget, text: str) -> None:
    widget.setFocus()
    QTest.keyClicks(widget, text)


def _click(window: MainWindow, part: ShapePart) -> None:
    button = window.chat.shape.buttons[part]
    assert button.isVisible(), f"no {part.value} on the line"
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def test_the_line_names_what_shapes_the_chat_and_follows_the_open_chat(window: MainWindow, qtbot: QtBot) -> None:
    line, panel = window.chat.shape, window.settings_panel
    assert not line.isVisible() and line.text() == ""  # a new chat on the defaults: nothing shapes it

    _type_into(panel.system_prompt, "Answer about cities.")
    assert line.isVisible() and line.text() == "Shaped by: system prompt"
    _type_into(panel.json_schema, SCHEMA)
    assert line.text() == "Shaped by: JSON schema · system prompt"

    window.side.setCurrentIndex(0)  # the Model tab: the click brings the Settings tab forward
    window.chat.prompt.setFocus()
    _click(window, ShapePart.SCHEMA)
    assert window.side.currentWidget() is window.settings_area
    qtbot.waitUntil(lambda: panel.json_schema.hasFocus())
    window.chat.prompt.setFocus()
    _click(window, ShapePart.SYSTEM_PROMPT)
    qtbot.waitUntil(lambda: panel.system_prompt.hasFocus())

    panel.max_tokens.setValue(8)
    send(qtbot, window, "Name a city.", Recorder(window))
    shaped = window.controller.conversation_id
    assert line.text() == "Shaped by: JSON schema · system prompt"  # the chat, now created, keeps its shape

    window.new_action.trigger()
    assert not line.isVisible()
    window.conversations.select(shaped)
    assert window.controller.conversation_id == shaped
    assert line.isVisible() and line.text() == "Shaped by: JSON schema · system prompt"
    panel.system_prompt.clear()  # an edit of the open chat's settings shows at once
    assert line.text() == "Shaped by: JSON schema"


def test_the_line_counts_the_chats_tools_and_opens_their_list(make_window, qtbot: QtBot, tmp_path: Path) -> None:
    window = make_window()
    window.stack.setCurrentWidget(window.chat)  # the chat page, where the bar that asks to start a server sits
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"test": {"command": sys.executable, "args": [str(SERVER)]}}}))
    choose_config(qtbot, window, config)
    tools = window.settings_panel.chat_tools
    qtbot.waitUntil(lambda: len(tools.boxes) >= 2, timeout=120_000)

    line = window.chat.shape
    for tick in tools.boxes.values():
        if not tick.isChecked():
            tick.click()
    count = len(tools.boxes)
    assert line.text() == f"Shaped by: {count} tools"
    next(iter(tools.boxes.values())).click()  # one switched off
    assert line.text() == f"Shaped by: {count - 1} tools"
    _click(window, ShapePart.TOOLS)
    assert window.side.currentWidget() is window.settings_area
    for tick in tools.boxes.values():
        if tick.isChecked():
            tick.click()
    assert not line.isVisible()


def test_blank_text_shapes_nothing_and_the_parts_keep_their_order() -> None:
    assert ReplyShape.of(ChatSettings(system_prompt="  \n", json_schema=" "), 0).parts() == ()
    shaped = ReplyShape.of(ChatSettings(system_prompt="Be brief.", json_schema=SCHEMA), 3)
    assert shaped.parts() == (ShapePart.SCHEMA, ShapePart.SYSTEM_PROMPT, ShapePart.TOOLS)
