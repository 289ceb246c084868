"""GPU layers "auto" on real GGUF headers: this CPU build changes nothing; a recorded GPU budget gets the plan.

The GPU budgets are :class:`HardwareBudget` records with figures a real GPU reports
(this machine has none), the same records ``probe_hardware`` builds from ggml's device list.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.cli import main
from app.core.memory.devices import BackendDevice, DeviceKind
from app.core.memory.estimate import Device
from app.core.memory.offload import AUTO_GPU_LAYERS
from app.engine.llama.model import gpu_offload_supported
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.memory import plan as memory_plan
from app.engine.memory.hardware import HardwareBudget, probe_hardware
from app.engine.memory.measure import measured_breakdown
from app.engine.memory.plan import auto_gpu_layers, plan_pair, resolve_gpu_layers
from app.engine.memory.shape import shape_from_gguf

GIB = 2**30
MIB = 2**20
CPU_BUILD = pytest.mark.skipif(gpu_offload_supported(), reason="this llama.cpp build can offload")


def gpu_budget(free_bytes: int) -> HardwareBudget:
    """This machine's RAM with one 24 GiB NVIDIA GPU (as ggml's CUDA backend lists it) holding ``free_bytes`` free."""
    gpu = BackendDevice(
        name="CUDA0",
        description="NVIDIA GeForce RTX 4090",
        kind=DeviceKind.GPU,
        free_bytes=free_bytes,
        total_bytes=24 * GIB,
    )
    return replace(probe_hardware(), devices=(gpu,), gpus=(), gpu_absent_reason=None, gpu_offload_supported=True)


def test_a_large_gpu_takes_both_models_whole(small_pair: tuple[Path, Path]) -> None:
    target, draft = (shape_from_gguf(p) for p in small_pair)
    ngl, ngld, plan = resolve_gpu_layers(target, draft, 2048, AUTO_GPU_LAYERS, AUTO_GPU_LAYERS, gpu_budget(20 * GIB))
    assert (ngl, ngld) == (31, 31)
    assert plan is not None and plan.describe() == "auto: 31 of 31 target layers, 31 of 31 draft layers on the GPU"


def test_a_small_gpu_gets_the_draft_first(small_pair: tuple[Path, Path]) -> None:
    target, draft = (shape_from_gguf(p) for p in small_pair)
    full = resolve_gpu_layers(target, draft, 2048, AUTO_GPU_LAYERS, AUTO_GPU_LAYERS, gpu_budget(20 * GIB))[2]
    assert full is not None
    # Room for the runtime, the whole draft and a part of the target, after the 5% margin.
    free = int((full.gpu_bytes - 40 * MIB) / 0.95)
    ngl, ngld, plan = resolve_gpu_layers(target, draft, 2048, AUTO_GPU_LAYERS, AUTO_GPU_LAYERS, gpu_budget(free))
    assert ngld == 31 and 0 < ngl < 31
    assert plan is not None and plan.gpu_bytes <= free * 0.95
    # A count the user set is kept: the draft forced to 0 leaves the target the room.
    ngl2, ngld2, _ = resolve_gpu_layers(target, draft, 2048, AUTO_GPU_LAYERS, 0, gpu_budget(free))
    assert ngld2 == 0 and ngl2 == 31


def test_no_gpu_or_a_cpu_build_means_zero_layers(small_pair: tuple[Path, Path]) -> None:
    target, draft = (shape_from_gguf(p) for p in small_pair)
    cpu_build = replace(gpu_budget(20 * GIB), gpu_offload_supported=False)
    assert resolve_gpu_layers(target, draft, 2048, AUTO_GPU_LAYERS, AUTO_GPU_LAYERS, cpu_build) == (0, 0, None)
    cpu_only = tuple(d for d in probe_hardware().devices if d.kind is DeviceKind.CPU)
    no_gpu = replace(gpu_budget(20 * GIB), devices=cpu_only)  # ggml lists no GPU
    assert resolve_gpu_layers(target, None, 2048, AUTO_GPU_LAYERS, 7, no_gpu) == (0, 7, None)


@CPU_BUILD
def test_on_this_cpu_build_auto_reads_nothing_and_the_plan_is_unchanged(
    small_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    # No file is read: these paths do not exist.
    assert auto_gpu_layers(tmp_path / "t.gguf", tmp_path / "d.gguf", 2048, AUTO_GPU_LAYERS, AUTO_GPU_LAYERS) == (
        0,
        0,
        None,
    )
    auto = plan_pair(*small_pair, 2048)  # the defaults: auto
    zero = plan_pair(*small_pair, 2048, 0, 0)
    assert auto.breakdown.components == zero.breakdown.components
    assert auto.all_notes == zero.all_notes and auto.offload is None
    assert not any("cannot offload" in n for n in auto.all_notes)  # auto is not a count to ignore


def test_plan_pair_with_a_gpu_estimates_the_chosen_counts(
    small_pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory_plan, "probe_hardware", lambda: gpu_budget(20 * GIB))
    plan = plan_pair(*small_pair, 2048)
    assert plan.offload is not None and plan.offload.describe() in plan.notes
    request = plan.breakdown.request
    assert request is not None and (request.n_gpu_layers, request.n_gpu_layers_draft) == (31, 31)
    assert plan.breakdown.bytes_on(Device.GPU) == plan.offload.gpu_bytes


@CPU_BUILD
def test_a_pair_loaded_with_auto_records_zero_layers_here(small_pair: tuple[Path, Path]) -> None:
    config = PairConfig(*small_pair, DrafterKind.MODEL, n_ctx=512)
    assert config.n_gpu_layers == config.n_gpu_layers_draft == AUTO_GPU_LAYERS
    with LoadedPair(config) as pair:
        assert pair.config == config  # as asked: the window compares it with its own choice
        assert pair.draft is not None
        assert (pair.target.options.n_gpu_layers, pair.draft.options.n_gpu_layers) == (0, 0)  # as loaded
        measured = measured_breakdown(pair, 0)
        assert measured.request is not None and (
            measured.request.n_gpu_layers,
            measured.request.n_gpu_layers_draft,
        ) == (0, 0)
        assert measured.bytes_on(Device.GPU) == 0


def test_memory_command_takes_auto_and_refuses_below_minus_one(small_pair, capsys) -> None:
    target, draft = small_pair
    assert main(["memory", "--target", str(target), "--draft", str(draft), "--ngl", "auto", "--json"]) in (0, 1)
    out = capsys.readouterr().out
    assert '"gpu_layers_auto": null' in out or gpu_offload_supported()
    with pytest.raises(SystemExit):
        main(["memory", "--target", str(target), "--ngl", "-3"])
    assert "expected 'auto' or a number of layers >= -1" in capsys.readouterr().err
