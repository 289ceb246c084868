"""The Model tab and first run: draft ranking with reasons, the memory meter, the welcome panel, pre-flight."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.engine.llama.model import gpu_offload_supported
from app.engine.llama.session import DrafterKind
from app.ui.models.memory_sources import estimate_state
from app.ui.settings.store import GenerationSettings, PairChoice
from tests.engine.model_files import write_gguf
from tests.ui.helpers import load, pair_choice, send


def test_picker_ranks_drafts_explains_misfits_and_meter_estimates(make_window, small_pair, tmp_path, qtbot):
    window = make_window()
    picker = window.picker
    picker.refresh(pair_choice(small_pair))
    qtbot.waitUntil(lambda: picker.report is not None, timeout=120_000)
    first = picker.options[0]
    assert first.compatible and first.path == small_pair[1]
    assert picker.report.compatible
    assert "Compatible" in picker.verdict.text()
    assert picker.load_button.isEnabled()

    # A model with another vocabulary is listed after the compatible ones, with the rule it breaks.
    other = write_gguf(tmp_path / "other-vocab.gguf")
    picker.add_model(other, as_draft=True)
    qtbot.waitUntil(lambda: any(o.path == other for o in picker.options) and picker.report is not None, timeout=120_000)
    misfit = next(o for o in picker.options if o.path == other)
    assert not misfit.compatible and "vocabulary" in misfit.reason
    assert picker.options.index(misfit) > picker.options.index(first)
    assert picker.choice().draft == small_pair[1]  # an incompatible file is never preselected

    # The memory meter estimates both models and both caches against this machine's RAM.
    def labels() -> set[str]:
        return {label for bar in window.memory.state.bars for label, _ in bar.segments}

    wanted = {"target weights", "draft weights", "target KV cache", "draft KV cache"}
    qtbot.waitUntil(lambda: window.memory.state.source == "estimate" and wanted <= labels(), timeout=120_000)
    assert window.memory.state.bars[0].budget and window.memory.state.level in ("fits", "tight")

    load(qtbot, window, picker.choice())
    qtbot.waitUntil(lambda: window.memory.state.source == "measured", timeout=60_000)
    measured = dict(window.memory.state.bars[0].segments)
    assert measured["target weights"] > 0.5 * small_pair[0].stat().st_size


def test_first_run_welcome_then_a_local_model(make_window, small_pair, monkeypatch, tmp_path, qtbot):
    empty = tmp_path / "no-models"
    empty.mkdir()
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(empty))
    window = make_window()
    assert window.stack.currentWidget() is window.welcome
    assert window.welcome.catalog.count() > 0  # curated pairs to download

    added = []
    window.welcome.model_added.connect(added.append)
    window.welcome.add_file(small_pair[0])
    qtbot.waitUntil(lambda: bool(added), timeout=60_000)
    assert window.stack.currentWidget() is window.chat
    qtbot.waitUntil(lambda: window.picker.choice() is not None, timeout=60_000)
    choice = window.picker.choice()
    assert choice == PairChoice(small_pair[0], None, DrafterKind.NGRAM)
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, choice)
    assert send(qtbot, window, "Say hello.").text.strip()


def test_preflight_sets_the_baseline(make_window, small_pair, qtbot):
    window = make_window()
    load(qtbot, window, pair_choice(small_pair))
    dialog = window.tools.run_preflight()
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.complete, timeout=600_000)
    assert dialog.report is not None
    assert dialog.recommendation.text()
    assert "target-only" in window.stats.baseline_note.text() and "pre-flight" in window.stats.baseline_note.text()
    dialog.close()


@pytest.mark.skipif(gpu_offload_supported(), reason="this llama.cpp build can offload")
def test_meter_and_memory_command_agree_when_gpu_layers_cannot_be_offloaded(
    small_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Both build the estimate through plan_pair: same bytes, same verdict, same no-offload note."""
    target, draft = small_pair
    settings = GenerationSettings(n_ctx=2048, n_gpu_layers=10, n_gpu_layers_draft=5)
    state = estimate_state(PairChoice(target, draft, DrafterKind.MODEL), settings)
    args = ["memory", "--target", str(target), "--draft", str(draft), "--ctx", "2048", "--ngl", "10", "--ngld", "5"]
    assert main([*args, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [bar.device for bar in state.bars] == ["System RAM"]  # no GPU bar: nothing was offloaded
    assert sum(bar.used for bar in state.bars) == payload["total_bytes"]
    assert any("cannot offload" in note for note in state.notes)
    assert any("cannot offload" in note for note in payload["notes"])
    assert state.level == {"fits": "fits", "tight": "tight", "does_not_fit": "too big"}[payload["verdict"]["status"]]
