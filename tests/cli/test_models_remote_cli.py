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

ROOT = Path(__file__).resolve().parents[2]
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
