"""Per-chat settings and presets in the window; every reply records what produced it.

The settings panel edits the open chat's own settings (stored with the
chat), so one chat's system prompt never reaches another; presets live in
the chat database. Replies run on the real SmolLM2 pair, 8 tokens each.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea

from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.sampling import MAX_TOKENS, MIN_P, REPEAT_PENALTY, SEED, TEMPERATURE, TOP_K, TOP_P
from app.ui.main_window import MainWindow
from app.ui.settings.panel import SettingsPanel
from tests.ui.helpers import Recorder, send


def _short_replies(window: MainWindow) -> None:
    """Replies of 16 tokens at most in the module's loaded window (fixture ``window``: a new, empty chat)."""
    window.settings_panel.max_tokens.setValue(16)


def test_each_chat_keeps_its_own_system_prompt(window, qtbot):
    _short_replies(window)
    panel, store, recorder = window.settings_panel, window.store, Recorder(window)
    panel.system_prompt.setPlainText("You are chat A.")
    assert panel.chat_title.text() == "<b>New chat</b>"
    send(qtbot, window, "Hello A.", recorder)
    assert panel.chat_title.text() == "<b>This chat</b>"  # the settings shown are now chat A's
    chat_a = window.controller.conversation_id
    assert store.conversation_settings(chat_a)["system_prompt"] == "You are chat A."
    panel.temperature.setValue(0.5)  # edits chat A, now that it exists

    window.new_action.trigger()
    assert window.controller.conversation_id is None
    _short_replies(window)  # a new chat starts from the defaults
    panel.system_prompt.setPlainText("You are chat B.")
    send(qtbot, window, "Hello B.", recorder)
    chat_b = window.controller.conversation_id
    reply_b = window.controller.path[-1]
    assert reply_b.meta["produced_by"]["system_prompt"] == "You are chat B."

    a, b = (
        ChatSettings.from_dict(store.conversation_settings(chat_a)),
        ChatSettings.from_dict(store.conversation_settings(chat_b)),
    )
    assert (a.system_prompt, a.temperature) == ("You are chat A.", 0.5)
    assert (b.system_prompt, b.temperature) == ("You are chat B.", 0.0)  # A's later edit did not reach B
    window.conversations.select(chat_a)
    assert window.controller.conversation_id == chat_a
    assert panel.system_prompt.toPlainText() == "You are chat A." and panel.temperature.value() == 0.5
    # A's next reply is produced with A's prompt, not with the last one typed anywhere.
    send(qtbot, window, "Again.", recorder)
    produced = window.controller.path[-1].meta["produced_by"]
    assert produced["system_prompt"] == "You are chat A." and produced["sampling"]["temperature"] == 0.5
    window.conversations.select(chat_b)
    assert panel.system_prompt.toPlainText() == "You are chat B."


def test_a_new_window_samples_by_default_and_says_so(make_window):
    panel = make_window(adaptive=True, greedy=False).settings_panel  # the app as a new user meets it
    assert panel.temperature.value() == 0.8 and not panel.greedy.isChecked()
    assert (panel.top_k.value(), panel.top_p.value(), panel.min_p.value()) == (40, 0.95, 0.05)
    assert panel.sampling_defaults.text() == (
        "Defaults as llama.cpp's server: temperature 0.8, top-k 40, top-p 0.95, min-p 0.05."
    )
    assert panel.chat_settings() == ChatSettings()


def test_greedy_is_one_click_away_and_unticking_brings_the_temperature_back(window, qtbot):
    _short_replies(window)
    panel, store, recorder = window.settings_panel, window.store, Recorder(window)
    window.side.setCurrentIndex([window.side.tabText(i) for i in range(window.side.count())].index("Settings"))
    scroll = panel.parentWidget().parentWidget()  # the tab's scroll area (its viewport holds the panel)
    assert isinstance(scroll, QScrollArea)
    scroll.ensureWidgetVisible(panel.greedy)  # scrolled to, as a person would
    qtbot.waitUntil(panel.greedy.isVisible)
    qtbot.mouseClick(panel.reset_button, Qt.MouseButton.LeftButton)  # the app's defaults
    assert panel.temperature.value() == 0.8 and not panel.greedy.isChecked()
    send(qtbot, window, "Hello.", recorder)
    chat = window.controller.conversation_id
    assert window.controller.path[-1].meta["produced_by"]["sampling"]["temperature"] == 0.8
    panel.temperature.setValue(0.6)

    with qtbot.waitSignal(panel.chat_changed) as changed:
        qtbot.mouseClick(panel.greedy, Qt.MouseButton.LeftButton)
    assert panel.greedy.isChecked() and panel.temperature.value() == 0.0
    assert changed.args[0].temperature == 0.0 and store.conversation_settings(chat)["temperature"] == 0.0
    send(qtbot, window, "Again.", recorder)
    assert window.controller.path[-1].meta["produced_by"]["sampling"]["temperature"] == 0.0

    with qtbot.waitSignal(panel.chat_changed) as changed:
        qtbot.mouseClick(panel.greedy, Qt.MouseButton.LeftButton)
    assert not panel.greedy.isChecked() and panel.temperature.value() == 0.6  # the temperature from before
    assert changed.args[0].temperature == 0.6 and store.conversation_settings(chat)["temperature"] == 0.6
    panel.temperature.setValue(0.0)  # a temperature of 0 typed in is greedy too: the box follows it
    assert panel.greedy.isChecked()
    window.new_action.trigger()
    window.conversations.select(chat)  # a chat that was left greedy opens with the box ticked
    assert panel.greedy.isChecked() and panel.temperature.value() == 0.0


