"""`tandem bench` and `tandem preflight` from the command line, on the small pair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from tests.paths import REPO_ROOT

SMOKE_SUITE = REPO_ROOT / "resources" / "bench_prompts_smoke.json"


def test_bench_writes_json_and_markdown(small_pair: tuple[Path, Path], tmp_path: Path, capsys) -> None:
    target, draft = small_pair
    out_json, out_md = tmp_path / "b.json", tmp_path / "b.md"
    code = main(
        [
            "bench",
            "--target", str(target),
            "--draft", str(draft),
            "--prompts", str(SMOKE_SUITE),
            "--categories", "code-edit",
            "--repeats", "1",
            "--max-tokens", "8",
            "--draft-lengths", "2",
            "--no-adaptive",
            "--no-preflight",
            "--threads", "1",
            "--ctx", "512",
            "--max-wait", "0",
            "--no-overhead-probe",
            "--json", str(out_json),
            "--markdown", str(out_md),
        ]
    )  # fmt: skip
    assert code == 0
    captured = capsys.readouterr()
    assert "benchmark written to" in captured.out
    assert "[" in captured.err  # the progress bar goes to stderr
    report = json.loads(out_json.read_text())
    assert report["settings"]["configs"] == ["target", "draft K=2"]
    assert report["overhead_synthetic"] == []  # --no-overhead-probe
    assert out_md.read_text().startswith("# Tandem benchmark")


@pytest.mark.parametrize(
    "extra, message",
    [(["--max-tokens", "0"], "--max-tokens"), (["--prompts", "/nonexistent/suite.json"], "prompt suite")],
)
def test_bench_refuses_bad_options_in_one_line(small_pair: tuple[Path, Path], capsys, extra, message) -> None:
    target, draft = small_pair
    code = main(["bench", "--target", str(target), "--draft", str(draft), "--no-preflight", *extra])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error:") and message in err[-1]


def test_bench_rejects_malformed_lists() -> None:
    with pytest.raises(SystemExit):
        main(["bench", "--temperatures", "hot"])
    with pytest.raises(SystemExit):
        main(["bench", "--draft-lengths", "0"])
    with pytest.raises(SystemExit):
        main(["bench", "--peer-draft-lengths", "0,8"])  # 0 only alone: "no speculative peer"
    for sizes in ("0", "512,big", ""):
        with pytest.raises(SystemExit):
            main(["bench", "--prefill", "--prefill-sizes", sizes])


@pytest.mark.subprocess  # bench starts llama-server
def test_bench_runs_llama_server_side_by_side(small_pair: tuple[Path, Path], tmp_path: Path, capsys) -> None:
    """llama.cpp's own speculative decoding and target-only runs appear in the same report, same prompts."""
    from app.engine.remote.llama_server import find_binary

    if find_binary() is None:
        pytest.skip("llama-server is not built (scripts/test.sh builds it)")
    target, draft = small_pair
    out_json = tmp_path / "b.json"
    code = main(
        [
            "bench", "--target", str(target), "--draft", str(draft), "--prompts", str(SMOKE_SUITE),
            "--categories", "code-edit", "--repeats", "1", "--max-tokens", "16", "--draft-lengths", "4",
            "--no-adaptive", "--no-preflight", "--threads", "1", "--ctx", "512", "--max-wait", "0",
            "--no-overhead-probe", "--vs-llama-server", "--peer-draft-lengths", "2,4", "--json", str(out_json),
        ]
    )  # fmt: skip
    assert code == 0
    report = json.loads(out_json.read_text())
    ngram = ["llama-server ngram-simple", "llama-server ngram-map-k", "llama-server ngram-mod"]
    expected = ["target", "draft K=4", "llama-server K=2", "llama-server K=4", *ngram, "llama-server target"]
    assert report["settings"]["configs"] == expected
    rows = {s["config"]: s for s in report["summaries"] if s["category"] == "all"}
    assert set(expected) <= set(rows)
    assert all(rows[name]["tokens_per_s"] > 0 for name in ngram)  # each n-gram server answered
    spec = rows["llama-server K=4"]
    assert spec["tokens_per_s"] > 0 and spec["acceptance_rate"] > 0  # it really speculated
    assert rows["llama-server target"]["acceptance_rate"] == 0


