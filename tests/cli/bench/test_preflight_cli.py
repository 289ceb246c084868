"""`python main.py preflight --cheaper-draft` on the real SmolLM2 pair: made once in the models folder, measured."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import run_cli


def test_cheaper_draft_is_made_in_the_models_folder_and_measured(small_pair: tuple[Path, Path], tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    args = ["--target", str(small_pair[0]), "--draft", str(small_pair[1]), "--ctx", "512", "--threads", "1"]
    result = run_cli("preflight", *args, "--cheaper-draft", "--json", env={"TANDEM_MODELS_DIR": str(folder)})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)  # the whole report as one JSON object, the cheaper draft's verdict in it
    assert report["recommendation"] and len(report["verify_s"]) == 16 and report["wall_s"] > 0
    verdict = report["cheaper_draft"]
    assert verdict["measured"] is True and verdict["draft_per_token_s"] > 0
    made = Path(verdict["path"])
    assert made.parent == folder and made.name == "SmolLM2-135M-Instruct.Q4_0.requantized-Q4_0-output-Q4_0.gguf"
    assert sorted(p.name for p in folder.iterdir()) == [made.name]
    assert "costs" in verdict["text"] and "measured" in verdict["text"]


def test_cheaper_draft_needs_a_draft_model(small_pair: tuple[Path, Path]) -> None:
    result = run_cli("preflight", "--target", str(small_pair[0]), "--no-draft", "--cheaper-draft")
    assert result.returncode == 2 and "needs a draft model" in result.stderr
