"""`tandem models inspect/check` on files still on the Hub: same output and exit codes as for local files.

A real stand-in Hub on 127.0.0.1 (tests/engine/hub_server.py) serves the
real Qwen2.5-Coder pair and a SmolLM2 file from disk; the CLI runs in this
process through its entry point, and once as a subprocess to see the
one-line error a user sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import main
from tests.engine.hub_server import FakeHub, running_hub
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
TARGET = "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
DRAFT = "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
OTHER = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct.Q4_0.gguf"


@pytest.fixture
def hub(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path, demo_pair: tuple[Path, Path], small_pair: tuple[Path, Path]
) -> Iterator[FakeHub]:
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        for spec, path in ((TARGET, demo_pair[0]), (DRAFT, demo_pair[1]), (OTHER, small_pair[1])):
            owner, name, filename = spec.split("/", 2)
            state.add_path(f"{owner}/{name}", filename, path)
        yield state


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["models", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_inspect_a_remote_file_shows_the_local_facts_and_what_was_read(
    capsys: pytest.CaptureFixture[str], hub: FakeHub, demo_pair: tuple[Path, Path]
) -> None:
    code, out, _ = _run(capsys, "inspect", TARGET)
    assert code == 0
    assert f"{TARGET} on the Hub (1,117,320,768 bytes, GGUF v3), not downloaded" in out
    assert "vocabulary:      151,936 tokens, gpt2 / qwen2" in out
    assert "header read:     5,950,506 bytes (0.53% of the file), 8,388,608 bytes transferred" in out
    _, local, _ = _run(capsys, "inspect", str(demo_pair[0]))
    assert out.splitlines()[1:-1] == local.splitlines()[1:]  # every fact but the file line and the read line
    code, out, _ = _run(capsys, "inspect", TARGET, "--json")
    data = json.loads(out)
    assert code == 0 and data["n_vocab"] == 151_936
    assert data["remote"]["cached"] is True and data["remote"]["header_bytes"] == 5_950_506


def test_check_with_remote_files_exits_0_or_1_with_evidence(capsys: pytest.CaptureFixture[str], hub: FakeHub) -> None:
    code, out, _ = _run(capsys, "check", TARGET, DRAFT)
    assert (code, out.splitlines()[0]) == (0, "compatible")
    code, out, _ = _run(capsys, "check", TARGET, OTHER, "--json")
    data = json.loads(out)
    assert code == 1 and not data["compatible"]
    assert "token 5 is '&' in the target" in next(p["detail"] for p in data["problems"] if p["rule"] == "token text")


def test_a_missing_remote_file_is_one_line_and_exit_2(hub: FakeHub, data_dir: Path) -> None:
    env = {**os.environ, "HF_ENDPOINT": hub.url, "TANDEM_DATA_DIR": str(data_dir)}
    result = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "models", "inspect", "Qwen/Nope-GGUF/nope.gguf"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: repository Qwen/Nope-GGUF was not found on {hub.url} (if it is private, pass a token)"
    ]


@pytest.fixture
def bare_hub(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Iterator[FakeHub]:
    """A stand-in Hub with no files yet."""
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        yield state


def test_search_prints_ranked_repos_and_the_next_page(capsys: pytest.CaptureFixture[str], bare_hub: FakeHub) -> None:
    for n, repo in enumerate(["a/One-GGUF", "b/Two-GGUF", "c/Three-GGUF"]):
        bare_hub.set_info(repo, downloads=100 * (n + 1), likes=n, lastModified="2025-01-02T00:00:00.000Z")
    bare_hub.gated["a/One-GGUF"] = "hf_x"
    bare_hub.set_info("a/One-GGUF", gated="manual")
    code, out, _ = _run(capsys, "search", "gguf", "--limit", "2")
    assert code == 0
    assert out.splitlines() == [
        "  1. c/Three-GGUF  (300 downloads, 2 likes, updated 2025-01-02)",
        "  2. b/Two-GGUF  (200 downloads, 1 likes, updated 2025-01-02)",
        "more: add --page 1",
    ]
    code, out, _ = _run(capsys, "search", "gguf", "--limit", "2", "--page", "1", "--json")
    data = json.loads(out)
    assert [r["repo_id"] for r in data["results"]] == ["a/One-GGUF"] and data["results"][0]["gated"] is True
    assert data["has_more"] is False


def test_files_prints_quantisations_and_exact_sizes(capsys: pytest.CaptureFixture[str], bare_hub: FakeHub) -> None:
    digest = bare_hub.add("a/M-GGUF", "m-Q4_K_M.gguf", b"GGUF" + b"\0" * 2044)
    bare_hub.add("a/M-GGUF", "m-F16-00001-of-00002.gguf", b"x" * 4096)
    bare_hub.add("a/M-GGUF", "m-F16-00002-of-00002.gguf", b"x" * 4096)
    code, out, _ = _run(capsys, "files", "a/M-GGUF")
    assert code == 0
    assert out.splitlines() == [
        "m-Q4_K_M.gguf  [Q4_K_M, 2 KiB (2,048 bytes)]",
        "m-F16-00001-of-00002.gguf  [F16, 8 KiB (8,192 bytes), 2 parts]",
        "download one with: models download a/M-GGUF/FILE",
    ]
    code, out, _ = _run(capsys, "files", "a/M-GGUF", "--json")
    assert json.loads(out)[0]["parts"] == [{"filename": "m-Q4_K_M.gguf", "size": 2048, "sha256": digest}]


def test_download_any_hub_file_by_repo_and_path(
    capsys: pytest.CaptureFixture[str], bare_hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.engine.model_files import write_gguf

    models = tmp_path / "models"
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(models))
    bare_hub.add("a/M-GGUF", "sub/m-F32.gguf", write_gguf(tmp_path / "m.gguf").read_bytes())
    code, out, _ = _run(capsys, "download", "a/M-GGUF/sub/m-F32.gguf")
    assert (code, out) == (0, f"downloaded: {models / 'm-F32.gguf'}\n")
    assert (models / "m-F32.gguf").read_bytes() == (tmp_path / "m.gguf").read_bytes()


def test_find_draft_lists_and_downloads_the_best(
    capsys: pytest.CaptureFixture[str],
    bare_hub: FakeHub,
    demo_pair: tuple[Path, Path],
    small_pair: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.engine.model_files import copy_tokenizer

    models = tmp_path / "models"
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(models))
    tiny = copy_tokenizer(demo_pair[1], tmp_path / "tiny.gguf")
    bare_hub.add_path("someone/Qwen2.5-Coder-Tiny-GGUF", "tiny-Q4_K_M.gguf", tiny)
    bare_hub.add_path("someone/Qwen2.5-Coder-Smol-GGUF", "smol-Q4_0.gguf", small_pair[1])
    code, out, _ = _run(capsys, "find-draft", str(demo_pair[0]), "--json")
    data = json.loads(out)
    assert code == 0 and data["query"] == "Qwen2.5-Coder"
    assert [(c["spec"], c["compatible"]) for c in data["candidates"]] == [
        ("someone/Qwen2.5-Coder-Tiny-GGUF/tiny-Q4_K_M.gguf", True),
        ("someone/Qwen2.5-Coder-Smol-GGUF/smol-Q4_0.gguf", False),
    ]
    assert data["candidates"][0]["predicted_speedup"] > 0 and data["candidates"][0]["draft_length"] >= 1
    code, out, err = _run(capsys, "find-draft", str(demo_pair[0]), "--download")
    assert code == 0, err
    assert out.splitlines()[1] == "1. someone/Qwen2.5-Coder-Tiny-GGUF/tiny-Q4_K_M.gguf"
    assert out.splitlines()[-1] == f"downloaded: {models / 'tiny-Q4_K_M.gguf'}"
    assert (models / "tiny-Q4_K_M.gguf").read_bytes() == tiny.read_bytes()