def test_a_reply_records_and_shows_what_produced_it(window, small_pair, qtbot):
    _short_replies(window)
    window.settings_panel.seed.setValue(-1)
    send(qtbot, window, "Say hi.", Recorder(window))
    reply = window.controller.path[-1]
    produced = reply.meta["produced_by"]
    assert produced["target"] == small_pair[0].name and produced["draft"] == small_pair[1].name
    assert produced["drafter"] == "hybrid" and produced["draft_policy"] == "fixed 4"  # a new chat drafts hybrid
    assert isinstance(produced["seed"], int)  # "random" still records the seed drawn for this reply
    assert produced["sampling"]["max_tokens"] == 16
    shown = window.chat.view.messages[-1]
    assert "info" in shown.actions and f"{produced['seed']}" in shown.info and small_pair[0].name in shown.info
    window.controller.tree.show_info(reply.id)
    assert window.controller.tree.info_box is not None and "Seed" in window.controller.tree.info_box.text()
    window.controller.tree.info_box.close()
    exported = window.store.export_json(window.controller.conversation_id)
    assert any(m.get("meta", {}).get("produced_by") == produced for m in exported["messages"])


def test_the_chat_drafter_is_used_when_the_pair_allows_it(window, qtbot):
    _short_replies(window)
    index = window.settings_panel.drafter.findData("ngram")
    window.settings_panel.drafter.setCurrentIndex(index)
    send(qtbot, window, "Repeat: one two three, one two three.", Recorder(window))
    reply = window.controller.path[-1]
    assert reply.meta["drafter"] == "ngram" and reply.meta["produced_by"]["drafter"] == "ngram"
    assert reply.meta["produced_by"]["draft"] is None


def test_presets_create_rename_apply_default_delete(make_window):
    window = make_window()
    panel = window.settings_panel
    presets = panel.presets
    assert presets is not None and presets.names() == []
    panel.temperature.setValue(0.7)
    panel.system_prompt.setPlainText("Answer in one line.")
    assert presets.save_as("Brief")
    assert window.store.presets()["Brief"]["system_prompt"] == "Answer in one line."
    assert presets.rename("Terse") and presets.names() == ["Terse"]
    assert not presets.save_as("  ")  # a preset needs a name; nothing is written
    assert presets.names() == ["Terse"]

    panel.reset_button.click()
    assert panel.temperature.value() == 0.8 and panel.system_prompt.toPlainText() == ""  # the defaults: sampled
    presets.select("Terse")
    presets.apply_button.click()
    assert panel.temperature.value() == 0.7 and panel.system_prompt.toPlainText() == "Answer in one line."
    assert window.controller.chat_settings().system_prompt == "Answer in one line."

    presets.default_button.click()
    assert window.store.default_preset() is not None and window.store.default_preset()[0] == "Terse"
    assert "(default)" in presets.combo.currentText()
    panel.reset_button.click()
    window.new_action.trigger()  # a new chat starts from the default preset
    assert panel.system_prompt.toPlainText() == "Answer in one line." and panel.temperature.value() == 0.7

    presets.default_button.click()  # unset
    assert window.store.default_preset() is None
    assert presets.delete() and presets.names() == []
    assert not presets.apply_button.isEnabled()


def test_a_second_preset_with_the_same_name_is_refused_on_rename(make_window):
    window = make_window()
    presets = window.settings_panel.presets
    assert presets is not None
    failures: list[str] = []
    presets.failed.connect(failures.append)
    assert presets.save_as("One") and presets.save_as("Two")
    presets.select("Two")
    assert not presets.rename("One")
    assert failures and "already" in failures[-1]
    assert presets.names() == ["One", "Two"]


def test_the_panels_boxes_span_each_sampling_fields_one_range(qtbot):
    panel = SettingsPanel(gpu_offload=False)
    qtbot.addWidget(panel)
    boxes = {
        TEMPERATURE: panel.temperature,
        TOP_K: panel.top_k,
        TOP_P: panel.top_p,
        MIN_P: panel.min_p,
        REPEAT_PENALTY: panel.repeat_penalty,
        MAX_TOKENS: panel.max_tokens,
    }
    for spec, box in boxes.items():
        assert (box.minimum(), box.maximum()) == (spec.minimum, spec.maximum), spec.name
    assert (panel.seed.minimum(), panel.seed.maximum()) == (SEED.minimum, 2**31 - 1)  # a spin box holds a C int
    # Whatever the boxes can show is a valid chat setting, at both ends of every range.
    for end in ("minimum", "maximum"):
        for box in (*boxes.values(), panel.seed):
            box.setValue(getattr(box, end)())
        shown = panel.chat_settings()
        assert shown.temperature == getattr(TEMPERATURE, end) and shown.max_tokens == getattr(MAX_TOKENS, end)
    panel.set_chat_settings(ChatSettings())
    assert panel.chat_settings() == ChatSettings()
