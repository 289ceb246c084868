"""Failed loads do not stick: the default pair, the status labels, the picker's Load button, the errors' wording.

pytest-qt windows on the real SmolLM2 pair and real broken files; settings
live in the test's own data folder, so a second window reads what the first saved.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.engine.llama.session import DrafterKind
from app.ui.chat.controller import Activity
from app.ui.settings.store import AppSettings, PairChoice
from tests.engine.model_files import write_gguf
from tests.ui.helpers import LOAD_TIMEOUT_MS, Recorder, load, pair_choice, send


def _broken(folder: Path) -> Path:
    path = folder / "broken-model.gguf"
    path.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\x00" * 40)
    return path


def _load_failing(qtbot: QtBot, window, choice: PairChoice) -> str:
    recorder = Recorder(window)
    window.load_pair(choice)
    qtbot.waitUntil(lambda: bool(recorder.errors), timeout=LOAD_TIMEOUT_MS)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=30_000)
    return recorder.errors[-1]


def test_a_pair_that_fails_to_load_is_not_saved_and_no_label_goes_stale(make_window, small_pair, tmp_path, qtbot):
    window = make_window()
    good = pair_choice(small_pair)
    load(qtbot, window, good)
    assert AppSettings().pair() == good
    assert window.picker.status.text().startswith("loaded in ")

    broken = PairChoice(_broken(tmp_path), None, DrafterKind.NGRAM)
    _load_failing(qtbot, window, broken)
    assert AppSettings().pair() == good  # the last pair that loaded stays the default
    assert window.pair_status.text() == "no pair loaded"
    status = window.picker.status.text()
    assert "broken-model.gguf did not load" in status and "loaded in" not in status and "loading" not in status

    # The next start offers the pair that worked, not the one that failed (with the new chat's drafter, its own).
    second = make_window()
    picker = second.picker
    qtbot.waitUntil(lambda: picker.report is not None, timeout=120_000)
    assert picker.choice() == PairChoice(good.target, good.draft, second.controller.chat_settings().drafter)


def test_a_default_pair_that_no_longer_loads_is_forgotten(make_window, small_pair, tmp_path, qtbot):
    broken = PairChoice(_broken(tmp_path), None, DrafterKind.NGRAM)
    AppSettings().set_pair(broken)  # saved by an earlier run, damaged since
    window = make_window(autoload=True)
    qtbot.waitUntil(lambda: window.chat.banner.isVisible(), timeout=LOAD_TIMEOUT_MS)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=30_000)
    assert AppSettings().pair() is None
    assert window.pair_status.text() == "no pair loaded"


@pytest.fixture
def models_with_a_broken_target(small_pair, tmp_path, monkeypatch) -> Path:
    """A models folder with the small pair (linked) and a file that is not a model."""
    folder = tmp_path / "models"
    folder.mkdir()
    for path in small_pair:
        (folder / path.name).symlink_to(path)
    broken = folder / "unreadable.gguf"
    broken.write_bytes(b"this is not a model file at all" * 4)
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(folder))
    return broken


def test_load_stays_disabled_for_an_unreadable_target_whatever_the_drafter(
    make_window, models_with_a_broken_target, qtbot
):
    window = make_window()
    picker = window.picker
    picker.refresh(PairChoice(models_with_a_broken_target, None, DrafterKind.NGRAM))
    qtbot.waitUntil(lambda: "Cannot read the target" in picker.verdict.text(), timeout=120_000)
    for kind in (DrafterKind.NGRAM, DrafterKind.NONE, DrafterKind.MODEL, DrafterKind.NGRAM):
        picker.kind_buttons[kind].setChecked(True)
        assert not picker.load_button.isEnabled(), kind
        assert "Cannot read the target" in picker.verdict.text(), kind


def test_a_draft_chosen_by_hand_that_does_not_fit_says_why(make_window, small_pair, tmp_path, qtbot):
    window = make_window()
    picker = window.picker
    picker.refresh(pair_choice(small_pair))
    qtbot.waitUntil(lambda: picker.report is not None, timeout=120_000)
    other = write_gguf(tmp_path / "other-vocab.gguf")
    picker.add_model(other, as_draft=True)
    qtbot.waitUntil(lambda: "cannot draft" in picker.status.text(), timeout=120_000)
    status = picker.status.text()
    assert status.startswith(f"✗ other-vocab.gguf cannot draft for {small_pair[0].name}")
    assert "vocabulary" in status


def test_the_windows_context_errors_name_its_own_setting(make_window, small_pair, qtbot):
    window = make_window()
    window.settings_panel.n_ctx.setValue(256)
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, pair_choice(small_pair))
    recorder = Recorder(window)
    window.chat.prompt.setPlainText("Please summarise this. " + "The river runs to the sea. " * 80)
    window.chat.send_button.click()
    qtbot.waitUntil(lambda: bool(recorder.errors), timeout=120_000)
    message = window.chat.banner.text.text()
    assert '"Context size" in the Settings tab' in message and "--ctx" not in message


def test_a_stopped_sweep_run_is_no_data_point_and_the_window_returns_to_idle(make_window, small_pair, qtbot):
    window = make_window()
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, pair_choice(small_pair))
    send(qtbot, window, "Count from one to ten.")
    sweep = window.tools.run_sweep((0.0, 0.5, 1.0), max_tokens=400)
    assert sweep is not None
    qtbot.waitUntil(lambda: sweep.progress_label.text().startswith("run 1 of 3"), timeout=120_000)
    sweep.stop_button.click()
    qtbot.waitUntil(lambda: sweep.complete, timeout=300_000)
    assert sweep.points() == []  # the first run was cut short: it is not a point at temperature 0
    assert sweep.chart.series == [] or sweep.chart.series[0].points == []
    assert sweep.progress_label.text() == "stopped: 0 runs finished"
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=30_000)
    sweep.close()
    assert send(qtbot, window, "Say hi.").text.strip()
