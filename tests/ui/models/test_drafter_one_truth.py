"""One drafter on screen: the Model tab's drafter buttons and Settings ▸ Drafter are one setting, the open chat's.

The MTP button's test adds the SYNTHETIC glm4moe file of
``tests/fixtures/synthetic_drafters.py`` (random weights, SmolLM2's tokenizer):
no small real model with MTP layers exists; it proves the button, its
explanations and the reply's record, not how well real MTP layers draft.

Real SmolLM2 pair, loaded with its draft model (the module's shared window):
a click on a Model-tab button changes the chat's drafter and Settings shows
it; a choice in Settings moves the buttons; another chat brings its own
drafter to both; each reply records the drafter both places said.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.engine.llama.session import DrafterKind
from app.ui.main_window import MainWindow
from app.ui.settings.store import PairChoice
from tests.fixtures.synthetic_drafters import SMOLLM2_FILE, Tokenizer, write_glm4moe_mtp
from tests.ui.helpers import Recorder, load, send


def _shown(window: MainWindow) -> tuple[DrafterKind, DrafterKind]:
    """The drafter the Model tab's buttons show and the one Settings shows."""
    return window.picker.drafter_kind(), DrafterKind(str(window.settings_panel.drafter.currentData()))


def _pick_in_settings(window: MainWindow, qtbot: QtBot, kind: DrafterKind) -> None:
    """Choose ``kind`` in Settings ▸ Drafter with the keyboard, as a person does on a focused combo."""
    combo = window.settings_panel.drafter
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Home)  # the first choice; then down to the one wanted
    for _ in range(combo.count()):
        if combo.currentData() == kind.value:
            return
        qtbot.keyClick(combo, Qt.Key.Key_Down)
    raise AssertionError(f"Settings ▸ Drafter offers no {kind.value}")


def test_the_model_tab_and_settings_show_one_drafter_and_the_reply_uses_it(window: MainWindow, qtbot: QtBot) -> None:
    window.settings_panel.max_tokens.setValue(8)
    recorder = Recorder(window)
    picker = window.picker
    # A new chat's default, in both places, once the draft list has been read in the background (until then
    # the buttons show the n-gram stand-in: no draft is known to fit yet).
    qtbot.waitUntil(lambda: _shown(window) == (DrafterKind.HYBRID, DrafterKind.HYBRID), timeout=60_000)

    window.side.setCurrentIndex(0)  # the Model tab
    qtbot.mouseClick(picker.kind_buttons[DrafterKind.NGRAM], Qt.MouseButton.LeftButton)
    assert _shown(window) == (DrafterKind.NGRAM, DrafterKind.NGRAM)
    send(qtbot, window, "Say one two three.", recorder)
    first_chat = window.controller.conversation_id
    assert window.controller.path[-1].meta["produced_by"]["drafter"] == "ngram"

    _pick_in_settings(window, qtbot, DrafterKind.MODEL)
    assert _shown(window) == (DrafterKind.MODEL, DrafterKind.MODEL)
    send(qtbot, window, "And four five six.", recorder)
    assert window.controller.path[-1].meta["produced_by"]["drafter"] == "model"

    # Another chat has its own drafter, shown in both places; going back brings this chat's again.
    window.new_action.trigger()
    assert _shown(window) == (DrafterKind.HYBRID, DrafterKind.HYBRID)
    qtbot.mouseClick(picker.kind_buttons[DrafterKind.NONE], Qt.MouseButton.LeftButton)
    send(qtbot, window, "Hello.", recorder)
    assert window.controller.path[-1].meta["produced_by"]["drafter"] == "none"
    assert "target only" in window.chat.view.messages[-1].footer, window.chat.view.messages[-1].footer
    assert first_chat is not None
    window.controller.open_conversation(first_chat)
    assert _shown(window) == (DrafterKind.MODEL, DrafterKind.MODEL)
    # The pair loaded with its draft model serves every drafter: the memory meter still reads it as loaded.
    pair = window.controller.pair
    assert pair is not None and pair.config.draft is not None
    for kind in DrafterKind:
        choice = PairChoice(pair.config.target, pair.config.draft if kind.uses_draft_model else None, kind)
        # The MTP layers are loaded only for their own drafter: a pair loaded without them does not serve it.
        assert window._loaded_as(choice) is (None if kind.uses_own_layers else pair), kind


