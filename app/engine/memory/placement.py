"""Which device each loaded model of a pair runs on, from ggml's device list and the load options."""

from __future__ import annotations

from typing import Any

from app.core.memory.devices import DeviceKind, Placement, place_model
from app.engine.llama.model import LlamaModel
from app.engine.llama.session import LoadedPair
from app.engine.memory.hardware import HardwareBudget, probe_hardware


def model_placement(model: LlamaModel, hardware: HardwareBudget) -> Placement:
    """Where ``model`` runs: its load options' GPU layers on the device llama.cpp offloads to."""
    gpu = hardware.offload_device if hardware.gpu_offload_supported else None
    cpu = next((d for d in hardware.devices if d.kind is DeviceKind.CPU), None)
    return place_model(model.options.n_gpu_layers, model.n_layer + 1, gpu, cpu)


def pair_placement_json(pair: LoadedPair) -> dict[str, Any]:
    """``{"target": ..., "draft": ... or None}``: each model's :class:`Placement` as JSON."""
    hardware = probe_hardware()
    draft = model_placement(pair.draft, hardware).to_json() if pair.draft is not None else None
    return {"target": model_placement(pair.target, hardware).to_json(), "draft": draft}
