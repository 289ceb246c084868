"""ggml's device list read from the real libggml of the pinned wheel (a CPU build here)."""

from __future__ import annotations

import psutil
import pytest

from app.core.memory.devices import NO_GPU_BACKEND, DeviceKind
from app.engine.llama.model import gpu_offload_supported
from app.engine.memory import ggml_devices
from app.engine.memory.ggml_devices import GgmlUnavailableError, read_backends, read_devices
from app.engine.memory.hardware import probe_hardware


def test_the_cpu_device_is_listed_with_this_machines_ram() -> None:
    devices = read_devices()
    cpus = [d for d in devices if d.kind is DeviceKind.CPU]
    assert len(cpus) == 1
    (cpu,) = cpus
    assert cpu.name == "CPU"
    assert cpu.description  # the processor's name
    ram = psutil.virtual_memory().total
    assert abs(cpu.total_bytes - ram) <= ram // 10
    assert 0 < cpu.free_bytes <= cpu.total_bytes
    if not gpu_offload_supported():  # the CPU build: nothing else to list
        assert devices == (cpu,)


@pytest.mark.skipif(gpu_offload_supported(), reason="a GPU build of llama-cpp-python")
def test_a_cpu_build_has_no_offload_device_and_says_why() -> None:
    budget = probe_hardware()
    assert budget.devices == read_devices()
    assert budget.offload_device is None  # whatever NVML sees: a CPU build lists no GPU
    assert budget.gpu_budget_bytes is None
    assert budget.gpu_unusable_reason == str(NO_GPU_BACKEND)
    assert budget.backends == read_backends() == ("CPU",)
    assert str(budget.backend_words).startswith("CPU only: no GPU backend in this build")


def test_an_unreadable_device_list_is_a_reason_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreadable() -> None:
        raise GgmlUnavailableError("this llama.cpp build does not list its devices: no ggml_backend_dev_memory")

    monkeypatch.setattr(ggml_devices, "_calls", unreadable)
    with pytest.raises(GgmlUnavailableError):
        read_devices()
    budget = probe_hardware()
    assert budget.devices == ()
    if not budget.gpus:
        assert (budget.gpu_absent_reason or "").startswith("this llama.cpp build does not list its devices")


def test_the_budget_cap_is_read_in_mib_and_a_bad_value_is_ignored_with_a_log_line(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv(ggml_devices.GPU_BUDGET_ENV, raising=False)
    assert ggml_devices.budget_cap_bytes() is None
    monkeypatch.setenv(ggml_devices.GPU_BUDGET_ENV, "64")
    assert ggml_devices.budget_cap_bytes() == 64 << 20
    (cpu,) = (d for d in read_devices() if d.kind is DeviceKind.CPU)
    assert cpu.free_bytes > 64 << 20  # the CPU is never capped: it holds no GPU layers
    monkeypatch.setenv(ggml_devices.GPU_BUDGET_ENV, "lots")
    with caplog.at_level("WARNING", logger=ggml_devices.__name__):
        assert ggml_devices.budget_cap_bytes() is None
    assert "TANDEM_GPU_BUDGET_MB='lots' is not a whole number of MiB" in caplog.text
