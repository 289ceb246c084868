"""Conversations and settings survive closing the window; exports carry the tokens' origins."""

from __future__ import annotations

import json

from app.core.conversation.chat_settings import ChatSettings
from app.engine.paths import data_dir
from app.engine.store import conversations
from app.ui.settings.store import AppSettings, GenerationSettings
from tests.ui.helpers import Recorder, load, pair_choice, send


def test_conversation_round_trip_and_export(make_window, small_pair, tmp_path, qtbot):
    window = make_window()
    window.settings_panel.max_tokens.setValue(24)
    load(qtbot, window, pair_choice(small_pair))
    recorder = Recorder(window)
    send(qtbot, window, "Name three colours.", recorder)
    send(qtbot, window, "And three animals.", recorder)
    conversation = window.controller.conversation_id
    spans_before = [(s.message_index, s.text, s.origin) for s in window.chat.view.token_spans()]
    texts = [e.text for e in recorder.finished]
    window.close()

    reopened = make_window()
    listed = reopened.store.list_conversations()
    assert [c.id for c in listed] == [conversation]
    assert listed[0].title == "Name three colours."
    assert listed[0].message_count == 4
    assert reopened.conversations.conversation_ids() == [conversation]
    reopened.conversations.select(conversation)  # what a click does
    qtbot.waitUntil(lambda: reopened.controller.conversation_id == conversation, timeout=10_000)
    view = reopened.chat.view
    assert [m.role for m in view.messages] == ["user", "assistant", "user", "assistant"]
    assert [(s.message_index, s.text, s.origin) for s in view.token_spans()] == spans_before
    assert [m.text for m in view.messages if m.role == "assistant"] == texts

    markdown = reopened.sidebar.export(conversation, "markdown", tmp_path / "chat.md")
    assert markdown is not None
    content = markdown.read_text(encoding="utf-8")
    assert "# Name three colours." in content and "### You" in content and "### Assistant" in content
    assert texts[0].strip() in content

    exported = reopened.sidebar.export(conversation, "json", tmp_path / "chat.json")
    assert exported is not None
    data = json.loads(exported.read_text(encoding="utf-8"))
    replies = [m for m in data["messages"] if m["role"] == "assistant"]
    assert [r["content"] for r in replies] == texts
    origins = [t["origin"] for t in replies[0]["tokens"]]
    assert origins == [s[2] for s in spans_before if s[0] == 1]
    assert replies[0]["meta"]["stats"]["emitted"] == len(origins)
    assert all(m["state"] == conversations.DONE for m in data["messages"])


def test_settings_round_trip(make_window):
    window = make_window()
    panel = window.settings_panel
    panel.temperature.setValue(0.7)
    panel.top_k.setValue(20)
    panel.top_p.setValue(0.9)
    panel.min_p.setValue(0.1)
    panel.seed.setValue(42)
    panel.draft_length.setValue(6)
    panel.max_tokens.setValue(128)
    panel.n_ctx.setValue(2048)
    panel.n_threads.setValue(2)
    panel.system_prompt.setPlainText("Answer briefly.")
    window.chat.legend.ghosts.setChecked(True)
    window.chat.legend.coloured.setChecked(False)
    expected = panel.settings()
    assert expected != GenerationSettings()
    # No chat is open: these are the new chat's own, never what the next new chat or the next start begins with.
    assert panel.chat_settings() != ChatSettings(adaptive=False)
    window.close()

    stored = AppSettings()
    assert stored.path.parent == data_dir()  # the test's own folder, never the user's settings
    assert stored.generation() == expected

    reopened = make_window(greedy=False)  # the app's own new-chat defaults (sampled), not the tests' greedy
    assert reopened.settings_panel.settings() == expected
    assert reopened.settings_panel.chat_settings() == ChatSettings(adaptive=False)  # make_window's new-chat defaults
    assert reopened.chat.legend.ghosts.isChecked() and reopened.chat.view.show_ghosts
    assert not reopened.chat.legend.coloured.isChecked() and not reopened.chat.view.coloured