@pytest.mark.subprocess  # bench starts llama-server
def test_bench_runs_the_cheaper_draft_beside_the_default_and_gives_llama_server_the_same_file(
    small_pair: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.engine.remote.llama_server import find_binary

    if find_binary() is None:
        pytest.skip("llama-server is not built (scripts/test.sh builds it)")
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(tmp_path / "models"))  # where the copy is made, once
    target, draft = small_pair
    out_json = tmp_path / "b.json"
    code = main(
        [
            "bench", "--target", str(target), "--draft", str(draft), "--prompts", str(SMOKE_SUITE),
            "--categories", "code-edit", "--repeats", "1", "--max-tokens", "16", "--no-fixed-lengths",
            "--cheaper-draft", "--threads", "1", "--ctx", "512", "--max-wait", "0", "--no-overhead-probe",
            "--vs-llama-server", "--peer-ngram", "", "--peer-draft-lengths", "4", "--json", str(out_json),
        ]
    )  # fmt: skip
    assert code == 0
    copies = list((tmp_path / "models").glob("*.gguf"))
    assert [c.name for c in copies] == [draft.name.removesuffix(".gguf") + ".requantized-Q4_0-output-Q4_0.gguf"]
    report = json.loads(out_json.read_text())
    regime = report["regimes"][0]
    assert regime["cheaper_draft"] == copies[0].name
    # Each pair was measured by its own pre-flight, with its own draft.
    assert regime["preflight"]["draft"] == draft.name and regime["preflight_cheaper_draft"]["draft"] == copies[0].name
    expected = [
        "target",
        "draft adaptive",
        "hybrid adaptive",
        "hybrid adaptive (cheaper draft)",
        "llama-server K=4",
        "llama-server K=4 (cheaper draft)",
        "llama-server target",
    ]
    assert report["settings"]["configs"] == expected
    rows = {s["config"]: s for s in report["summaries"] if s["category"] == "all"}
    assert rows["llama-server K=4 (cheaper draft)"]["acceptance_rate"] > 0  # it speculated with the copy
    assert rows["hybrid adaptive (cheaper draft)"]["tokens_per_s"] > 0
    assert rows["hybrid adaptive (cheaper draft)"]["match_rate"] is not None  # compared with the target alone


@pytest.mark.parametrize("option", ["--json", "--markdown"])
@pytest.mark.parametrize("where", ["missing folder", "a folder"])
def test_bench_refuses_an_unwritable_output_before_running(
    small_pair: tuple[Path, Path], tmp_path: Path, option: str, where: str
) -> None:
    from tests.cli.helpers import run_cli

    out = tmp_path / "no-such-folder" / "report.out" if where == "missing folder" else tmp_path
    target, draft = small_pair
    result = run_cli("bench", "--target", str(target), "--draft", str(draft), "--threads", "2", option, str(out))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]  # one line: no progress bar, no run
    assert result.stderr.startswith(f"error: cannot write the {option} output {out}")
    assert sorted(tmp_path.iterdir()) == []  # nothing created


def test_bench_checking_its_outputs_leaves_no_file_behind(small_pair: tuple[Path, Path], tmp_path: Path) -> None:
    from tests.cli.helpers import run_cli

    # A good --json and a bad --markdown: refused, and the check's probe of the good one is removed.
    result = run_cli(
        "bench", "--target", str(small_pair[0]), "--json", str(tmp_path / "b.json"), "--markdown", str(tmp_path)
    )
    assert result.returncode == 2 and "--markdown" in result.stderr
    assert sorted(tmp_path.iterdir()) == []


def test_bench_runs_the_chosen_prompt_set(small_pair: tuple[Path, Path], tmp_path: Path) -> None:
    target, draft = small_pair
    out_json = tmp_path / "b.json"
    code = main(
        [
            "bench",
            "--target", str(target),
            "--draft", str(draft),
            "--set", "tuning",
            "--categories", "code-edit",
            "--prompts-per-category", "1",
            "--repeats", "1",
            "--max-tokens", "4",
            "--no-fixed-lengths",
            "--no-adaptive",
            "--no-preflight",
            "--threads", "1",
            "--ctx", "1024",
            "--max-wait", "0",
            "--no-overhead-probe",
            "--json", str(out_json),
        ]
    )  # fmt: skip
    assert code == 0
    report = json.loads(out_json.read_text())
    assert report["settings"]["prompt_set"] == "tuning"
    assert report["settings"]["prompts"] == ["code-edit-1"]  # the tuning set's, not the check set's
    assert report["settings"]["configs"] == ["target"]
    with pytest.raises(SystemExit):
        main(["bench", "--set", "holdout"])
