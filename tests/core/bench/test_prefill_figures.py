"""Prompt-processing figures: the long-context category's summary and report, and ``bench --prefill``'s arithmetic.

Hand-built records and llama-bench JSON (pure core code); the numbers are
chosen so that a mean instead of a median, or a mean of per-run rates instead
of a pooled one, gives another answer.
"""

from __future__ import annotations

import json

import pytest

from app.core.bench.prefill import (
    PREFILL_BAR,
    LlamaBenchRow,
    PrefillComparison,
    TandemPrefill,
    pair_up,
    parse_llama_bench,
    render_prefill,
)
from app.core.bench.report import render_markdown
from app.core.bench.stats import BASELINE, LONG_CONTEXT, summarize
from app.core.errors import TandemError
from tests.core.bench.run_records import run


def test_long_context_summaries_pool_the_prefill_and_take_the_median_first_token() -> None:
    records = [
        # Repeat 0: 6,000 tokens in 2 s and 4,000 in 3 s pool to 2,000 tok/s (the mean of rates would be 2,166).
        run(BASELINE, "a", 0, category=LONG_CONTEXT, prompt_read=6000, prefill_s=2.0, time_to_first_token_s=2.1),
        run(BASELINE, "b", 0, category=LONG_CONTEXT, prompt_read=4000, prefill_s=3.0, time_to_first_token_s=3.2),
        # Repeats 1 and 2: 1,000 and 2,500 tok/s. The median of 2,000, 1,000, 2,500 is 2,000 (the mean 1,833).
        run(BASELINE, "a", 1, category=LONG_CONTEXT, prompt_read=6000, prefill_s=6.0, time_to_first_token_s=6.5),
        run(BASELINE, "a", 2, category=LONG_CONTEXT, prompt_read=5000, prefill_s=2.0, time_to_first_token_s=9.0),
        # A server's run: prompt read, no first-token time; it does not enter the median of first tokens.
        run("llama-server target", "a", 0, category=LONG_CONTEXT, prompt_read=6000, prefill_s=1.5),
    ]
    summaries = {(s.category, s.config): s for s in summarize(records)}
    ours = summaries[(LONG_CONTEXT, BASELINE)]
    assert ours.prefill_tokens_per_s == pytest.approx(2000.0)
    assert ours.time_to_first_token_ms == pytest.approx(4850.0)  # median of 2.1, 3.2, 6.5, 9.0 s (the mean: 5.2)
    peer = summaries[(LONG_CONTEXT, "llama-server target")]
    assert peer.prefill_tokens_per_s == pytest.approx(4000.0) and peer.time_to_first_token_ms is None
    # A category nobody timed has neither figure.
    plain = summarize([run(BASELINE, "c", 0)])[0]
    assert plain.prefill_tokens_per_s is None and plain.time_to_first_token_ms is None


def _report(n_ctx: int, asked: int) -> dict:
    records = [
        run(BASELINE, "a", 0, category=LONG_CONTEXT, prompt_read=6000, prefill_s=2.0, time_to_first_token_s=2.5),
        run(BASELINE, "q", 0, category="qa", prompt_read=50, prefill_s=0.1, time_to_first_token_s=0.2),
    ]
    summaries = [s.to_dict() for s in summarize(records)]
    regime = {"name": "q4", "label": "as shipped", "target": "t.gguf", "draft": None}
    settings = {"n_ctx": n_ctx, "n_ctx_asked": asked, "repeats": 1, "max_tokens": 8, "temperatures": [0.0]}
    return json.loads(json.dumps({"settings": settings, "regimes": [regime], "summaries": summaries}))


def test_the_report_shows_the_long_context_prompt_table_and_says_the_context_was_raised() -> None:
    text = render_markdown(_report(10240, 2048))
    assert "Context: 10,240 tokens, raised from the 2,048 asked for" in text
    table = text[text.index(f"{LONG_CONTEXT} prompt processing") :]
    assert "| target | 1 | 3000.0 | 2,500 |" in table
    assert "| qa" not in table  # other categories reuse their prefill between configurations: no such table
    assert "raised from" not in render_markdown(_report(2048, 2048))
    assert f"{LONG_CONTEXT} prompt processing" not in render_markdown({"summaries": [], "regimes": []})


LLAMA_BENCH_JSON = json.dumps(
    [
        {"n_prompt": 512, "n_gen": 0, "n_threads": 2, "n_batch": 2048, "n_ubatch": 512, "flash_attn": False,
         "avg_ts": 400.0, "stddev_ts": 4.5, "samples_ts": [395.0, 405.0], "model_filename": "m.gguf"},
        {"n_prompt": 0, "n_gen": 16, "n_threads": 2, "n_batch": 2048, "n_ubatch": 512, "flash_attn": False,
         "avg_ts": 30.0, "stddev_ts": 1.0},
        {"n_prompt": 4096, "n_gen": 0, "n_threads": 2, "n_batch": 2048, "n_ubatch": 512, "flash_attn": -1,
         "avg_ts": 200.0, "stddev_ts": 2.0, "samples_ts": [199.0, 201.0]},
    ]
)  # fmt: skip


def test_llama_bench_json_is_read_into_its_prompt_rows_only() -> None:
    rows = parse_llama_bench(LLAMA_BENCH_JSON)
    assert [r.n_prompt for r in rows] == [512, 4096]  # the generation row is not a prefill
    assert rows[0] == LlamaBenchRow(512, 2, 2048, 512, "false", 400.0, 4.5, (395.0, 405.0))
    assert rows[1].flash_attn == "auto"
    for bad in ("not json", '{"n_prompt": 1}', '[{"n_prompt": 512}]'):
        with pytest.raises(TandemError, match="cannot read llama-bench's JSON output"):
            parse_llama_bench(bad)


def test_the_ratio_is_tandems_median_over_llama_benchs_mean_and_the_bar_is_095() -> None:
    ours = [
        TandemPrefill(512, (380.0, 300.0, 390.0), 2, 512, 512, False),  # median 380 (mean 356.7)
        TandemPrefill(4096, (150.0,), 2, 512, 512, False),
        TandemPrefill(64, (900.0,), 2, 512, 512, False),  # llama-bench did not run this size
    ]
    rows = pair_up(ours, parse_llama_bench(LLAMA_BENCH_JSON))
    assert [r.ratio for r in rows] == [pytest.approx(0.95), pytest.approx(0.75), None]
    assert rows[0].ratio is not None and rows[0].ratio >= PREFILL_BAR
    assert PrefillComparison(TandemPrefill(8, (), 1, 8, 8, False), None).tandem.median_ts == 0.0
    report = {"model": "m.gguf", "threads": 2, "repetitions": 3, "rows": [r.to_dict() for r in rows]}
    text = render_prefill(json.loads(json.dumps(report)))
    assert "| 512 | 380.0 | 400.0 (4.5) | 0.95x | yes |" in text
    assert "| 4,096 | 150.0 | 200.0 (2.0) | 0.75x | **no** |" in text
    assert "| 64 | 900.0 | - | - | - |" in text
    assert "llama-bench n_batch 2048, n_ubatch 512, flash attention auto, 2 threads" in text
