"""GPU layers "auto" in the window: the settings' spin boxes and the memory meter's line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.core.memory.devices import BackendDevice, DeviceKind
from app.core.memory.offload import AUTO_GPU_LAYERS
from app.engine.llama.session import DrafterKind
from app.engine.memory import plan as memory_plan
from app.engine.memory.hardware import probe_hardware
from app.ui.models.memory_sources import estimate_state
from app.ui.settings.panel import SettingsPanel
from app.ui.settings.store import AppSettings, GenerationSettings, PairChoice

GIB = 2**30


def test_auto_is_the_default_shown_as_auto_and_a_count_overrides_it(qtbot, tmp_path: Path) -> None:
    panel = SettingsPanel(gpu_offload=True)
    qtbot.addWidget(panel)
    panel.set_settings(GenerationSettings())
    assert panel.n_gpu_layers.text() == "auto" and panel.n_gpu_layers_draft.text() == "auto"
    assert panel.settings().n_gpu_layers == panel.settings().n_gpu_layers_draft == AUTO_GPU_LAYERS
    panel.n_gpu_layers.setValue(12)
    panel.n_gpu_layers_draft.setValue(0)
    assert (panel.settings().n_gpu_layers, panel.settings().n_gpu_layers_draft) == (12, 0)
    panel.set_settings(GenerationSettings(n_gpu_layers=-1))  # llama.cpp's "all", from an older file or the CLI
    assert panel.n_gpu_layers.value() == 999
    store = AppSettings(tmp_path / "settings.ini")
    assert store.generation().n_gpu_layers == AUTO_GPU_LAYERS  # a new machine starts on auto
    store.set_generation(replace(GenerationSettings(), n_gpu_layers_draft=4))
    assert (store.generation().n_gpu_layers, store.generation().n_gpu_layers_draft) == (AUTO_GPU_LAYERS, 4)


def test_the_meter_says_what_auto_chose(small_pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """With a GPU build and a 24 GiB GPU (recorded figures; none here), the meter's text leads with the plan."""
    gpu = BackendDevice(
        name="CUDA0",
        description="NVIDIA GeForce RTX 4090",
        kind=DeviceKind.GPU,
        free_bytes=20 * GIB,
        total_bytes=24 * GIB,
    )
    budget = replace(probe_hardware(), devices=(gpu,), gpus=(), gpu_absent_reason=None, gpu_offload_supported=True)
    monkeypatch.setattr(memory_plan, "probe_hardware", lambda: budget)
    state = estimate_state(PairChoice(*small_pair, DrafterKind.MODEL), GenerationSettings(n_ctx=2048))
    assert state.verdict.splitlines()[0] == "auto: 31 of 31 target layers, 31 of 31 draft layers on the GPU"
    assert any(bar.device.startswith("GPU (NVIDIA GeForce RTX 4090)") for bar in state.bars)
    fixed = estimate_state(PairChoice(*small_pair, DrafterKind.MODEL), GenerationSettings(2048, 0, 0))
    assert not fixed.verdict.startswith("auto:")  # set counts: no plan line


def test_the_meter_reads_the_gpu_ggml_lists(small_pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A Vulkan build on an AMD card (made-up ggml figures; NVML sees nothing): the meter and "auto" use that card."""
    radeon = BackendDevice(
        name="Vulkan0", description="AMD Radeon RX 7600", kind=DeviceKind.GPU, free_bytes=7 * GIB, total_bytes=8 * GIB
    )
    cpu = next(d for d in probe_hardware().devices if d.kind is DeviceKind.CPU)
    budget = replace(
        probe_hardware(),
        devices=(radeon, cpu),
        backends=("Vulkan", "CPU"),
        gpus=(),
        gpu_absent_reason=None,
        gpu_offload_supported=True,
    )
    monkeypatch.setattr(memory_plan, "probe_hardware", lambda: budget)
    state = estimate_state(PairChoice(*small_pair, DrafterKind.MODEL), GenerationSettings(n_ctx=2048))
    assert state.verdict.splitlines()[0] == "auto: 31 of 31 target layers, 31 of 31 draft layers on the GPU"
    assert any(bar.device.startswith("GPU (AMD Radeon RX 7600)") for bar in state.bars)
    # The meter's tip names the build's backend and the device it plans for.
    assert "llama.cpp backends: Vulkan (GPU) and CPU" in state.notes
    assert "GPU: Vulkan0: AMD Radeon RX 7600 (the only one llama.cpp lists)" in state.notes


def test_the_meter_shows_ram_on_this_cpu_build(small_pair: tuple[Path, Path]) -> None:
    """The real device list here: only the CPU, so "auto" offloads nothing and the meter has one RAM bar."""
    if probe_hardware().offload_device is not None:
        pytest.skip("this machine has a GPU llama.cpp can use")
    state = estimate_state(PairChoice(*small_pair, DrafterKind.MODEL), GenerationSettings(n_ctx=2048))
    assert [bar.device for bar in state.bars] == ["System RAM"]
    assert not state.verdict.startswith("auto:")
    # The meter's tip says this build has no GPU backend and how to get one.
    assert any(note.startswith("llama.cpp backends: CPU only: no GPU backend in this build") for note in state.notes)
