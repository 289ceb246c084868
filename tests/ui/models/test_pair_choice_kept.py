"""Only the user changes the chosen pair: the default draft is smaller than the target, and rescans keep the pair."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.engine.llama.session import DrafterKind
from app.ui.main_window import MainWindow
from app.ui.settings.store import PairChoice
from tests.engine.hub_server import FakeHub, running_hub
from tests.engine.model_files import write_gguf


@pytest.fixture
def models(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, small_pair: tuple[Path, Path]
) -> Iterator[tuple[FakeHub, Path, list[Path]]]:
    """A stand-in Hub and a models folder with the small pair's target and two copies of its draft."""
    folder = tmp_path / "models"
    folder.mkdir()
    target = Path(shutil.copy2(small_pair[0], folder / small_pair[0].name))
    drafts = [Path(shutil.copy2(small_pair[1], folder / name)) for name in ("draft-a.gguf", "draft-b.gguf")]
    with running_hub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.setenv("TANDEM_MODELS_DIR", str(folder))
        monkeypatch.setenv("HOME", str(tmp_path))  # no other tool's folders
        monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
        yield hub, target, drafts


def test_a_discover_download_leaves_the_chosen_pair_alone(
    make_window: Callable[..., MainWindow], models: tuple[FakeHub, Path, list[Path]], tmp_path: Path, qtbot: QtBot
) -> None:
    hub, target, drafts = models
    window = make_window()
    picker = window.picker
    picker.refresh(PairChoice(target, drafts[0], DrafterKind.HYBRID))
    qtbot.waitUntil(lambda: picker.report is not None, timeout=120_000)
    # The user picks the other copy: the one the list does not put first.
    other = next(o for o in picker.options[1:] if o.compatible and o.path in drafts)
    picker.draft.setCurrentIndex(picker.options.index(other))
    qtbot.waitUntil(lambda: picker.report is not None and picker.choice() is not None, timeout=120_000)
    chosen = picker.choice()
    assert chosen is not None and chosen.draft == other.path and chosen.drafter is DrafterKind.HYBRID

    hub.add("org/New-GGUF", "new-Q8_0.gguf", write_gguf(tmp_path / "new.gguf", name="Brand New").read_bytes())
    window.discover.download("org/New-GGUF/new-Q8_0.gguf")
    box = picker.target
    qtbot.waitUntil(lambda: any("Brand New" in box.itemText(i) for i in range(box.count())), timeout=120_000)
    qtbot.waitUntil(lambda: picker.report is not None, timeout=120_000)
    assert picker.choice() == chosen


def test_a_draft_as_large_as_the_target_is_never_the_default(
    make_window: Callable[..., MainWindow], models: tuple[FakeHub, Path, list[Path]], qtbot: QtBot
) -> None:
    _hub, target, drafts = models
    window = make_window()
    picker = window.picker
    picker.refresh(PairChoice(target, None, DrafterKind.HYBRID))  # no draft named: the default rule decides
    qtbot.waitUntil(lambda: any(o.path in drafts for o in picker.options), timeout=120_000)
    qtbot.waitUntil(lambda: picker.drafter_kind() is DrafterKind.NGRAM, timeout=60_000)
    assert "no compatible draft is smaller than the target" in picker.fallback_reason
    assert "smaller than the target" in picker.verdict.text()
    labels = [picker.draft.itemText(i) for i in range(picker.draft.count())]
    assert labels and all("·  as large as the target" in text for text in labels), labels
    # The Model tab spells the real files' family as its makers do, not as the converter title-cased it.
    targets = [picker.target.itemText(i) for i in range(picker.target.count())]
    assert all(text.startswith("SmolLM2 135M") for text in labels + targets), (labels, targets)
    choice = picker.choice()
    assert choice is not None and choice.draft is None
