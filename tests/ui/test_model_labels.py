"""The picker's labels for real model files: two copies of one model, and pre-flight's cheaper copy, read apart."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.engine.llama.quantize import make_cheaper_draft
from app.engine.llama.session import DrafterKind
from app.ui.main_window import MainWindow
from app.ui.models.library import draft_options, local_models
from app.ui.settings.store import PairChoice
from tests.ui.helpers import wait_until


def test_copies_of_one_model_and_the_cheaper_draft_get_labels_of_their_own(
    small_pair: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    target, draft = small_pair
    folder = tmp_path / "models"
    folder.mkdir()
    for path in (target, draft):
        shutil.copy(path, folder / path.name)
    twin = folder / f"backup-{draft.name}"
    shutil.copy(draft, twin)  # the same model, quant and size under another name
    cheaper = make_cheaper_draft(folder / target.name, folder)  # a Q4_0 copy, like the plain draft
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(folder))

    labels = {m.path.name: m.label for m in local_models() if m.path.parent == folder}
    assert set(labels) == {target.name, draft.name, twin.name, cheaper.name}
    assert len(set(labels.values())) == 4, labels
    assert twin.name in labels[twin.name] and draft.name in labels[draft.name]  # only the file names differ
    assert "cheaper copy" in labels[cheaper.name] and "Q4_0" in labels[cheaper.name]
    assert cheaper.name not in labels[cheaper.name]  # already told apart: no file name needed
    assert not any("cheaper copy" in labels[n] for n in (target.name, draft.name, twin.name))

    options = [o for o in draft_options(folder / target.name) if o.path is not None and o.path.parent == folder]
    shown = {o.path.name: o.label for o in options if o.path is not None}
    assert {draft.name, twin.name, cheaper.name} <= set(shown)
    assert len({shown[n] for n in (draft.name, twin.name, cheaper.name)}) == 3, shown
    assert "cheaper copy" in shown[cheaper.name]


def test_the_picker_lists_them_apart_and_names_each_file_in_its_tooltip(
    make_window: Callable[..., MainWindow],
    small_pair: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target, draft = small_pair
    folder = tmp_path / "models"
    folder.mkdir()
    for path in (target, draft):
        shutil.copy(path, folder / path.name)
    twin = folder / f"backup-{draft.name}"
    shutil.copy(draft, twin)
    cheaper = make_cheaper_draft(folder / target.name, folder)
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(folder))
    window = make_window()
    window.picker.refresh(PairChoice(folder / target.name, twin, DrafterKind.HYBRID))
    box = window.picker.draft
    wait_until(lambda: box.count() >= 3, 60, "the draft list")
    texts = [box.itemText(i) for i in range(box.count())]
    tips = [str(box.itemData(i, Qt.ItemDataRole.ToolTipRole)) for i in range(box.count())]
    assert len(set(texts)) == len(texts), texts
    for name in (draft.name, twin.name, cheaper.name):
        assert any(tip.startswith(f"{name}: ") for tip in tips), tips
    assert twin.name in box.currentText()  # the copy asked for is the one selected
