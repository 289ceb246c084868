"""`python main.py chat` end to end, in a subprocess, on the real SmolLM2 pair."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.memory.devices import DeviceKind
from app.engine.llama.model import gpu_offload_supported
from app.engine.memory.ggml_devices import read_devices
from tests.cli.helpers import ROOT, pair_args, run_cli


def test_json_output_has_text_tokens_and_stats(small_pair: tuple[Path, Path]) -> None:
    # Greedy: the reply is the same every run, and so are its drafts (a sampled one may draft nothing in 24 tokens).
    args = [*pair_args(small_pair), "--temperature", "0", "--json", "--max-tokens", "24"]
    result = run_cli("chat", *args, "Name three colours.")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["text"] == "".join(t["text"] for t in payload["tokens"])
    # "target" marks steps where no draft was made (e.g. the last token, or drafting paused).
    assert {t["origin"] for t in payload["tokens"]} <= {"draft", "corrected", "bonus", "target"}
    assert {"draft", "corrected"} & {t["origin"] for t in payload["tokens"]}
    # Each corrected token carries the proposal it replaced, and only those.
    assert all(("rejected" in t) == (t["origin"] == "corrected") for t in payload["tokens"])
    stats = payload["stats"]
    for key in ("tokens_per_second", "drafted", "accepted", "steps", "acceptance_rate", "mean_accepted_length"):
        assert key in stats
    assert stats["accepted"] <= stats["drafted"]
    assert len(payload["tokens"]) == stats["emitted"] <= 24
    # How the prompt was read: a fresh process, so nothing came from the cache.
    assert stats["prompt_tokens"] == len(payload["prompt_tokens"]) and stats["prompt_reused"] == 0
    assert stats["time_to_first_token_ms"] >= stats["prefill_ms"] > 0
    assert stats["tokens_per_second"] > 0


def test_no_draft_is_the_target_only_baseline(small_pair: tuple[Path, Path]) -> None:
    # Greedy: this reply runs to its 16 tokens (a sampled one may end early on the end token, a step of its own).
    args = ["--target", str(small_pair[0]), "--ctx", "512", "--json", "--max-tokens", "16", "--temperature", "0"]
    baseline = json.loads(run_cli("chat", *args, "--no-draft", "Say hello.").stdout)
    assert {t["origin"] for t in baseline["tokens"]} == {"target"}
    assert baseline["stats"]["drafted"] == 0 and baseline["stats"]["steps"] == baseline["stats"]["emitted"]


def test_streaming_output_colours_by_origin_and_ends_with_legend_and_stats(small_pair: tuple[Path, Path]) -> None:
    args = [*pair_args(small_pair), "--temperature", "0", "--max-tokens", "24"]  # greedy: drafts every run
    result = run_cli("chat", *args, "Name three colours.", env={"FORCE_COLOR": "1"})
    assert result.returncode == 0, result.stderr
    assert "\x1b[32m" in result.stdout  # accepted drafts are green
    assert "legend:" in result.stdout and "tok/s" in result.stdout and "acceptance" in result.stdout


def test_ngram_drafter_runs(small_pair: tuple[Path, Path]) -> None:
    args = ["--target", str(small_pair[0]), "--ngram", "--ctx", "512", "--json", "--max-tokens", "32"]
    result = run_cli("chat", *args, "Repeat exactly: the cat sat on the mat, the cat sat on the mat.")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["drafter"] == "ngram"


def assert_clean_failure(result: subprocess.CompletedProcess[str], phrase: str) -> None:
    assert result.returncode != 0
    assert result.stdout == ""  # nothing written
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and phrase in lines[0], lines[0]
    assert "Traceback" not in result.stderr


def test_missing_model_file(tmp_path: Path) -> None:
    assert_clean_failure(run_cli("chat", "--target", str(tmp_path / "nope.gguf"), "--no-draft", "hi"), "not found")


def test_file_that_is_not_gguf(tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"PK\x03\x04" + os.urandom(4096))
    assert_clean_failure(run_cli("chat", "--target", str(fake), "--no-draft", "hi"), "not a GGUF")


def test_truncated_gguf(tmp_path: Path, small_pair: tuple[Path, Path]) -> None:
    cut = tmp_path / "cut.gguf"
    with small_pair[0].open("rb") as source:
        cut.write_bytes(source.read(20_000_000))
    assert_clean_failure(run_cli("chat", "--target", str(cut), "--no-draft", "hi"), "truncated")


def test_pair_whose_vocabularies_differ(small_pair: tuple[Path, Path], demo_pair: tuple[Path, Path]) -> None:
    result = run_cli("chat", "--target", str(small_pair[0]), "--draft", str(demo_pair[1]), "hi")
    assert_clean_failure(result, "cannot draft for")
    assert "vocabulary" in result.stderr


def test_prompt_that_does_not_fit_the_context(small_pair: tuple[Path, Path]) -> None:
    long_prompt = "word " * 400
    result = run_cli("chat", *pair_args(small_pair)[:4], "--ctx", "128", long_prompt)
    assert_clean_failure(result, "context")


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (["--temperature", "-1"], "argument --temperature: temperature must be a number from 0 to 2 (0 is greedy"),
        (["--temperature", "2.5"], "temperature must be a number from 0 to 2"),
        (["--top-p", "1.5"], "argument --top-p: top_p must be a number from 0 to 1 "),
        (["--top-k", "2.5"], "argument --top-k: top_k must be a whole number from 0 to 1000000"),
        (["--repeat-penalty", "0"], "repeat_penalty must be a number from 0.01 to 10"),
        (["--seed", "-2"], "argument --seed: seed must be a whole number from -1 to 9223372036854775807"),
        (["--max-tokens", "0"], "argument --max-tokens: max_tokens must be a whole number from 1 to 1000000"),
    ],
)
def test_invalid_options_are_refused_with_the_field_and_its_range(tmp_path: Path, bad: list[str], words: str) -> None:
    # Refused while the options are parsed: the model files are never opened.
    result = run_cli("chat", *pair_args((tmp_path / "t.gguf", tmp_path / "d.gguf")), *bad, "hi")
    assert result.returncode == 2 and result.stdout == ""
    assert words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_help_gives_each_options_range_and_the_one_default_reply_length() -> None:
    result = run_cli("chat", "--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())  # argparse wraps the help
    assert "the most tokens a reply may have (a whole number from 1 to 1000000; default 512)" in text
    # Sampled by default, as llama-server; the help says how to ask for greedy.
    assert "0 is greedy: exactly the target's own greedy reply (a number from 0 to 2; default 0.8)" in text
    assert "(a whole number from 0 to 1000000; default 40)" in text and "default 0.95)" in text


@pytest.mark.parametrize(("value", "expected_auto"), [("auto", True), ("1", False)])
def test_threads_auto_or_forced_is_in_the_json_stats(
    small_pair: tuple[Path, Path], value: str, expected_auto: bool
) -> None:
    args = ["--target", str(small_pair[0]), "--no-draft", "--ctx", "512", "--threads", value]
    result = run_cli("chat", *args, "--json", "--max-tokens", "12", "Say hello.")
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)["stats"]
    assert stats["threads_auto"] is expected_auto
    assert stats["threads"] == 1 if value == "1" else stats["threads"] >= 1


@pytest.mark.parametrize("bad", ["0", "two", "-3"])
def test_a_bad_thread_count_is_refused_with_the_choices(small_pair: tuple[Path, Path], bad: str) -> None:
    result = run_cli("chat", "--target", str(small_pair[0]), "--threads", bad, "hi")
    assert result.returncode == 2
    assert "expected 'auto' or a whole number of threads >= 1" in result.stderr
    assert "Traceback" not in result.stderr


def run_limited(mode: str, model: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command line under an address-space limit (tests/cli/memory_limit_helper.py), one thread, one arena."""
    return subprocess.run(
        [sys.executable, "-m", "tests.cli.memory_limit_helper", mode, str(model), *args, "--threads", "1"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "MALLOC_ARENA_MAX": "1"},  # each malloc arena reserves address space of its own
        check=False,
    )


