"""The benchmark's "long-context" category: 4,000-8,000-token prompts, each run reading its prompt afresh.

The sizes are counted by the real tokenizers (SmolLM2's and Qwen2.5's) on the
prompt as the chat template renders it, and one prompt, shortened, runs end
to end on the small pair: the context is raised for it, and every
configuration's record times its own prefill and first token.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from app.core.bench.report import render_markdown
from app.core.bench.stats import LONG_CONTEXT
from app.core.errors import TandemError
from app.engine.bench.documents import prepare
from app.engine.bench.runner import run_benchmark
from app.engine.bench.suite import LONG_CONTEXT_CTX, BenchPrompt, BenchSettings, Regime, context_for, load_suite
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from tests.paths import REPO_ROOT

FULL_SUITE = REPO_ROOT / "resources" / "bench_prompts.json"
_SHORTENED_SYSTEM_CHARS = 3500


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_long", REPO_ROOT / "scripts" / "make_long_context_prompts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _long_prompts() -> list[BenchPrompt]:
    return [p for p in load_suite(FULL_SUITE) if p.category == LONG_CONTEXT]


def test_the_committed_prompts_are_the_generators_output() -> None:
    data = json.loads(FULL_SUITE.read_text(encoding="utf-8"))
    committed = [p for p in data["prompts"] if p["category"] == LONG_CONTEXT]
    assert committed == _generator().prompts()
    assert LONG_CONTEXT in data["categories"]


def test_each_set_has_a_document_question_a_long_chat_and_a_big_system_prompt() -> None:
    prompts = _long_prompts()
    for name in ("tuning", "check"):
        chosen = [p for p in prompts if p.set == name]
        assert len(chosen) >= 3, name
        chats = [p for p in chosen if p.history]
        systems = [p for p in chosen if p.system and not p.history]
        documents = [p for p in chosen if not p.system and not p.history]
        assert chats and systems and documents, name
        # The chat's last question refers back to its first turn; the big system prompt's question is short.
        assert all(len(p.history) >= 20 and p.history[0][0] == "user" for p in chats)
        assert all(len(p.text) < 200 for p in systems)
        assert all(not p.attachments for p in chosen)  # the text is in the prompt itself


@pytest.fixture(scope="module", params=["small", "demo"])
def tokenizer_pair(request: pytest.FixtureRequest) -> Iterator[LoadedPair]:
    # SmolLM2's tokenizer, and Qwen2.5's (the demo pair's 0.5B draft has its target's vocabulary).
    path = (
        request.getfixturevalue("small_pair")[0]
        if request.param == "small"
        else request.getfixturevalue("demo_pair")[1]
    )
    with LoadedPair(PairConfig(path, None, DrafterKind.NONE, 512, 1, n_gpu_layers=0)) as pair:
        yield pair


def test_every_long_context_prompt_is_4k_to_8k_tokens_as_rendered(tokenizer_pair: LoadedPair) -> None:
    for p in _long_prompts():
        tokens = prepare(tokenizer_pair, p.text, p.system, p.attachments, 96, p.history).tokens
        assert 4000 <= len(tokens) <= 8000, (p.id, len(tokens))
        assert len(tokens) + 96 < LONG_CONTEXT_CTX


def test_the_context_is_raised_only_when_long_context_prompts_run() -> None:
    prompts = load_suite(FULL_SUITE)
    short = [p for p in prompts if p.category != LONG_CONTEXT]
    assert context_for(short, 2048) == 2048
    assert context_for(prompts, 2048) == LONG_CONTEXT_CTX
    assert context_for(prompts, 16384) == 16384  # never lowered


def test_history_turns_of_unknown_roles_are_refused(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    turn = {"role": "system", "content": "be brief"}
    suite.write_text(json.dumps({"prompts": [{"id": "a", "category": "qa", "prompt": "?", "history": [turn]}]}))
    with pytest.raises(TandemError, match=r"unknown roles \(a: 'system'\): use 'user' or 'assistant'"):
        load_suite(suite)


@pytest.fixture(scope="module")
def report(small_pair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    target, _ = small_pair
    data = json.loads(FULL_SUITE.read_text(encoding="utf-8"))
    (prompt,) = [p for p in data["prompts"] if p["id"] == "long-context-bike-handbook"]
    # A fifth of its rules (about 1,150 tokens): the size is checked above; here, that each run reads it all.
    prompt["system"] = prompt["system"][:_SHORTENED_SYSTEM_CHARS]
    data["prompts"] = [prompt]
    suite = tmp_path_factory.mktemp("suite") / "long.json"
    suite.write_text(json.dumps(data), encoding="utf-8")
    settings = BenchSettings(
        suite=suite,
        max_tokens=4,
        repeats=1,
        n_threads=1,
        n_ctx=2048,
        prompt_set="all",
        preflight=False,
        max_wait_s=0.0,
        max_other_cpu=1.0,
        overhead_probe=False,
    )
    return run_benchmark([Regime("q4", target, "small pair")], None, settings)


def test_every_configuration_reads_the_long_prompt_itself_and_the_report_says_how_fast(report: dict) -> None:
    assert report["settings"]["n_ctx"] == LONG_CONTEXT_CTX and report["settings"]["n_ctx_asked"] == 2048
    runs = report["runs"]
    assert {r["config"] for r in runs} == {"target", "ngram adaptive"}
    # No configuration reuses another's prefill: each read the whole prompt (all but the token its first step reads).
    assert len({r["prompt_read"] for r in runs}) == 1 and runs[0]["prompt_read"] >= 1000
    assert all(r["prefill_s"] > 0 and r["time_to_first_token_s"] >= r["prefill_s"] for r in runs)
    rows = [s for s in report["summaries"] if s["category"] == LONG_CONTEXT]
    assert {s["config"] for s in rows} == {"target", "ngram adaptive"}
    assert all(s["prefill_tokens_per_s"] > 0 and s["time_to_first_token_ms"] > 0 for s in rows)
    text = render_markdown(report)
    assert "raised from the 2,048 asked for" in text and f"{LONG_CONTEXT} prompt processing" in text
