"""The models folder's size and removing models from it, on real files in a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from app.core.display.units import format_bytes
from app.core.errors import TandemError
from app.engine.models.library import add_local_model, folder_usage, list_local_models, remove_model
from tests.engine.model_files import write_gguf


@pytest.fixture
def folder(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "models"
    path.mkdir()
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(path))
    return path


def _sizes(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths)


def test_usage_counts_models_and_unfinished_downloads(folder: Path, tmp_path: Path) -> None:
    a = write_gguf(folder / "a.gguf")
    (folder / "sub").mkdir()
    b = write_gguf(folder / "sub" / "b.gguf")
    partial = folder / "c.gguf.0123456789abcdef.partial"
    partial.write_bytes(b"x" * 5000)
    (folder / ".tandem-locks").mkdir()
    (folder / ".tandem-locks" / "a.gguf.lock").write_bytes(b"x" * 100_000)  # hidden: not counted
    usage = folder_usage()
    assert (usage.folder, usage.model_files, usage.partial_bytes) == (folder, 2, 5000)
    assert usage.total_bytes == _sizes([a, b, partial])


def test_removing_a_model_deletes_it_and_its_partials_and_reports_the_space(folder: Path) -> None:
    keep = write_gguf(folder / "keep.gguf")
    gone = write_gguf(folder / "gone.gguf")
    leftover = folder / "gone.gguf.fedcba9876543210.partial"
    leftover.write_bytes(b"x" * 1234)
    expected = _sizes([gone, leftover])
    removal = remove_model(gone)
    assert removal.freed_bytes == expected and not removal.forgotten
    assert sorted(p.name for p in removal.deleted) == ["gone.gguf", "gone.gguf.fedcba9876543210.partial"]
    assert sorted(p.name for p in folder.iterdir()) == [keep.name]


def test_removing_one_shard_removes_the_whole_split_model(folder: Path) -> None:
    shards = [write_gguf(folder / f"big-Q8_0-0000{i}-of-00003.gguf") for i in (1, 2, 3)]
    other = write_gguf(folder / "big-Q8_0-00001-of-00002.gguf")  # another split set of the same stem
    total = _sizes(shards)
    removal = remove_model(shards[1])
    assert removal.freed_bytes == total and len(removal.deleted) == 3
    assert [p.name for p in folder.iterdir()] == [other.name]


def test_a_model_outside_the_folder_is_forgotten_not_deleted(folder: Path, tmp_path: Path) -> None:
    outside = write_gguf(tmp_path / "elsewhere.gguf")
    add_local_model(outside)
    removal = remove_model(outside)
    assert removal.forgotten and removal.freed_bytes == 0 and removal.deleted == ()
    assert outside.is_file()
    assert outside not in [m.path for m in list_local_models()]
    with pytest.raises(TandemError, match="no model file at"):
        remove_model(folder / "missing.gguf")


def test_cli_remove_says_what_it_freed_and_list_shows_the_folder_size(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # other tools' folders are empty
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    model = write_gguf(folder / "m.gguf")
    write_gguf(folder / "n.gguf")
    size = model.stat().st_size
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith(f"models folder: {folder}, ") and out.endswith(" in 2 files\n")
    assert main(["models", "remove", str(model)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"deleted {model}"
    assert out[1] == f"freed {format_bytes(size)}" and not model.exists()
    assert out[2].endswith(" in 1 file")
