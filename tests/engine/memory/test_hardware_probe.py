"""Hardware probe: RAM through psutil, NVIDIA GPUs through NVML (absent here), recorded NVML values.

The GPU budget itself is ggml's device list (tests/engine/memory/test_recorded_devices.py); NVML adds
this process's use of the card and the driver version.
"""

from __future__ import annotations

import sys

import llama_cpp
import psutil
import pytest

from app.core.memory.devices import BackendDevice, DeviceKind
from app.core.memory.estimate import Device, ModelShape, estimate_pair
from app.core.memory.verdict import DOES_NOT_FIT, FITS, judge
from app.engine.memory import hardware as hardware_probe
from app.engine.memory.hardware import (
    HardwareBudget,
    NvmlUnavailableError,
    parse_nvml,
    probe_hardware,
    read_nvml,
)

GIB = 2**30
OUR_PID = 4242

# What read_nvml returned on a desktop with one RTX 3060 (12 GiB), this process
# holding a model, a browser on the same GPU, and a container process whose
# usage the driver hides (NVML's "value not available" becomes None).
RECORDED_NVML = {
    "driver_version": "550.120",
    "devices": [
        {
            "index": 0,
            "name": "NVIDIA GeForce RTX 3060",
            "uuid": "GPU-5e1c2b7a-3f0d-4c1e-9b0a-8d7f6e5d4c3b",
            "memory": {"total": 12_884_901_888, "free": 8_531_214_336, "used": 4_353_687_552},
            "processes": [
                {"pid": OUR_PID, "usedGpuMemory": 2_617_245_696},
                {"pid": 1977, "usedGpuMemory": 402_653_184},
                {"pid": 3100, "usedGpuMemory": None},
            ],
        }
    ],
}


def nvml_works() -> bool:
    try:
        return bool(read_nvml()["devices"])
    except NvmlUnavailableError:
        return False


def test_ram_figures_come_from_psutil():
    budget = probe_hardware()
    memory = psutil.virtual_memory()
    assert budget.ram_total_bytes == memory.total
    assert 0 < budget.ram_available_bytes <= budget.ram_total_bytes
    assert budget.process_rss_bytes > 10 * 2**20  # this Python process at least
    assert budget.cpu_budget_bytes == budget.ram_available_bytes  # available, not total


def test_memory_already_held_counts_back_into_the_cpu_budget():
    budget = probe_hardware(ram_held_bytes=3 * GIB)
    assert budget.cpu_budget_bytes == budget.ram_available_bytes + 3 * GIB


def test_offload_support_is_the_wheels_answer():
    assert probe_hardware().gpu_offload_supported is bool(llama_cpp.llama_supports_gpu_offload())


@pytest.mark.skipif(nvml_works(), reason="an NVIDIA driver is present here")
def test_missing_nvidia_driver_is_reported_not_raised():
    budget = probe_hardware()
    assert budget.gpus == ()
    assert budget.gpu_budget_bytes is None
    assert budget.gpu_absent_reason is not None
    assert "NVIDIA" in budget.gpu_absent_reason or "NVML" in budget.gpu_absent_reason
    assert budget.gpu_unusable_reason