def test_a_target_no_draft_fits_shows_ngram_lookup_whatever_the_chat_asks(
    make_window: Callable[..., MainWindow],
    small_pair: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: QtBot,
) -> None:
    # One model and nothing that drafts for it: the buttons say what will run (n-gram lookup), as the verdict
    # explains, while Settings keeps the chat's own choice for a pair that has a draft.
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / small_pair[0].name).symlink_to(small_pair[0])
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(folder))
    monkeypatch.setenv("HOME", str(tmp_path))  # no other tool's model folders
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    window = make_window()
    picker = window.picker
    qtbot.waitUntil(lambda: picker.target.count() == 1 and "N-gram lookup" in picker.verdict.text(), timeout=120_000)
    assert picker.drafter_kind() is DrafterKind.NGRAM and picker.load_button.isEnabled()
    window.new_action.trigger()  # a new chat: its drafter (hybrid) needs a draft that no model here gives
    assert picker.drafter_kind() is DrafterKind.NGRAM and picker.load_button.isEnabled()
    assert window.settings_panel.drafter.currentData() == "hybrid"


def test_the_mtp_button_offers_a_models_own_layers_beside_a_draft_model_and_says_why_not_without_them(
    window: MainWindow, qtbot: QtBot, models_folder: Path, tmp_path: Path
) -> None:
    picker = window.picker
    window.side.setCurrentIndex(0)  # the Model tab
    mtp = picker.kind_buttons[DrafterKind.MTP]
    qtbot.waitUntil(lambda: _shown(window) == (DrafterKind.HYBRID, DrafterKind.HYBRID), timeout=60_000)
    # SmolLM2 carries no MTP layers: the button is greyed out and its tooltip says why in one line.
    assert not mtp.isEnabled()
    assert mtp.toolTip().startswith("this model carries no MTP layers: choose a draft model, n-gram lookup or none")

    path = write_glm4moe_mtp(tmp_path / "synthetic-glm4moe-mtp.gguf", Tokenizer.from_file(models_folder / SMOLLM2_FILE))
    picker.add_model(path)  # as the "…" button does: the file becomes the target
    qtbot.waitUntil(mtp.isEnabled, timeout=60_000)
    assert mtp.toolTip().startswith("the model's own MTP layers propose tokens; no second file")
    qtbot.mouseClick(mtp, Qt.MouseButton.LeftButton)
    assert _shown(window) == (DrafterKind.MTP, DrafterKind.MTP)
    assert html.unescape(picker.verdict.text()) == (
        "<b>✓ The model's own MTP layers</b>: the model's own MTP layers (1 NextN block(s)) draft for it: "
        "no second file needed"
    )
    assert not picker.draft.isEnabled()  # no second file is asked for
    assert picker.choice() == PairChoice(path, None, DrafterKind.MTP)
    assert picker.load_button.isEnabled()

    load(qtbot, window, picker.choice())
    pair = window.controller.pair
    assert pair is not None and pair.config.drafter is DrafterKind.MTP and pair.config.draft is None
    window.settings_panel.max_tokens.setValue(8)
    send(qtbot, window, "Tell me a story.")
    produced_by = window.controller.path[-1].meta["produced_by"]
    assert produced_by["drafter"] == "mtp" and produced_by["draft"] is None
    assert "drafter: mtp" in window.chat.view.messages[-1].footer, window.chat.view.messages[-1].footer
    # The chat keeps its drafter: another chat has its own, and reopening this one brings the MTP layers back.
    mtp_chat = window.controller.conversation_id
    assert mtp_chat is not None
    window.new_action.trigger()
    assert _shown(window)[1] is DrafterKind.HYBRID
    window.controller.open_conversation(mtp_chat)
    assert _shown(window) == (DrafterKind.MTP, DrafterKind.MTP)

    # The same target with a draft model beside its MTP layers: the buttons choose among them.
    qtbot.waitUntil(lambda: any(o.compatible and o.path is not None for o in picker.options), timeout=60_000)
    qtbot.mouseClick(picker.kind_buttons[DrafterKind.MODEL], Qt.MouseButton.LeftButton)
    assert _shown(window) == (DrafterKind.MODEL, DrafterKind.MODEL)
    qtbot.waitUntil(lambda: picker.load_button.isEnabled(), timeout=60_000)  # the pair's verdict, read in the back
    choice = picker.choice()
    assert choice is not None and choice.target == path and choice.draft is not None
    assert window._loaded_as(choice) is None  # the MTP pair has no draft model loaded: Load loads it
    load(qtbot, window, choice)
    send(qtbot, window, "And another.")
    assert window.controller.path[-1].meta["produced_by"]["drafter"] == "model"
    assert picker.kind_buttons[DrafterKind.MTP].isEnabled()  # still offered beside the draft model
