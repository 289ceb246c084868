"""The chat's JSON schema field: typed in the settings panel, every reply matches it, with drafting on, and says so."""

from __future__ import annotations

import hashlib
import json

import jsonschema
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.helpers import Recorder, send

SCHEMA = {
    "type": "object",
    "properties": {"fruit": {"type": "string", "maxLength": 20}, "count": {"type": "integer", "minimum": 0}},
    "required": ["fruit", "count"],
    "additionalProperties": False,
}


def test_a_typed_schema_holds_every_reply_to_it(window, qtbot):
    panel = window.settings_panel
    # Room for the longest reply the schema allows: sampled, the small model may fill "fruit" with 20 emoji,
    # four byte-tokens each (one such reply was cut at 64 tokens, unterminated).
    panel.max_tokens.setValue(160)
    panel.temperature.setValue(0.8)
    panel.json_schema.setFocus()
    QTest.keyClicks(panel.json_schema, json.dumps(SCHEMA))
    assert json.loads(panel.chat_settings().json_schema) == SCHEMA
    recorder = Recorder(window)
    for _ in range(2):
        finished = send(qtbot, window, "Name a fruit and how many, as JSON.", recorder)
        jsonschema.validate(json.loads(finished.text), SCHEMA)
    assert sum(s.drafted for s in recorder.steps) > 0
    # The reply records which schema held it (by the SHA-256 of its canonical JSON) and its Info shows it.
    canonical = json.dumps(SCHEMA, sort_keys=True, separators=(",", ":"))
    sha = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    reply = window.controller.path[-1]
    assert reply.meta["produced_by"]["output_format"] == {
        "kind": "json_schema",
        "name": "",
        "sha256": sha,
        "strict": True,
    }
    window.controller.tree.show_info(reply.id)
    box = window.controller.tree.info_box
    assert box is not None and "Output format" in box.text() and f"SHA-256 {sha[:16]}" in box.text()
    box.close()


def test_a_schema_that_is_not_json_is_one_line_and_the_question_is_kept(window, qtbot):
    QTest.keyClicks(window.settings_panel.json_schema, '{"type": ')
    recorder = Recorder(window)
    window.chat.prompt.setPlainText("Name a fruit.")
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: bool(recorder.errors), timeout=120_000)
    assert "the chat's JSON schema is not JSON" in recorder.errors[0] and "\n" not in recorder.errors[0]
    qtbot.waitUntil(lambda: any(m.text == "Name a fruit." for m in window.chat.view.messages), timeout=30_000)