def test_missing_nvml_package_is_reported(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` fail
    with pytest.raises(NvmlUnavailableError, match="nvidia-ml-py is not installed"):
        read_nvml()
    reason = probe_hardware().gpu_absent_reason or ""
    assert reason.endswith("; nvidia-ml-py is not installed, so NVIDIA GPUs cannot be queried")


def test_recorded_nvml_values_parse_into_gpu_info():
    gpus, driver = parse_nvml(RECORDED_NVML, OUR_PID)
    assert driver == "550.120"
    (gpu,) = gpus
    assert gpu.name == "NVIDIA GeForce RTX 3060"
    assert gpu.total_bytes == 12_884_901_888
    assert gpu.free_bytes == 8_531_214_336
    assert gpu.used_bytes == 4_353_687_552
    assert gpu.process_bytes == 2_617_245_696


def test_process_use_is_zero_when_absent_and_none_when_hidden():
    assert parse_nvml(RECORDED_NVML, 999_999)[0][0].process_bytes == 0
    assert parse_nvml(RECORDED_NVML, 3100)[0][0].process_bytes is None


def test_old_pynvml_bytes_names_and_duplicate_process_entries():
    record = {
        "driver_version": b"535.54.03",
        "devices": [
            {
                "index": 0,
                "name": b"NVIDIA RTX A2000",
                "memory": {"total": 6 * GIB, "free": 5 * GIB, "used": GIB},
                # Listed as both a compute and a graphics process.
                "processes": [{"pid": OUR_PID, "usedGpuMemory": 512}, {"pid": OUR_PID, "usedGpuMemory": 512}],
            }
        ],
    }
    gpus, driver = parse_nvml(record, OUR_PID)
    assert driver == "535.54.03"
    assert gpus[0].name == "NVIDIA RTX A2000"
    assert gpus[0].process_bytes == 512


# The same card as ggml's CUDA backend lists it (its free memory as CUDA reports it).
CUDA_3060 = BackendDevice(
    name="CUDA0",
    description="NVIDIA GeForce RTX 3060",
    kind=DeviceKind.GPU,
    free_bytes=8_531_214_336,
    total_bytes=12_884_901_888,
)


def test_gpu_budget_is_free_vram_plus_what_this_process_holds():
    gpus, driver = parse_nvml(RECORDED_NVML, OUR_PID)
    budget = HardwareBudget(
        ram_total_bytes=32 * GIB,
        ram_available_bytes=20 * GIB,
        process_rss_bytes=GIB,
        gpus=gpus,
        gpu_offload_supported=True,
        driver_version=driver,
        devices=(CUDA_3060,),
    )
    assert budget.gpu_budget_bytes == 8_531_214_336 + 2_617_245_696  # ggml's free memory, NVML's use of ours
    assert budget.gpu_unusable_reason is None
    # A CPU-only llama.cpp build cannot use the GPU, whatever NVML says.
    cpu_only = HardwareBudget(32 * GIB, 20 * GIB, GIB, gpus=gpus, gpu_offload_supported=False)
    assert cpu_only.gpu_budget_bytes is None
    assert (cpu_only.gpu_unusable_reason or "").startswith("no GPU backend in this build")
    # NVML alone budgets nothing: a card the build does not list is not one llama.cpp would use.
    unlisted = HardwareBudget(32 * GIB, 20 * GIB, GIB, gpus=gpus, gpu_offload_supported=True)
    assert unlisted.offload_device is None and unlisted.gpu_budget_bytes is None


def test_recorded_gpu_feeds_a_verdict():
    gpus, _ = parse_nvml(RECORDED_NVML, OUR_PID)
    budget = HardwareBudget(32 * GIB, 20 * GIB, GIB, gpus=gpus, gpu_offload_supported=True, devices=(CUDA_3060,))
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
    fits = judge(estimate_pair(shape, None, 4096, -1, 0), budget)
    assert fits.for_device(Device.GPU).status == FITS  # type: ignore[union-attr]
    too_long = judge(estimate_pair(shape, None, 131_072, -1, 0), budget)
    assert too_long.for_device(Device.GPU).status == DOES_NOT_FIT  # type: ignore[union-attr]
    assert any(a.startswith("offload ") or a.startswith("reduce context") for a in too_long.advice)


@pytest.mark.skipif(not nvml_works(), reason="needs an NVIDIA GPU and driver")
def test_live_gpu_is_read_through_the_same_parser():
    budget = probe_hardware()
    assert budget.gpus
    for gpu in budget.gpus:
        assert gpu.name
        assert 0 < gpu.free_bytes <= gpu.total_bytes
        assert gpu.used_bytes <= gpu.total_bytes
    assert budget.gpu_absent_reason is None
    assert budget.driver_version


def test_repack_types_match_this_cpu():
    flags = hardware_probe._cpu_flags()
    types = hardware_probe.cpu_repack_types()
    if "avx2" in flags:
        assert {"Q4_0", "Q4_K"} <= types
    assert "Q6_K" not in types and "Q8_0" not in types


def test_a_card_only_nvml_sees_is_named_in_the_reason_not_budgeted(monkeypatch: pytest.MonkeyPatch):
    """This machine's ggml list (the CPU alone) with NVML's recorded RTX 3060: NVML only adds words."""
    monkeypatch.setattr(hardware_probe, "read_nvml", lambda: RECORDED_NVML)
    budget = probe_hardware()
    if budget.offload_choice.device is not None:
        pytest.skip("this llama.cpp build lists a GPU here")
    assert budget.gpus and budget.offload_device is None
    assert "NVML sees NVIDIA GeForce RTX 3060" in (budget.gpu_absent_reason or "")
    assert budget.driver_version == "550.120"
