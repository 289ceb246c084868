"""The compute devices a llama.cpp build lists, and which one its GPU layers go to.

Pure data and rules. ggml reports every backend device (CPU, CUDA, Vulkan,
Metal, ROCm/HIP, SYCL...) with a name ("CUDA0", "Vulkan0", "MTL0"), a
description (the card's name), a type and its free and total memory; the
engine reads them (``app.engine.memory.ggml_devices``) into
:class:`BackendDevice` records and everything else works on the records, so
made-up devices test the same rules that read a real one.

Which device llama.cpp offloads to: every discrete GPU, else the integrated
GPUs (llama.cpp's model loader takes iGPUs only when no GPU is listed), in
ggml's order; Tandem plans for the first of them, the one llama.cpp puts the
output layer on. Metal on Apple silicon lists itself as a GPU whose memory is
the system's unified memory as Metal reports it (its recommended working
set), so that figure is the budget, not system RAM counted a second time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from app.core.memory.offload import OffloadCost, OffloadPlan, plan_offload

# Free device memory "auto" leaves unplanned: other programs' allocations move, and the
# GPU figures (context, compute buffers) are llama.cpp's rules, not measurements.
AUTO_MARGIN = 0.05


class DeviceKind(StrEnum):
    """What a ggml backend device is (ggml's ``enum ggml_backend_dev_type``)."""

    CPU = "cpu"
    GPU = "gpu"  # a discrete GPU with its own memory
    IGPU = "igpu"  # an integrated GPU using host memory
    ACCEL = "accel"  # an accelerator working with the CPU (BLAS, AMX); never holds layers


# ggml_backend_dev_type's values in declaration order: CPU = 0, GPU = 1, IGPU = 2, ACCEL = 3.
_GGML_TYPE_ORDER = (DeviceKind.CPU, DeviceKind.GPU, DeviceKind.IGPU, DeviceKind.ACCEL)


def kind_of_ggml_type(value: int) -> DeviceKind | None:
    """The kind for ggml's device type number; None for a number this code does not know."""
    return _GGML_TYPE_ORDER[value] if 0 <= value < len(_GGML_TYPE_ORDER) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class BackendDevice:
    """One device as the llama.cpp build reports it."""

    name: str  # ggml's short name: "CPU", "CUDA0", "Vulkan0", "MTL0"
    description: str  # what the hardware calls itself: "NVIDIA GeForce RTX 4060", "Apple M2"
    kind: DeviceKind
    free_bytes: int
    total_bytes: int

    @property
    def holds_layers(self) -> bool:
        """Whether llama.cpp can put model layers on this device."""
        return self.kind in (DeviceKind.GPU, DeviceKind.IGPU)

    @property
    def label(self) -> str:
        """ "Vulkan0: AMD Radeon RX 7600" for messages; the name alone when there is no description."""
        return f"{self.name}: {self.description}" if self.description and self.description != self.name else self.name

    def to_json(self) -> dict[str, Any]:
        """The record as JSON values (``chat --json``, ``memory --json``)."""
        return {
            "name": self.name,
            "description": self.description,
            "kind": self.kind.value,
            "free_bytes": self.free_bytes,
            "total_bytes": self.total_bytes,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BackendDevice | None:
        """A record read back from :meth:`to_json`'s shape; None for one that is not usable."""
        try:
            kind = DeviceKind(str(data["kind"]))
            return cls(
                name=str(data["name"]),
                description=str(data.get("description", "")),
                kind=kind,
                free_bytes=max(0, int(data["free_bytes"])),
                total_bytes=max(0, int(data["total_bytes"])),
            )
        except (KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    """Where one loaded model runs: the device its GPU layers are on (the CPU when none) and how many."""

    device: str  # ggml's name: "CPU", "CUDA0", "Vulkan0", "MTL0"
    description: str
    gpu_layers: int  # layer slots on the GPU (repeating blocks and the output layer); 0 on the CPU

    def to_json(self) -> dict[str, Any]:
        """The record as JSON values (``chat --json``'s ``placement``)."""
        return {"device": self.device, "description": self.description, "gpu_layers": self.gpu_layers}


def place_model(n_gpu_layers: int, n_slots: int, gpu: BackendDevice | None, cpu: BackendDevice | None) -> Placement:
    """Where llama.cpp puts a model loaded with ``n_gpu_layers`` (negative: all) of its ``n_slots``.

    ``gpu`` is the device layers go to (None: a CPU build or no GPU, so every
    layer stays on the CPU whatever the count); ``cpu`` names the CPU when known.
    """
    layers = 0 if gpu is None else (n_slots if n_gpu_layers < 0 else min(n_gpu_layers, n_slots))
    if gpu is not None and layers > 0:
        return Placement(device=gpu.name, description=gpu.description, gpu_layers=layers)
    return Placement(device="CPU", description=cpu.description if cpu is not None else "", gpu_layers=0)


def cap_free_memory(devices: Iterable[BackendDevice], cap_bytes: int | None) -> tuple[BackendDevice, ...]:
    """The devices with each one that holds layers reporting at most ``cap_bytes`` free (None: as read).

    A limit set by hand (``TANDEM_GPU_BUDGET_MB``): a device shared with other work, or a test
    that needs a device without room.
    """
    if cap_bytes is None:
        return tuple(devices)
    cap = max(0, cap_bytes)
    return tuple(
        replace(device, free_bytes=min(device.free_bytes, cap)) if device.holds_layers else device for device in devices
    )


def offload_device(devices: Iterable[BackendDevice]) -> BackendDevice | None:
    """The device llama.cpp puts GPU layers on: the first GPU, else the first integrated GPU, else None."""
    listed = tuple(devices)
    for kind in (DeviceKind.GPU, DeviceKind.IGPU):
        for device in listed:
            if device.kind is kind:
                return device
    return None


def device_budget_bytes(device: BackendDevice | None, held_bytes: int = 0) -> int | None:
    """What ``device`` offers for models: its free memory plus what this process already holds there.

    None when there is no device that takes layers.
    """
    if device is None or not device.holds_layers:
        return None
    return device.free_bytes + max(0, held_bytes)


def plan_for_device(
    device: BackendDevice | None,
    target: OffloadCost,
    draft: OffloadCost | None = None,
    *,
    held_bytes: int = 0,
    target_layers: int | None = None,
    draft_layers: int | None = None,
) -> OffloadPlan | None:
    """GPU layers "auto" for ``device``: :func:`plan_offload` on its budget less :data:`AUTO_MARGIN`.

    None when there is no device that takes layers (everything stays on the CPU).
    """
    budget = device_budget_bytes(device, held_bytes)
    if budget is None:
        return None
    return plan_offload(
        int(budget * (1 - AUTO_MARGIN)),
        target,
        draft,
        target_layers=target_layers,
        draft_layers=draft_layers,
    )
