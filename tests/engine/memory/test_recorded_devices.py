"""The budget, "auto" and the words about the build read from recorded ggml device lists of each backend.

The readings in tests/fixtures/ggml_devices are what :func:`app.engine.memory.ggml_devices.read_devices`
and ``read_backends`` give on CUDA, Vulkan, Metal, ROCm/HIP, SYCL and CPU-only builds, written for
these tests (each file says so); they go through the same records and rules a live reading does.
"""

from __future__ import annotations

from typing import Any

import llama_cpp
import pytest

from app.core.memory.devices import NO_GPU_BACKEND
from app.core.memory.estimate import Device, ModelShape, estimate_pair
from app.core.memory.verdict import judge
from app.engine.llama import model
from app.engine.memory.hardware import HardwareBudget, parse_nvml
from tests.ggml_readings import backends_of, devices_of

GIB = 2**30


def budget_for(backend: str, named: str = "", **extra: Any) -> HardwareBudget:
    return HardwareBudget(
        ram_total_bytes=32 * GIB,
        ram_available_bytes=16 * GIB,
        process_rss_bytes=GIB,
        gpu_offload_supported=backend != "cpu",
        devices=devices_of(backend),
        backends=backends_of(backend),
        named_device=named,
        **extra,
    )


@pytest.mark.parametrize(
    ("backend", "device", "budget", "shares_ram", "words"),
    [
        ("cuda", "CUDA0", 7434928128, False, "CUDA (GPU) and CPU"),
        ("vulkan", "Vulkan0", 7952400384, False, "Vulkan (GPU) and CPU"),  # the discrete card, not the iGPU
        ("metal", "MTL0", 22906503168, True, "Metal (GPU) and CPU"),  # the working set, not RAM
        ("rocm", "ROCm0", 25388515328, False, "ROCm (GPU) and CPU"),
        ("sycl", "SYCL0", 16225243136, False, "SYCL (GPU) and CPU"),
    ],
)
def test_each_backend_budgets_the_device_llama_cpp_uses(
    backend: str, device: str, budget: int, shares_ram: bool, words: str
) -> None:
    hardware = budget_for(backend)
    assert hardware.offload_device is not None and hardware.offload_device.name == device
    assert hardware.gpu_budget_bytes == budget
    assert hardware.gpu_shares_ram is shares_ram
    assert str(hardware.backend_words) == words
    assert hardware.gpu_unusable_reason is None
    assert str(hardware.offload_choice.words()).startswith(hardware.offload_device.label)


def test_a_cpu_only_build_says_it_has_no_gpu_backend_and_how_to_get_one() -> None:
    hardware = budget_for("cpu")
    assert hardware.offload_device is None and hardware.gpu_budget_bytes is None
    assert hardware.gpu_backends == ()
    assert hardware.gpu_unusable_reason == str(NO_GPU_BACKEND)
    assert str(hardware.backend_words) == f"CPU only: {NO_GPU_BACKEND}"
    assert "TANDEM_GPU=vulkan" in str(NO_GPU_BACKEND) and "TANDEM_GPU=cuda" in str(NO_GPU_BACKEND)
    assert hardware.offload_choice.words() is None
    named = budget_for("cpu", named="Vulkan0")
    assert (
        str(named.offload_choice.words()) == "TANDEM_GPU_DEVICE=Vulkan0: this build lists no device that takes layers"
    )


def test_several_gpus_plan_for_llama_cpps_first_or_the_one_named() -> None:
    default = budget_for("cuda")
    assert default.offload_choice.count == 2 and not default.offload_choice.alone
    assert "the first of 2" in str(default.offload_choice.words())
    named = budget_for("cuda", named="cuda1")  # ggml's name, any case
    assert named.offload_device is not None and named.offload_device.name == "CUDA1"
    assert named.gpu_budget_bytes == 12341739520 and named.offload_choice.index == 1
    assert "TANDEM_GPU_DEVICE" in str(named.offload_choice.words())
    unknown = budget_for("cuda", named="Vulkan0")
    assert unknown.offload_device is not None and unknown.offload_device.name == "CUDA0"
    assert "names no device" in str(unknown.offload_choice.words())
    assert unknown.offload_choice.to_json() == {
        "device": "CUDA0",
        "index": 0,
        "count": 2,
        "named": "Vulkan0",
        "found": False,
    }


def test_nvml_adds_this_processs_use_of_the_named_card_only() -> None:
    nvml = {
        "driver_version": "580.95.05",
        "devices": [
            {"index": 0, "name": "NVIDIA GeForce RTX 4060", "memory": {"total": 1, "free": 1, "used": 0}},
            {
                "index": 1,
                "name": "NVIDIA GeForce RTX 3060",
                "memory": {"total": 1, "free": 1, "used": 0},
                "processes": [{"pid": 42, "usedGpuMemory": 900 * 2**20}],
            },
        ],
    }
    gpus, driver = parse_nvml(nvml, 42)
    named = budget_for("cuda", named="CUDA1", gpus=gpus, driver_version=driver)
    assert named.gpu_held_bytes == 900 * 2**20
    assert named.gpu_budget_bytes == 12341739520 + 900 * 2**20  # ggml's free memory; NVML adds our own use
    assert budget_for("cuda", gpus=gpus).gpu_held_bytes == 0  # nothing of ours on CUDA0
    assert named.driver_version == "580.95.05"


def test_unified_memory_counts_what_the_gpu_holds_once_in_ram() -> None:
    shape = ModelShape.from_totals(
        n_params=7_615_616_512,
        file_size=4_683_073_536,
        n_layers=28,
        n_embd=3584,
        n_head=28,
        n_head_kv=4,
        head_dim=128,
        n_vocab=152_064,
    )
    breakdown = estimate_pair(shape, None, 4096, -1, 0)  # every layer on the GPU
    on_gpu, on_cpu = breakdown.bytes_on(Device.GPU), breakdown.bytes_on(Device.CPU)
    assert on_gpu > 4 * GIB
    metal = budget_for("metal")
    verdict = judge(breakdown, metal)
    ram = verdict.for_device(Device.CPU)
    assert ram is not None and ram.needed_bytes == on_cpu + on_gpu  # the same memory, counted once in RAM
    gpu = verdict.for_device(Device.GPU)
    assert gpu is not None and gpu.budget_bytes == 22906503168  # Metal's working set, not RAM again
    # A discrete card's share does not come out of RAM.
    cuda_ram = judge(breakdown, budget_for("rocm")).for_device(Device.CPU)
    assert cuda_ram is not None and cuda_ram.needed_bytes == on_cpu


def test_a_named_device_loads_every_gpu_layer_on_it_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "read_devices", lambda: devices_of("cuda"))
    monkeypatch.setenv("TANDEM_GPU_DEVICE", "CUDA1")
    default = (llama_cpp.LLAMA_SPLIT_MODE_LAYER, 0)
    assert model._device_options(-1) == (llama_cpp.LLAMA_SPLIT_MODE_NONE, 1)
    assert model._device_options(0) == default  # no GPU layers: nothing to place
    monkeypatch.setenv("TANDEM_GPU_DEVICE", "CUDA7")
    assert model._device_options(-1) == default  # not listed: llama.cpp's default, as `memory` says
    monkeypatch.delenv("TANDEM_GPU_DEVICE")
    assert model._device_options(-1) == default
