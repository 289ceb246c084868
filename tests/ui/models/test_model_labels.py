"""The picker's labels for real model files: two copies of one model, and pre-flight's cheaper copy, read apart."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.engine.llama.quantize import make_cheaper_draft
from app.engine.llama.session import DrafterKind
from app.ui.main_window import MainWindow
from app.ui.models.library import draft_options, local_models
from app.ui.settings.store import PairChoice


@dataclass(frozen=True)
class Folder:
    """A models folder with the small pair, a second copy of its draft and pre-flight's cheaper copy."""

    path: Path
    target: Path
    draft: Path
    twin: Path  # the same model, quant and size as ``draft`` under another name
    cheaper: Path  # a Q4_0 copy, like the plain draft


@pytest.fixture
def folder(small_pair: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Folder:
    root = tmp_path / "models"
    root.mkdir()
    for path in small_pair:
        shutil.copy(path, root / path.name)
    twin = root / f"backup-{small_pair[1].name}"
    shutil.copy(small_pair[1], twin)
    cheaper = make_cheaper_draft(root / small_pair[0].name, root)
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(root))
    return Folder(root, root / small_pair[0].name, root / small_pair[1].name, twin, cheaper)


def test_copies_of_one_model_and_the_cheaper_draft_get_labels_of_their_own(folder: Folder) -> None:
    target, draft, twin, cheaper = folder.target, folder.draft, folder.twin, folder.cheaper
    labels = {m.path.name: m.label for m in local_models() if m.path.parent == folder.path}
    assert set(labels) == {target.name, draft.name, twin.name, cheaper.name}
    assert len(set(labels.values())) == 4, labels
    assert twin.name in labels[twin.name] and draft.name in labels[draft.name]  # only the file names differ
    assert "cheaper copy" in labels[cheaper.name] and "Q4_0" in labels[cheaper.name]
    assert cheaper.name not in labels[cheaper.name]  # already told apart: no file name needed
    assert not any("cheaper copy" in labels[n] for n in (target.name, draft.name, twin.name))

    options = [o for o in draft_options(target).options if o.path is not None and o.path.parent == folder.path]
    shown = {o.path.name: o.label for o in options if o.path is not None}
    assert {draft.name, twin.name, cheaper.name} <= set(shown)
    assert len({shown[n] for n in (draft.name, twin.name, cheaper.name)}) == 3, shown
    assert "cheaper copy" in shown[cheaper.name]


def test_the_picker_lists_them_apart_and_names_each_file_in_its_tooltip(
    make_window: Callable[..., MainWindow], folder: Folder, qtbot: QtBot
) -> None:
    window = make_window()
    window.picker.refresh(PairChoice(folder.target, folder.twin, DrafterKind.HYBRID))
    box = window.picker.draft
    qtbot.waitUntil(lambda: box.count() >= 3, timeout=60_000)
    texts = [box.itemText(i) for i in range(box.count())]
    tips = [str(box.itemData(i, Qt.ItemDataRole.ToolTipRole)) for i in range(box.count())]
    assert len(set(texts)) == len(texts), texts
    for name in (folder.draft.name, folder.twin.name, folder.cheaper.name):
        assert any(tip.startswith(f"{name}: ") for tip in tips), tips
    assert folder.twin.name in box.currentText()  # the copy asked for is the one selected
