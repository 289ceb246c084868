"""The Model tab, welcome panel, Discover and the memory meter in German: the engine's words and numbers localised.

The real catalogue is installed the way ``tests/ui/test_translation.py`` does;
the pair picker and the meter read the SmolLM2 pair (no engine faked). Each
test also checks that the English sentence (``str``: CLI, logs) is unchanged.
"""

from __future__ import annotations

import re
import shutil
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core.display.units import GIB, MIB, bytes_words
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.memory.estimate import Device
from app.core.memory.verdict import DeviceVerdict, MemoryVerdict
from app.core.pairing.catalog import ratio_words
from app.core.pairing.compatibility import VocabInfo, check_pair
from app.engine.gguf.header import ModelFileError, read_header
from app.engine.hub.download import _check_cancel as check_cancel
from app.engine.hub.progress import DownloadCancelledError, DownloadProgress
from app.engine.llama.session import DrafterKind
from app.ui.i18n.words import say, say_error
from app.ui.models.discover_panel import DiscoverPanel
from app.ui.models.memory_sources import estimate_state
from app.ui.models.pair_picker import PairPicker
from app.ui.models.welcome_panel import WelcomePanel
from app.ui.settings.store import GenerationSettings, PairChoice
from app.ui.threads.background import Background


def _vocab(size: int, offset: int = 0) -> VocabInfo:
    return VocabInfo("gpt2", [f"t{i + offset}" for i in range(size)], 1, 2, False, False)


def test_a_failed_rule_and_its_evidence_read_in_german(german: None) -> None:
    report = check_pair(_vocab(1000), _vocab(2000, offset=1))
    size = report.problems[0]
    assert say(size.rule_words) == "Vokabulargröße"
    assert say(size.detail_words) == (
        "das Zielmodell hat 1.000 Tokens und das Draft-Modell 2.000: 1.000 Unterschied, mehr als 128"
    )
    assert str(size) == "vocabulary size: the target has 1,000 tokens and the draft 2,000: 1,000 apart, more than 128"
    text = report.problems[1]
    assert say(text.detail_words).startswith("Token 5 ist im Zielmodell 't5', im Draft-Modell aber ")
    assert text.rule == "token text"


def test_sizes_ratios_and_the_memory_verdict_read_in_german(german: None) -> None:
    assert say(bytes_words(1.5 * GIB)) == "1,50 GiB"
    assert str(bytes_words(1.5 * GIB)) == "1.50 GiB"
    assert say(ratio_words(1000, 700)) == "70% der Größe des Zielmodells (groß: jeder Draft-Token kostet mehr)"
    assert say(ratio_words(4000, 1000)) == "1/4 der Größe des Zielmodells"
    assert str(ratio_words(4000, 1000)) == "1/4 of the target's size"
    advice = QT_TRANSLATE_NOOP("MemoryVerdict", "reduce context to {n_ctx}").fill(n_ctx=8192)
    verdict = MemoryVerdict(
        (DeviceVerdict(Device.CPU, "tight", int(1.5 * GIB), int(1.6 * GIB), int(0.1 * GIB), (advice,)),)
    )
    assert say(verdict.message_words({"cpu": "RAM"})) == "RAM: 1,50 GiB von 1,60 GiB (knapp)"
    assert say(verdict.advice_words[0]) == "Kontext auf 8192 verkleinern"
    assert verdict.message == "cpu: 1.50 GiB of 1.60 GiB (tight)"
    assert verdict.advice == ("reduce context to 8192",)


def test_the_meter_estimates_the_small_pair_in_german(german: None, small_pair: tuple[Path, Path]) -> None:
    state = estimate_state(PairChoice(*small_pair, DrafterKind.MODEL), GenerationSettings(2048, 0, 0))
    first = state.verdict.splitlines()[0]
    assert re.fullmatch(r"RAM: \d+ MiB von \d+,\d\d GiB \((passt|knapp|passt nicht)\)", first), state.verdict
    assert state.bars[0].device == "Arbeitsspeicher"


@pytest.fixture
def as_large(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, small_pair: tuple[Path, Path]) -> Path:
    """A models folder with the small pair's target and a copy of its draft (as many weights: no default draft)."""
    folder = tmp_path / "models"
    folder.mkdir()
    target = Path(shutil.copy2(small_pair[0], folder / small_pair[0].name))
    shutil.copy2(small_pair[1], folder / "draft-a.gguf")
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(folder))
    monkeypatch.setenv("HOME", str(tmp_path))  # no other tool's folders
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    return target


def test_the_pair_picker_says_why_no_draft_in_german(german: None, as_large: Path, qtbot: QtBot) -> None:
    picker = PairPicker(Background())
    picker.refresh(PairChoice(as_large, None, DrafterKind.HYBRID))
    qtbot.waitUntil(lambda: picker.drafter_kind() is DrafterKind.NGRAM and bool(picker.options), timeout=120_000)
    assert "kein kompatibles Draft-Modell ist kleiner als das Zielmodell (" in picker.fallback_reason
    assert "kein kompatibles Draft-Modell ist kleiner" in picker.verdict.text()
    draft = next(o for o in picker.options if o.path is not None and o.path.name == "draft-a.gguf")
    assert draft.reason.startswith("kompatibel; nicht kleiner als das Zielmodell: kann es nicht beschleunigen")
    assert "auf der Festplatte (Modellordner)" in draft.reason
    assert "so groß wie das Zielmodell" in draft.label
    assert re.search(r"\d+ MiB", draft.label), draft.label


def test_download_progress_reads_in_german(german: None) -> None:
    panel = DiscoverPanel(Background())
    panel._show_progress(DownloadProgress("m.gguf", int(1.5 * GIB), 3 * GIB, 12.3 * MIB, 75.0))
    text = panel.status.text()
    assert text.startswith("lade herunter m.gguf: 1,50 GiB von 3,00 GiB, 12,3 MiB/s"), text

    welcome = WelcomePanel(Background())
    stage = QT_TRANSLATE_NOOP("ModelInstall", "fetching {name}").fill(name="x.gguf")
    welcome._progress((stage, int(1.5 * GIB), 3 * GIB))
    assert welcome.status.text() == "hole x.gguf: 1,50 GiB von 3,00 GiB"


def test_download_progress_stays_english_without_a_catalogue(qapp: QApplication) -> None:
    panel = DiscoverPanel(Background())
    panel._show_progress(DownloadProgress("m.gguf", int(1.5 * GIB), 3 * GIB, 12.3 * MIB, 75.0))
    assert panel.status.text().startswith("downloading m.gguf: 1.50 GiB of 3.00 GiB, 12.3 MiB/s")


def test_a_cancelled_download_and_a_bad_file_say_so_in_german(german: None, tmp_path: Path) -> None:
    panel = DiscoverPanel(Background())
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(DownloadCancelledError) as caught:
        check_cancel(cancel, "m.gguf", 1536)
    assert str(caught.value) == "download of m.gguf cancelled; 1,536 bytes are kept for a later resume"
    panel._download_failed(caught.value)
    assert panel.status.text().startswith(
        "Download von m.gguf abgebrochen; 1.536 Bytes bleiben für eine spätere Fortsetzung erhalten"
    ), panel.status.text()

    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGU")
    with pytest.raises(ModelFileError) as refused:
        read_header(bad)
    assert str(refused.value) == "bad.gguf is not a GGUF model file (only 3 bytes)"
    assert say_error(refused.value) == "bad.gguf ist keine GGUF-Modelldatei (nur 3 Bytes)"
