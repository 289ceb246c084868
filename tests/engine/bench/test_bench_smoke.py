"""The benchmark on the small SmolLM2 pair: a short smoke run checks the report's shape, not its speed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from app.core.bench.report import render_markdown
from app.engine.bench.probes import batch_numerics
from app.engine.bench.runner import run_benchmark, write_outputs
from app.engine.bench.suite import BenchSettings, Regime, configurations, load_suite
from app.engine.llama.model import LlamaModel, LoadOptions
from tests.engine.bench.smoke import SMOKE_SUITE, smoke_settings

FULL_SUITE = SMOKE_SUITE.with_name("bench_prompts.json")


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


@pytest.fixture(scope="module")
def report(small_pair: tuple[Path, Path]) -> dict:
    target, draft = small_pair
    settings = smoke_settings(max_tokens=16, draft_lengths=(2,), ngram=True, overhead_probe=True)
    calls: list[tuple[int, int, str]] = []
    result = run_benchmark([Regime("q4", target, "small pair")], draft, settings, lambda *a: calls.append(a))
    assert calls and calls[-1][0] == calls[-1][1]  # progress reached the end
    return result


def test_every_configuration_ran_every_prompt(report: dict) -> None:
    assert report["settings"]["configs"] == [
        "target",
        "draft K=2",
        "draft adaptive",
        "hybrid adaptive",
        "ngram adaptive",
    ]
    runs = report["runs"]
    assert len(runs) == 2 * 5
    assert all(r["tokens"] > 0 and r["steps"] > 0 for r in runs)
    assert all(1 <= r["attempts"] <= 3 and 0.0 <= r["other_cpu_share"] <= 1.0 for r in runs)
    assert report["regimes"][0]["runs_redone"] == sum(r["attempts"] - 1 for r in runs)


def test_summaries_are_finite_and_paired_with_target_only(report: dict) -> None:
    summaries = report["summaries"]
    assert {s["category"] for s in summaries} == {"code-write", "code-edit", "all"}
    for s in summaries:
        for key in ("tokens_per_s", "speedup", "acceptance_rate", "mean_accepted_length", "overhead_ms_per_step"):
            assert _finite(s[key]), (key, s)
        assert s["tokens_per_s"] > 0 and s["peak_rss_mb"] > 0
        assert all(0.0 <= a <= 1.0 for a in s["per_position_acceptance"])
        if s["config"] == "target":
            assert s["speedup"] == pytest.approx(1.0) and s["match_rate"] is None
        else:
            assert 0.0 <= s["match_rate"] <= 1.0
            assert s["explained"] <= s["divergences"]
    drafted = [s for s in summaries if s["config"] == "draft K=2"]
    assert all(s["acceptance_rate"] > 0 for s in drafted)  # Q4_0 and Q4_1 copies of one model agree often


def test_divergences_carry_a_near_tie_verdict(report: dict) -> None:
    for d in report["divergences"]:
        assert d["gap"] >= 0 and isinstance(d["explained"], bool) and len(d["top_two"]) == 2
        assert d["spread"] >= d["gap"] - 1e-6 and d["explained"] == (d["spread"] < report["near_tie_threshold"])
    numerics = report["regimes"][0]["numerics"]
    assert _finite(numerics["max_abs_diff"]) and numerics["rows"] > 0


def test_reports_are_written_as_json_and_markdown(report: dict, tmp_path: Path) -> None:
    json_path, md_path = tmp_path / "out" / "bench.json", tmp_path / "bench.md"
    write_outputs(report, json_path, md_path)
    loaded = json.loads(json_path.read_text())
    assert loaded["format"] == "tandem-bench/1" and loaded["summaries"]
    markdown = md_path.read_text()
    assert "# Tandem benchmark" in markdown and "| category |" in markdown
    assert {row["drafter"] for row in loaded["overhead_synthetic"]} == {"none", "model", "ngram", "hybrid"}
    assert "## Per-step Python overhead" in markdown
    assert markdown == render_markdown(loaded)  # the Markdown can be re-rendered from the JSON alone


def test_bundled_suite_covers_the_categories() -> None:
    prompts = load_suite(FULL_SUITE)
    categories = {"code-write", "code-edit", "prose", "qa", "math", "documents", "long-context"}
    assert {p.category for p in prompts} == categories
    assert len({p.id for p in prompts}) == len(prompts)
    names = [c.name for c in configurations(BenchSettings(FULL_SUITE, ngram=True, ngram_lengths=(4,)), True)]
    assert names == [
        "target",
        "draft K=2",
        "draft K=4",
        "draft K=8",
        "draft adaptive",
        "hybrid adaptive",
        "ngram K=4",
        "ngram adaptive",
    ]
    # --default-only: what a user gets beside the target alone, for the run-to-run spread.
    default_only = BenchSettings(FULL_SUITE, fixed_lengths=False, draft_adaptive=False)
    assert [c.name for c in configurations(default_only, True)] == ["target", "hybrid adaptive"]
    # Without hybrid drafting the draft model alone is the default, so it stays.
    no_hybrid = BenchSettings(FULL_SUITE, fixed_lengths=False, draft_adaptive=False, hybrid=False)
    assert [c.name for c in configurations(no_hybrid, True)] == ["target", "draft adaptive"]


def test_batched_and_single_token_logits_are_close(small_pair: tuple[Path, Path]) -> None:
    with LlamaModel(small_pair[0], LoadOptions(n_ctx=256, n_threads=1)) as model:
        numerics = batch_numerics(model, model.tokenize("def add(a, b):\n    return a + b\n\nprint(add(1, 2))"))
    assert 0.0 <= numerics["max_gap_change"] <= numerics["max_abs_diff"] * 2 + 1e-6
    assert numerics["max_abs_diff"] < 2.0  # numerics, not a different model


def test_learned_costs_carry_from_one_bench_run_to_the_next(small_pair: tuple[Path, Path], tmp_path: Path) -> None:
    """``--learned-costs``: the second run starts where the first left off, as the app does after a restart."""
    target, draft = small_pair
    kept = tmp_path / "profiles.json"
    # One prompt: what is checked is the store between the runs, which one reply already saves to.
    settings = smoke_settings(
        max_tokens=8, fixed_lengths=False, draft_adaptive=False, learned_costs=kept, categories=("code-edit",)
    )
    regimes = [Regime("q4", target, "small pair")]
    first = run_benchmark(regimes, draft, settings, lambda *a: None)
    assert first["regimes"][0]["learned_costs_restored"] == [False]
    assert first["overhead_synthetic"] == [] and not first["settings"]["overhead_probe"]  # left out when asked
    entries = json.loads(kept.read_text(encoding="utf-8"))["entries"]
    assert len(entries) == 1  # saved after the runs: one pair
    second = run_benchmark(regimes, draft, settings, lambda *a: None)
    assert second["regimes"][0]["learned_costs_restored"] == [True]
    assert second["settings"]["learned_costs"] == str(kept)
