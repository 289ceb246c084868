"""Local model files: discovery in other apps' folders, the added-by-path registry, and draft ranking.

Each test gets a private home folder, Hugging Face cache and models folder,
populated with files written here and with links to the real model files
(so nothing large is copied), and never sees the user's own folders.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from app.engine.gguf.header import ModelFileError
from app.engine.models.library import (
    add_local_model,
    compatible_drafts,
    list_local_models,
    remove_local_model,
)
from app.engine.models.local import registry_path
from tests.engine.model_files import copy_tokenizer, write_gguf

COMMIT = "fedcba9876543210fedcba9876543210fedcba98"


@pytest.fixture
def home(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home, HF cache and models folder for one test."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    for variable in ("HF_HOME", "XDG_CACHE_HOME", "LLAMA_CACHE", "HUGGINGFACE_HUB_CACHE"):
        monkeypatch.delenv(variable, raising=False)
    return home


def _hf_cache_entry(cache: Path, repo: str, filename: str, source: Path) -> Path:
    """The HF cache layout: a blob, and a snapshot link to it (the blob links to ``source``)."""
    folder = cache / ("models--" + repo.replace("/", "--"))
    blob = folder / "blobs" / ("b" * 64)
    blob.parent.mkdir(parents=True)
    blob.symlink_to(source)
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text(COMMIT)
    snapshot = folder / "snapshots" / COMMIT / filename
    snapshot.parent.mkdir(parents=True)
    snapshot.symlink_to(Path("../../blobs") / blob.name)
    return snapshot


def _link(path: Path, source: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(source)
    return path


def test_lists_models_from_every_known_folder(home: Path, tmp_path: Path, small_pair: tuple[Path, Path]) -> None:
    models = tmp_path / "models"
    models.mkdir()
    tiny = write_gguf(models / "tiny.gguf")
    (models / "tiny.gguf.0123456789abcdef.partial").write_bytes(b"GGUF partial")  # a download in progress
    hidden = models / ".tandem-locks"
    hidden.mkdir()
    write_gguf(hidden / "hidden.gguf")
    snapshot = _hf_cache_entry(tmp_path / "hf-cache", "HuggingFaceTB/SmolLM2", "smol-q4_1.gguf", small_pair[0])
    lm_studio = _link(home / ".lmstudio" / "models" / "community" / "SmolLM2" / "smol-q4_0.gguf", small_pair[1])
    shelf = home / "models"
    shelf.mkdir()
    write_gguf(shelf / "mmproj-vision.gguf", arch="clip")  # a vision projector, not a model
    write_gguf(shelf / "big-00002-of-00003.gguf")  # a later shard
    first_shard = write_gguf(shelf / "big-00001-of-00003.gguf")

    listed = {m.path: m for m in list_local_models()}
    assert set(listed) == {tiny, snapshot, lm_studio, first_shard}
    assert listed[tiny].source == "models folder"
    assert listed[snapshot].source == "Hugging Face cache"
    assert listed[lm_studio].source == "LM Studio"
    assert listed[first_shard].source == "~/models"
    assert listed[snapshot].quant == "Q4_1" and listed[lm_studio].quant == "Q4_0"
    assert listed[snapshot].file_size == small_pair[0].stat().st_size


def test_broken_files_are_listed_with_the_reason(home: Path, tmp_path: Path, small_pair: tuple[Path, Path]) -> None:
    models = tmp_path / "models"
    models.mkdir()
    with small_pair[0].open("rb") as src:
        (models / "cut.gguf").write_bytes(src.read(5_000_000))
    (models / "text.gguf").write_text("hello")
    listed = {m.path.name: m for m in list_local_models()}
    assert not listed["cut.gguf"].ok and "truncated" in (listed["cut.gguf"].error or "")
    assert not listed["text.gguf"].ok and "not a GGUF model file" in (listed["text.gguf"].error or "")
    assert listed["cut.gguf"].quant == "?"


def test_listing_is_fast_once_cached(home: Path, tmp_path: Path, demo_pair: tuple[Path, Path]) -> None:
    _link(tmp_path / "models" / demo_pair[0].name, demo_pair[0])
    _link(tmp_path / "models" / demo_pair[1].name, demo_pair[1])
    start = time.perf_counter()
    first = list_local_models()
    cold = time.perf_counter() - start
    start = time.perf_counter()
    second = list_local_models()
    warm = time.perf_counter() - start
    print(f"\nlisting two Qwen files: {cold * 1000:.0f} ms cold, {warm * 1000:.1f} ms cached")
    assert [m.path for m in first] == [m.path for m in second]
    assert warm < cold / 5
    # The demo files are recognised as the catalog's exact demo entries.
    assert {m.catalog_id for m in first} == {"demo-qwen2.5-coder-1.5b", "demo-qwen2.5-coder-0.5b"}


def test_add_remove_and_the_registry_file(home: Path, tmp_path: Path, data_dir: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = write_gguf(elsewhere / "chosen.gguf", n_layers=4)
    model = add_local_model(path)
    assert model.source == "added" and model.inspection is not None and model.inspection.n_layers == 4
    registry = json.loads(registry_path().read_text())
    assert registry_path().parent == data_dir
    assert [e["path"] for e in registry["models"]] == [str(path)]
    add_local_model(path)  # adding twice keeps one entry
    assert len(json.loads(registry_path().read_text())["models"]) == 1
    assert [m.path for m in list_local_models() if m.source == "added"] == [path]
    assert remove_local_model(path) is True
    assert remove_local_model(path) is False
    assert list_local_models() == []
    assert path.is_file()  # forgetting a model never deletes the file


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"not a model at all", "not a GGUF model file"), (None, "model file not found")],
)
def test_adding_a_bad_file_is_refused(home: Path, tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "bad.gguf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ModelFileError, match=message):
        add_local_model(path)
    assert not registry_path().exists()


def test_adding_a_vision_projector_is_refused(home: Path, tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "projector.gguf", arch="clip")
    with pytest.raises(ModelFileError, match="vision projector"):
        add_local_model(path)


def test_a_file_reached_two_ways_is_listed_once(home: Path, tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    path = write_gguf(tmp_path / "models" / "one.gguf")
    add_local_model(path)
    _link(home / "models" / "alias.gguf", path)
    listed = list_local_models()
    assert [(m.path, m.source) for m in listed] == [(path, "models folder")]


def test_drafts_for_the_qwen_target_best_first(
    home: Path, tmp_path: Path, demo_pair: tuple[Path, Path], small_pair: tuple[Path, Path]
) -> None:
    target = _link(tmp_path / "models" / demo_pair[0].name, demo_pair[0])
    draft = _hf_cache_entry(
        tmp_path / "hf-cache", "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF", demo_pair[1].name, demo_pair[1]
    )
    smol = _link(home / "models" / "smol.gguf", small_pair[0])

    candidates = compatible_drafts(target)
    assert all(c.compatible for c in candidates)
    best = candidates[0]
    assert best.path == draft and best.is_local
    assert best.reason.startswith("compatible;") and "same family (Qwen2.5-Coder)" in best.reason
    downloadable = [c for c in candidates if not c.is_local]
    assert downloadable, "the catalog's smaller Qwen2.5 drafts should be offered"
    for c in downloadable:
        assert c.catalog_model is not None and c.catalog_model.n_vocab in (151_936, 152_064)
        assert c.n_params < 0.8 * 1_777_088_000  # never a model as large as the target
        assert "token texts not compared yet" in c.report.warnings[0]
    assert all(c.catalog_model.filename != demo_pair[1].name for c in downloadable if c.catalog_model)

    with_reasons = compatible_drafts(target, include_incompatible=True)
    assert [c.path for c in with_reasons if not c.compatible] == [smol]
    assert with_reasons[-1].reason.startswith("incompatible: vocabulary size: the target has 151,936 tokens")
    assert [c.path for c in compatible_drafts(target, include_catalog=False)] == [draft]


def test_drafts_rank_a_smaller_draft_above_a_same_size_one(
    home: Path, tmp_path: Path, small_pair: tuple[Path, Path]
) -> None:
    target = _link(tmp_path / "models" / "smol-q4_1.gguf", small_pair[0])
    same_size = _link(tmp_path / "models" / "smol-q4_0.gguf", small_pair[1])
    # SmolLM2's real tokenizer with 20M int8 weights: a real file about 1/7 of the target's 134.5M parameters.
    mini = copy_tokenizer(
        small_pair[0], tmp_path / "models" / "smol-mini.gguf", tensors={"blob": np.zeros(20_000_000, dtype=np.int8)}
    )
    candidates = compatible_drafts(target, include_catalog=False)
    assert [c.path for c in candidates] == [mini, same_size]
    assert candidates[0].reason == "compatible; 1/7 of the target's size; I8; on disk (models folder)"
    assert "not smaller than the target" in candidates[1].reason
    assert candidates[0].score > candidates[1].score
