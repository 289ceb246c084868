"""The picker's labels for real model files: two copies of one model, and pre-flight's cheaper copy, read apart."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.engine.llama.quantize import make_cheaper_draft
from app.ui.models.library import draft_options, local_models


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
