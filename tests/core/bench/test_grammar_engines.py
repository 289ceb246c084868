"""The grammar-engine comparison's pure parts: its cases, the mask-time summary, ratios to llguidance, the report."""

from __future__ import annotations

import json
import math

import jsonschema
import pytest

from app.core.bench.grammar_engines import (
    CASES,
    ROLLBACK_TOKENS,
    EngineRun,
    median_p95,
    ratios,
    render_markdown,
    rollback_points,
)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_each_walk_is_a_valid_compact_document_with_keys_in_schema_order(case):
    text = case.walk_text()
    document = json.loads(text)
    jsonschema.validate(document, case.schema)
    assert text == json.dumps(document, separators=(",", ":"), ensure_ascii=False)  # compact, UTF-8 kept
    assert list(document) == list(case.schema["properties"]) == case.schema["required"]


def test_the_three_schemas_are_flat_nested_and_string_heavy():
    flat, nested, strings = CASES
    assert all(p.get("type") != "object" for p in flat.schema["properties"].values())
    assert "enum" in json.dumps(nested.schema) and nested.schema["properties"]["items"]["type"] == "array"
    texts = [v for value in strings.document.values() for v in (value if isinstance(value, list) else [value])]
    assert sum(len(t) for t in texts) > 0.7 * len(strings.walk_text()) and "\\n" in strings.walk_text()


def test_rollback_points_leave_room_for_the_tokens_undone():
    assert rollback_points(20) == [8, 16]
    assert rollback_points(7) == []
    assert all(p >= ROLLBACK_TOKENS for p in rollback_points(100, every=2))


def test_median_and_p95_in_microseconds():
    median, p95 = median_p95([1000 * v for v in range(1, 101)])
    assert median == pytest.approx(50.5) and p95 == pytest.approx(95.05)
    assert all(math.isnan(v) for v in median_p95([]))


def test_an_engine_run_summarises_its_samples_and_an_error_has_no_figures():
    run = EngineRun(compile_ns=2_500_000, mask_ns=[10_000, 20_000, 30_000], rollback_ns=[4_000], allowed_counts=[3, 5])
    run.masks_equal = 2
    figures = run.to_dict()
    assert figures["compile_ms"] == 2.5 and figures["mask_median_us"] == 20.0 and figures["masks"] == 3
    assert figures[f"rollback{ROLLBACK_TOKENS}_median_us"] == 4.0 and figures["rollback_exact"] is True
    assert figures["mean_allowed"] == 4.0 and figures["masks_equal_baseline"] == 2
    failed = EngineRun(error="refused token 7").to_dict()
    assert failed["compile_ms"] is None and failed["mask_median_us"] is None and failed["rollback_exact"] is None


def test_ratios_are_over_llguidance_and_missing_where_a_figure_is():
    runs = {
        "llguidance": {"compile_ms": 2.0, "mask_median_us": 10.0, "mask_p95_us": 20.0, "rollback4_median_us": 1.0},
        "xgrammar": {"compile_ms": 8.0, "mask_median_us": 5.0, "mask_p95_us": None, "rollback4_median_us": 3.0},
    }
    got = ratios(runs)
    assert got["llguidance"] == {
        "compile_ms": 1.0,
        "mask_median_us": 1.0,
        "mask_p95_us": 1.0,
        "rollback4_median_us": 1.0,
    }
    assert got["xgrammar"] == {
        "compile_ms": 4.0,
        "mask_median_us": 0.5,
        "mask_p95_us": None,
        "rollback4_median_us": 3.0,
    }
    assert ratios({"xgrammar": runs["xgrammar"]})["xgrammar"]["compile_ms"] is None  # no baseline: no ratio


def test_the_markdown_names_every_engine_its_figures_and_errors():
    good = EngineRun(compile_ns=1_000_000, mask_ns=[10_000, 30_000], rollback_ns=[2_000], allowed_counts=[4])
    good.masks_equal = 2
    runs = {"llguidance": good.to_dict(), "xgrammar": EngineRun(error="refused token 9").to_dict()}
    report = {
        "model": "m.gguf",
        "n_vocab": 100,
        "engines": {
            "llguidance": {"version": "1.0", "tokenizer_s": 0.5, "rollback": {"supported": True, "limit": None}},
            "outlines-core": {"version": None, "error": "not installed (pip install outlines-core)"},
            "xgrammar": {"version": "0.2", "tokenizer_s": 1.5, "rollback": {"supported": True, "limit": None}},
        },
        "schemas": [{"name": "flat", "walk_tokens": 1, "engines": runs, "ratios": ratios(runs)}],
    }
    text = render_markdown(report)
    assert "m.gguf (100 tokens)" in text and "not installed (pip install outlines-core)" in text
    assert "## Schema `flat` (1 tokens in the walk)" in text
    assert "| llguidance | 1.0 | 20.0 | 29.0 | 2.0 | 1.00 | 1.00 | 1.00 | 1.00 | yes | 2/2 | yes | 4 |" in text
    assert "| xgrammar | refused token 9 |" in text
