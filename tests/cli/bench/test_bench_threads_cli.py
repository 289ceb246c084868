"""`python main.py bench-threads` on the real SmolLM2 target, and its background load."""

from __future__ import annotations

import json
from pathlib import Path

import psutil
import pytest

from app.engine.bench.busy_machine import SPIN_MARKER, background_load
from tests.cli.helpers import run_cli


def _spinners() -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        cmdline = process.info["cmdline"] or []
        if len(cmdline) == 3 and cmdline[1] == "-c" and cmdline[2].startswith(SPIN_MARKER):
            found.append(process)
    return found


@pytest.mark.subprocess  # the background load is processes
def test_the_background_processes_run_during_the_block_and_are_gone_after_an_error() -> None:
    before = {p.pid for p in _spinners()}
    with pytest.raises(RuntimeError), background_load(2) as children:
        assert all(psutil.Process(c.pid).status() != psutil.STATUS_ZOMBIE for c in children)
        assert len({p.pid for p in _spinners()} - before) == 2
        raise RuntimeError("a failed run")
    assert all(c.poll() is not None for c in children)
    assert {p.pid for p in _spinners()} <= before


@pytest.mark.subprocess  # the background load is processes
def test_auto_and_a_fixed_count_in_one_interleaved_report(small_pair: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "threads.json"
    before = {p.pid for p in _spinners()}
    args = ["--target", str(small_pair[0]), "--ctx", "512", "--repeats", "2", "--max-tokens", "8", "--fixed", "1"]
    result = run_cli("bench-threads", *args, "--background-load", "1", "--json", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report["medians_tokens_per_second"]) == {"auto", "1"}
    assert "auto_vs_1" in report["ratios"]
    assert report["background_processes"] == 1 and len(report["load_average_before"]) == 3
    assert [r["setting"] for r in report["runs"]] == ["auto", "1", "1", "auto"]  # the order rotates each repeat
    assert report["same_text_in_every_repeat"] is True
    assert "| auto |" in result.stdout and "| fixed 1 |" in result.stdout
    assert {p.pid for p in _spinners()} <= before  # its background process was killed when the bench ended


@pytest.mark.parametrize("bad", [["--fixed", "0"], ["--fixed", "one"], ["--repeats", "0"]])
def test_bad_options_are_refused_plainly(small_pair: tuple[Path, Path], bad: list[str]) -> None:
    result = run_cli("bench-threads", "--target", str(small_pair[0]), *bad)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and result.stderr.strip()
