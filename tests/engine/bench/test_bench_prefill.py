"""``bench --prefill`` on the small pair's target: Tandem's prefill and the real llama-bench's, in one run.

Tandem's side always runs; the comparison needs llama-bench, built by
``scripts/build_llama_server.sh --tools`` (about ten minutes the first time),
so that test is skipped where it is not built. No speed is asserted: only that
both sides measured the sizes asked for with the same threads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.bench.prefill import render_prefill
from app.core.errors import TandemError
from app.engine.bench.llama_tools import find_tool, tools_dir
from app.engine.bench.prefill import PrefillSettings, prompt_ids, run_prefill, tandem_prefill
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig


def test_tandem_reads_exactly_the_size_asked_each_repetition(small_pair: tuple[Path, Path]) -> None:
    target, _ = small_pair
    settings = PrefillSettings(target, Path("unused"), max_wait_s=0.0, max_other_cpu=1.0)
    with LoadedPair(PairConfig(target, None, DrafterKind.NONE, 512, 1, n_gpu_layers=0)) as pair:
        measured = tandem_prefill(pair, 100, 2, settings)
        assert measured.n_prompt == 100 and len(measured.samples_ts) == 2 and min(measured.samples_ts) > 0
        assert measured.n_threads == 1 and (measured.n_batch, measured.n_ubatch) == (512, 512)
        assert not pair.target.kv_tokens  # left empty for the next size
        with pytest.raises(TandemError, match="the prompt is 601 tokens but the context holds 512"):
            tandem_prefill(pair, 600, 1, settings)  # more than the context holds: a plain error
    assert prompt_ids(49152, 8) == prompt_ids(49152, 8) and max(prompt_ids(100, 500)) < 100


@pytest.mark.skipif(find_tool("llama-bench") is None, reason="llama-bench is not built (build_llama_server.sh --tools)")
def test_one_run_measures_both_sides_at_each_size_with_the_same_threads(small_pair: tuple[Path, Path]) -> None:
    target, _ = small_pair
    bench = find_tool("llama-bench")
    assert bench is not None and bench.parent == tools_dir()
    settings = PrefillSettings(target, bench, sizes=(128, 256), repetitions=1, n_threads=2, max_wait_s=0.0,
                               max_other_cpu=1.0)  # fmt: skip
    report = run_prefill(settings)
    rows = report["rows"]
    assert [r["tandem"]["n_prompt"] for r in rows] == [128, 256]
    assert [r["llama_bench"]["n_prompt"] for r in rows] == [128, 256]
    assert all(r["llama_bench"]["n_threads"] == r["tandem"]["n_threads"] == 2 for r in rows)
    assert all(r["ratio"] > 0 for r in rows)
    assert "| 256 |" in render_prefill(report)
