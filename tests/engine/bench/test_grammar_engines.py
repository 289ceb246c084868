"""The grammar-engine comparison on the real SmolLM2 vocabulary: each engine present follows the walk exactly.

outlines-core and xgrammar are not Tandem dependencies: where one is not
installed the report says so, and the checks run on those that are.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.bench.grammar_engines import FLAT, NESTED, render_markdown
from app.engine.bench.grammar_engines import ENGINES, Llguidance, Vocabulary, compare, run_case
from app.engine.llama.model import LlamaModel, LoadOptions


@pytest.fixture(scope="module")
def model(small_pair: tuple[Path, Path]):
    loaded = LlamaModel(small_pair[0], LoadOptions(n_ctx=128, n_batch=16, n_threads=1))
    yield loaded
    loaded.close()


def test_every_installed_engine_allows_the_walk_and_rolls_back_exactly(model):
    report = compare(model, ENGINES, cases=(FLAT, NESTED))
    assert report["n_vocab"] == model.n_vocab and report["rollback_tokens"] == 4
    installed = [name for name, entry in report["engines"].items() if entry["error"] is None]
    assert installed[0] == "llguidance"
    for name, entry in report["engines"].items():
        if entry["error"] is not None:
            assert entry["error"] == f"not installed (pip install {name})"
    for case in report["schemas"]:
        assert case["walk_tokens"] > 10
        for name in installed:
            run = case["engines"][name]
            assert run["error"] is None, (case["name"], name, run["error"])
            assert run["walk_allowed"] and run["rollback_exact"], (case["name"], name)
            assert run["masks"] == case["walk_tokens"] + 1 and run["rollbacks"] == case["walk_tokens"] // 8
            assert run["compile_ms"] > 0 and run["mask_median_us"] > 0 and run["rollback4_median_us"] > 0
        baseline = case["engines"]["llguidance"]
        assert baseline["masks_equal_baseline"] == baseline["masks"]
        assert case["ratios"]["llguidance"]["mask_median_us"] == 1.0
    assert "## Schema `nested`" in render_markdown(report)


def test_a_token_outside_the_grammar_is_one_line_for_that_engine(model):
    vocab = Vocabulary(model)
    walk = vocab.tokens("[1, 2]")  # an array where the schema wants an object
    run, _ = run_case(Llguidance(vocab), FLAT, walk, vocab.n_vocab)
    assert run.error is not None and "\n" not in run.error
    assert not run.walk_allowed
