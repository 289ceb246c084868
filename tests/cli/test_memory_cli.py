"""`tandem memory`: the breakdown table, JSON output, defaults and errors."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from app.cli import main
from app.cli.common import default_pair
from app.engine.memory import plan as memory_plan
from app.engine.memory.hardware import gpu_offload_supported, probe_hardware
from tests.ggml_readings import backends_of, devices_of

MIB = 2**20
SMOL_KV_2048 = 2048 * 30 * 3 * 64 * 2 * 2  # cells x layers x KV heads x head size x (K, V) x f16


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["memory", *args, "--json"]) == 0
    out = capsys.readouterr().out
    return json.loads(out)


def test_json_breakdown_for_the_small_pair(small_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]):
    target, draft = small_pair
    payload = run_json(capsys, "--target", str(target), "--draft", str(draft), "--ctx", "2048")
    kinds = {c["kind"]: c for c in payload["components"]}
    assert kinds["target KV cache"]["bytes"] == SMOL_KV_2048
    assert kinds["draft KV cache"]["bytes"] == SMOL_KV_2048
    assert kinds["target weights"]["bytes"] == 96_576_768  # every tensor of the Q4_1 file
    assert payload["totals"]["cpu"] == sum(c["bytes"] for c in payload["components"] if c["device"] == "cpu")
    assert payload["total_bytes"] == sum(payload["totals"].values())
    assert payload["budget"]["cpu_bytes"] > 0
    assert "cpu" in [d["kind"] for d in payload["budget"]["devices"]]  # ggml's list, the CPU always in it
    assert payload["verdict"]["status"] in ("fits", "tight", "does_not_fit")
    assert payload["verdict"]["devices"][0]["device"] == "cpu"


def test_kv_type_option_changes_the_cache(small_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]):
    target, draft = small_pair
    payload = run_json(capsys, "--target", str(target), "--draft", str(draft), "--ctx", "2048", "--kv-type", "q8_0")
    kinds = {c["kind"]: c for c in payload["components"]}
    assert kinds["target KV cache"]["bytes"] == SMOL_KV_2048 // 2 * 34 // 32


def test_table_shows_components_budget_and_verdict(small_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]):
    target, draft = small_pair
    assert main(["memory", "--target", str(target), "--draft", str(draft), "--ctx", "8192"]) == 0
    out = capsys.readouterr().out
    for expected in ("target weights", "draft weights", "target KV cache", "draft KV cache", "compute buffers"):
        assert expected in out
    assert "context 8192, KV cache f16" in out
    assert "budget\n  cpu: " in out
    assert "\nverdict: " in out
    assert f"{SMOL_KV_2048 * 4 / MIB:,.1f}" in out  # 180.0 MiB per KV cache at 8192


def test_target_alone(small_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]):
    payload = run_json(capsys, "--target", str(small_pair[0]), "--no-draft")
    assert payload["draft"] is None
    assert not [c for c in payload["components"] if c["kind"].startswith("draft")]


def test_default_pair_without_paths(small_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]):
    payload = run_json(capsys)
    target, draft = default_pair()
    assert payload["target"] == target.name
    assert payload["draft"] == draft.name
    assert payload["n_ctx"] == 4096


@pytest.mark.skipif(gpu_offload_supported(), reason="this llama.cpp build can offload")
def test_gpu_layers_are_ignored_like_llama_cpp_does(small_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]):
    payload = run_json(capsys, "--target", str(small_pair[0]), "--draft", str(small_pair[1]), "--ngl", "10")
    assert payload["n_gpu_layers"] == 0
    assert "gpu" not in payload["totals"]
    assert any("cannot offload" in note for note in payload["notes"])


@pytest.mark.parametrize("content", [b"not a model at all, just text\n" * 4, None])
def test_bad_file_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None):
    path = tmp_path / "broken.gguf"
    if content is not None:
        path.write_bytes(content)
    assert main(["memory", "--target", str(path), "--no-draft"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: ") and "broken.gguf" in lines[0]


def test_bad_context_is_an_error(small_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]):
    assert main(["memory", "--target", str(small_pair[0]), "--ctx", "0"]) == 2
    assert "--ctx" in capsys.readouterr().err


def test_does_not_fit_exits_1_and_advises_no_context_beyond_the_trained_one(small_pair: tuple[Path, Path]):
    from tests.cli.helpers import run_cli

    # 100M positions of SmolLM2's KV cache are terabytes: no machine fits them.
    result = run_cli("memory", "--target", str(small_pair[0]), "--no-draft", "--ctx", "100000000", "--json")
    assert result.returncode == 1, result.stderr
    payload = json.loads(result.stdout)
    assert payload["verdict"]["status"] == "does_not_fit"
    sizes = [int(a.rsplit(" ", 1)[1]) for a in payload["verdict"]["advice"] if a.startswith("reduce context to ")]
    assert sizes and all(size <= 8192 for size in sizes)  # SmolLM2 was trained for 8192
    fits = run_cli("memory", "--target", str(small_pair[0]), "--no-draft", "--ctx", "512")
    assert fits.returncode == 0, fits.stdout + fits.stderr


def test_memory_names_the_builds_backends_and_the_device_it_plans_for(
    small_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    """This CPU-only build: no GPU backend and how to get one; a device named that the build lacks is said so."""
    if gpu_offload_supported():
        pytest.skip("a GPU build of llama-cpp-python")
    target, draft = small_pair
    monkeypatch.setenv("TANDEM_GPU_DEVICE", "CUDA1")
    payload = run_json(capsys, "--target", str(target), "--draft", str(draft), "--ctx", "2048")
    assert payload["budget"]["backends"] == ["CPU"]
    assert payload["budget"]["gpu_device"] == {"device": None, "index": 0, "count": 0, "named": "CUDA1", "found": False}
    assert payload["budget"]["gpu_shares_ram"] is False
    assert main(["memory", "--target", str(target), "--draft", str(draft), "--ctx", "2048"]) == 0
    text = capsys.readouterr().out
    assert "  backends: CPU only: no GPU backend in this build: run setup again with TANDEM_GPU=vulkan" in text
    assert "gpu: none usable" not in text  # the backends line already says why, once
    assert "  gpu device: TANDEM_GPU_DEVICE=CUDA1: this build lists no device that takes layers" in text


def test_memory_on_apple_silicon_budgets_metals_working_set_and_counts_ram_once(
    small_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    """A recorded Metal reading (tests/fixtures/ggml_devices/metal.json) in place of this machine's."""
    metal = replace(
        probe_hardware(),
        devices=devices_of("metal"),
        backends=backends_of("metal"),
        gpus=(),
        gpu_absent_reason=None,
        gpu_offload_supported=True,
    )
    monkeypatch.setattr(memory_plan, "probe_hardware", lambda: metal)
    target, draft = small_pair
    assert main(["memory", "--target", str(target), "--draft", str(draft), "--ctx", "2048"]) == 0
    text = capsys.readouterr().out
    assert "  backends: Metal (GPU) and CPU" in text
    assert "free unified memory (Metal's working set) on Apple M2 Pro" in text
    assert "counted in RAM too, once" in text
    assert "  gpu device: MTL0: Apple M2 Pro (the only one llama.cpp lists)" in text
    payload = run_json(capsys, "--target", str(target), "--draft", str(draft), "--ctx", "2048")
    assert payload["budget"]["gpu_shares_ram"] is True and payload["budget"]["gpu_bytes"] == 22906503168
    ram = next(d for d in payload["verdict"]["devices"] if d["device"] == "cpu")
    assert ram["needed_bytes"] == payload["totals"]["cpu"] + payload["totals"]["gpu"]  # the GPU's share is RAM too
