"""``bench --vs-speculative-simple``: llama.cpp's plain speculative example beside Tandem, on the small pair.

The run needs llama-speculative-simple, built by ``scripts/build_llama_server.sh
--tools`` (minutes, once per llama-cpp-python version, cached outside the
repository); without it that test is skipped. The output parsing is checked on
its own against text in the example's format.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.errors import TandemError
from app.engine.bench.llama_tools import find_tool
from app.engine.bench.runner import run_benchmark
from app.engine.bench.speculative_simple import generate_with_simple, parse_output, simple_name
from app.engine.bench.suite import Regime
from app.engine.llama.model import LlamaModel, LoadOptions
from tests.engine.bench.smoke import smoke_settings

_LOG = """
main: encoded   31 tokens in    0.210 seconds, speed:  147.619 t/s
main: decoded   17 tokens in    0.532 seconds, speed:   31.955 t/s
main:
main: n_draft   = 4
main: n_predict = 17
main: n_drafted = 12
main: n_accept  = 9
main: accept    = 75.000%
"""


def test_the_example_s_figures_and_reply_are_read_from_its_output() -> None:
    prompt = "<|im_start|>user\nHi<|im_end|>\n"
    run = parse_output(f"\n\n{prompt}Hello there!\n\n\n\n", _LOG, prompt)
    assert (run.encoded, run.decoded, run.drafted, run.accepted) == (31, 17, 12, 9)
    assert run.decode_s == pytest.approx(0.532)
    assert run.text == "Hello there!"


def test_output_without_timings_is_an_error_that_quotes_the_example() -> None:
    with pytest.raises(TandemError, match=r"printed no timings: .*failed to load model"):
        parse_output("", "llama_model_load: failed to load model\n", "")


@pytest.mark.skipif(
    find_tool("llama-speculative-simple") is None,
    reason="llama-speculative-simple is not built (scripts/build_llama_server.sh --tools)",
)
def test_the_example_runs_beside_tandem_on_the_same_prompt_tokens(small_pair: tuple[Path, Path]) -> None:
    target, draft = small_pair
    settings = smoke_settings(
        max_tokens=24,
        fixed_lengths=False,
        hybrid=False,
        peer_draft_lengths=(3,),
        vs_speculative_simple=True,
        categories=("code-write",),
    )
    report = run_benchmark([Regime("q4", target, "small pair")], draft, settings)
    name = simple_name(3)
    assert report["settings"]["configs"] == ["target", "draft adaptive", name]
    runs = [r for r in report["runs"] if r["config"] == name]
    assert runs and all(r["prompt_read"] > 0 and r["generation_s"] > 0 for r in runs)
    assert all(r["drafted"] > 0 and 0 <= r["accepted"] <= r["drafted"] for r in runs)
    # The example may decode a step past -n; only the tokens asked for are compared and counted.
    assert all(0 < r["tokens"] <= 24 for r in runs)
    # Greedy on the same prompt tokens: llama.cpp's reply starts as the target alone's does.
    summary = next(s for s in report["summaries"] if s["config"] == name and s["category"] == "all")
    assert summary["match_rate"] is not None and summary["match_rate"] > 0.5


@pytest.mark.skipif(
    find_tool("llama-speculative-simple") is None,
    reason="llama-speculative-simple is not built (scripts/build_llama_server.sh --tools)",
)
def test_a_prompt_that_spells_a_backslash_escape_reaches_the_example_as_written(small_pair: tuple[Path, Path]) -> None:
    # Code in a prompt often spells "\n"; the example would read it as a newline, one token fewer, unless told not to.
    target, draft = small_pair
    binary = find_tool("llama-speculative-simple")
    assert binary is not None
    text = '<|im_start|>user\nWhat does print("a\\nb") print?<|im_end|>\n<|im_start|>assistant\n'
    with LlamaModel(target, LoadOptions(n_ctx=256, n_threads=2)) as model:
        tokens = model.tokenize(text)
        record = generate_with_simple(
            binary, model, draft, simple_name(2), tokens, 2, 8, 256, 2,
            seed=1, regime="q4", category="code-write", prompt_id="escape", repeat=0,
        )  # fmt: skip
    assert record.prompt_read == len(tokens)
    assert record.emitted > 0 and record.generation_s > 0