def repacks_weights(model: Path) -> bool:
    """Whether llama.cpp keeps a repacked copy of the weights beside the mapped file here (AMX, AVX2 kernels)."""
    from app.engine.llama.model import LlamaModel, LoadOptions
    from app.engine.memory.measure import capture_load_log

    with capture_load_log() as log:
        LlamaModel(model, LoadOptions(n_ctx=64, n_threads=1)).close()
    buffers = [line for line in log.lines if "model buffer size" in line]
    return any("CPU_Mapped" not in line for line in buffers)


def test_weights_that_do_not_fit_in_memory_give_the_out_of_memory_hint(small_pair: tuple[Path, Path]) -> None:
    draft = small_pair[1]  # Q4_0: llama.cpp keeps a repacked CPU copy beside the mapped file
    if not repacks_weights(draft):
        pytest.skip("this CPU runs Q4_0 from the mapped file: no weight buffer to run out of memory for")
    result = run_limited("weights", draft, "chat", "--no-draft", "--ctx", "256", "--max-tokens", "1", "hi")
    assert_clean_failure(
        result, f"out of memory loading {draft.name}: close other programs, or choose a smaller model or context size"
    )


@pytest.mark.parametrize("command", ["chat", "serve"])
def test_a_context_whose_cache_does_not_fit_says_out_of_memory(small_pair: tuple[Path, Path], command: str) -> None:
    # 8192 is SmolLM2's trained length, so only memory can refuse it: its cache needs about 190 MB.
    args = ["--no-draft", "--ctx", "8192", *(["--max-tokens", "1", "hi"] if command == "chat" else ["--port", "0"])]
    result = run_limited("context", small_pair[0], command, *args)
    assert_clean_failure(
        result,
        f"a context of 8192 tokens could not be created for {small_pair[0].name}: out of memory: "
        "close other programs, or lower --ctx, or choose a smaller model",
    )


def test_json_says_which_device_each_model_ran_on(small_pair: tuple[Path, Path]) -> None:
    """Both models' device and GPU layers, from ggml's list: the CPU and 0 layers on a CPU build, even when asked."""
    if gpu_offload_supported():
        pytest.skip("a GPU build of llama-cpp-python: layers would go to the GPU")
    (cpu,) = (d for d in read_devices() if d.kind is DeviceKind.CPU)
    args = [*pair_args(small_pair), "--ngl", "99", "--ngld", "-1", "--json", "--max-tokens", "4"]
    result = run_cli("chat", *args, "Say hello.")
    assert result.returncode == 0, result.stderr
    placement = json.loads(result.stdout)["placement"]
    on_cpu = {"device": "CPU", "description": cpu.description, "gpu_layers": 0}
    assert placement == {"target": on_cpu, "draft": on_cpu}
