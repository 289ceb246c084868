"""`main.py --selftest` from source: passes on the small pair, fails in one line on bad files."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.cli.selftest import NEAR_TIE_LOGIT_GAP, analyse_divergence
from tests.core.fakes import BigramLM
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT

# Runs main.py as `python main.py ...` would, then reports whether Qt was
# imported: the self-test must work on machines without a display or Qt.
_WRAPPER = """
import runpy, sys
sys.argv = ["main.py", *sys.argv[1:]]
try:
    runpy.run_path("main.py", run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print("PySide6 imported" if "PySide6" in sys.modules else "PySide6 not imported")
sys.exit(code)
"""


def run_selftest(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WRAPPER, "--selftest", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def assert_one_line_failure(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("selftest failed: ")
    for fragment in fragments:
        assert fragment in lines[0]


def test_selftest_passes_on_the_small_pair(small_pair: tuple[Path, Path]) -> None:
    result = run_selftest()
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "selftest passed" in out
    assert "SmolLM2-135M-Instruct.Q4_1.gguf (target)" in out
    assert "tok/s" in out
    drafted = re.search(r"acceptance \d+% \((\d+)/(\d+)\)", out)
    assert drafted and int(drafted.group(2)) > 0, out  # the draft-and-verify path really ran
    assert "PySide6 not imported" in out
    assert result.stderr.strip() == ""


def test_selftest_rejects_a_file_of_random_bytes(tmp_path: Path, small_pair: tuple[Path, Path]) -> None:
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(np.random.default_rng(7).bytes(256 * 1024))
    result = run_selftest("--selftest-target", str(junk), "--selftest-draft", str(small_pair[1]))
    assert_one_line_failure(result, "junk.gguf", "not a GGUF")


def test_selftest_rejects_a_truncated_model(tmp_path: Path, small_pair: tuple[Path, Path]) -> None:
    cut = tmp_path / "cut.gguf"
    with small_pair[0].open("rb") as source:
        cut.write_bytes(source.read(8 * 1024 * 1024))
    result = run_selftest("--selftest-target", str(small_pair[0]), "--selftest-draft", str(cut))
    assert_one_line_failure(result, "cut.gguf", "truncated")


def test_selftest_names_a_missing_model(tmp_path: Path) -> None:
    missing = tmp_path / "missing.gguf"
    result = run_selftest("--selftest-target", str(missing), "--selftest-draft", str(missing))
    assert_one_line_failure(result, "not found", str(missing))


def test_selftest_says_how_to_install_the_default_pair(tmp_path: Path) -> None:
    result = run_selftest(env={"TANDEM_MODELS_DIR": str(tmp_path)})
    assert_one_line_failure(result, "install-small", str(tmp_path))


def test_selftest_needs_both_paths(tmp_path: Path) -> None:
    result = run_selftest("--selftest-target", str(tmp_path / "a.gguf"))
    assert_one_line_failure(result, "--selftest-draft")


def _model_with_row(row: list[float], eog: int | None = None) -> BigramLM:
    # Every token predicts the same next-token logits, so the row under test is
    # what the target sees at any position.
    return BigramLM(np.tile(np.asarray(row, dtype=np.float32), (len(row), 1)), eog=eog)


def test_divergence_between_the_two_best_close_tokens_is_a_near_tie() -> None:
    model = _model_with_row([0.0, 5.0, 5.0 - NEAR_TIE_LOGIT_GAP / 2, 1.0])
    div = analyse_divergence(model, [3, 3], [1, 1, 1], [1, 1, 2], 2)
    assert (div.position, div.baseline, div.speculative) == (2, 1, 2)
    assert div.top_two == (1, 2)
    assert div.gap == pytest.approx(NEAR_TIE_LOGIT_GAP / 2)
    assert div.near_tie
    assert model.kv_tokens == [3, 3, 1, 1]  # evaluated exactly on the shared prefix


def test_divergence_with_a_clear_winner_is_not_a_near_tie() -> None:
    div = analyse_divergence(_model_with_row([0.0, 8.0, 3.0, 1.0]), [0], [1], [2], 0)
    assert div.gap == pytest.approx(5.0)
    assert not div.near_tie


def test_divergence_on_a_token_outside_the_top_two_is_not_a_near_tie() -> None:
    div = analyse_divergence(_model_with_row([0.0, 5.0, 4.99, 1.0]), [0], [1], [3], 0)
    assert not div.pair_is_top_two
    assert not div.near_tie


def test_divergence_where_one_run_ended_counts_the_end_token() -> None:
    model = _model_with_row([0.0, 5.0, 4.99, 1.0], eog=2)
    div = analyse_divergence(model, [0], [1, 1], [1], 1)
    assert div.speculative is None
    assert div.near_tie


def test_selftest_names_a_library_the_installation_lacks(tmp_path: Path) -> None:
    # A frozen bundle that left numpy out looks like this: the import itself fails.
    broken = tmp_path / "numpy"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise ImportError('numpy was left out of this bundle', name='numpy')\n")
    result = run_selftest(env={"PYTHONPATH": str(tmp_path)})
    assert_one_line_failure(result, "this installation is incomplete", "numpy")
    assert "Traceback" not in result.stderr


def test_selftest_says_when_formulas_cannot_be_set(tmp_path: Path) -> None:
    # A bundle that left ziamath's math font out imports the package but fails to set a formula.
    broken = tmp_path / "ziamath"
    broken.mkdir()
    (broken / "__init__.py").write_text(
        "class Latex:\n    def __init__(self, latex):\n        raise FileNotFoundError('STIXTwoMath-Regular.ttf')\n"
    )
    result = run_selftest(env={"PYTHONPATH": str(tmp_path)})
    assert_one_line_failure(result, "formulas cannot be set", "STIXTwoMath-Regular.ttf")
    assert "Traceback" not in result.stderr
