"""The compute devices a llama.cpp build lists, and which one its GPU layers go to.

Pure data and rules. ggml reports every backend device (CPU, CUDA, Vulkan,
Metal, ROCm/HIP, SYCL...) with a name ("CUDA0", "Vulkan0", "MTL0"), a
description (the card's name), a type and its free and total memory; the
engine reads them (``app.engine.memory.ggml_devices``) into
:class:`BackendDevice` records and everything else works on the records, so
made-up devices test the same rules that read a real one.

Which device llama.cpp offloads to: every discrete GPU, else the integrated
GPUs (llama.cpp's model loader takes iGPUs only when no GPU is listed), in
ggml's order. With several, llama.cpp splits the layers over all of them;
Tandem plans for the first, the one llama.cpp puts the output layer on (a
budget that errs low), unless the user names one (``TANDEM_GPU_DEVICE``,
read by the engine), which then holds every GPU layer alone:
:func:`choose_offload_device`. Metal on Apple silicon lists itself as a GPU
whose memory is the system's unified memory as Metal reports it (its
recommended working set), so that figure is the GPU budget, and what the GPU
holds comes out of the same RAM (:attr:`BackendDevice.shares_host_memory`),
never counted twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words
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
    def backend(self) -> str:
        """The ggml backend the device belongs to: "CUDA", "Vulkan", "Metal", "ROCm", "SYCL", "CPU"."""
        return backend_of(self.name)

    @property
    def shares_host_memory(self) -> bool:
        """Whether what this device holds comes out of system RAM (Apple's unified memory, an integrated GPU)."""
        return self.kind is DeviceKind.IGPU or (self.holds_layers and self.backend == "Metal")

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


# What the user reads where a build has no GPU backend: the memory report, the meter's tip, the Model tab.
NO_GPU_BACKEND = QT_TRANSLATE_NOOP(
    "MemoryNotes",
    "no GPU backend in this build: run setup again with TANDEM_GPU=vulkan (any GPU) or TANDEM_GPU=cuda (NVIDIA)",
)

# ggml's device names are the backend's prefix and an index ("CUDA0", "Vulkan1", "MTL0", "ROCm0", "SYCL0").
_BACKEND_PREFIXES = {"MTL": "Metal", "HIP": "ROCm"}


def backend_of(name: str) -> str:
    """The backend of a ggml device name: "CUDA1" -> "CUDA", "MTL0" -> "Metal"; the name when it has no index."""
    prefix = name.rstrip("0123456789") or name
    return _BACKEND_PREFIXES.get(prefix, prefix)


def gpu_backends(backends: Iterable[str]) -> tuple[str, ...]:
    """The GPU backends among ggml's registered ones (everything but the CPU and its helpers), in order."""
    helpers = {"CPU", "BLAS", "AMX", "RPC"}
    seen: dict[str, None] = {}
    for name in backends:
        if name and name not in helpers:
            seen.setdefault(backend_of(name), None)
    return tuple(seen)


def backend_words(backends: Iterable[str]) -> Words | Phrase:
    """Which backends a build has, for ``memory``, the Model tab and About: its GPU ones, or that it has none."""
    listed = tuple(backends)
    gpus = gpu_backends(listed)
    if gpus:
        return QT_TRANSLATE_NOOP("MemoryNotes", "{gpus} (GPU) and CPU").fill(gpus=", ".join(gpus))
    if not listed:
        return QT_TRANSLATE_NOOP("MemoryNotes", "unknown (this llama.cpp build does not list its backends)")
    return QT_TRANSLATE_NOOP("MemoryNotes", "CPU only: {why}").fill(why=NO_GPU_BACKEND)


def layer_devices(devices: Iterable[BackendDevice]) -> tuple[BackendDevice, ...]:
    """The devices llama.cpp may put layers on, in its order: the GPUs, else the integrated GPUs."""
    listed = tuple(devices)
    gpus = tuple(d for d in listed if d.kind is DeviceKind.GPU)
    return gpus or tuple(d for d in listed if d.kind is DeviceKind.IGPU)


def offload_device(devices: Iterable[BackendDevice]) -> BackendDevice | None:
    """The device llama.cpp puts GPU layers on: the first GPU, else the first integrated GPU, else None."""
    return choose_offload_device(devices).device


@dataclass(frozen=True, slots=True, kw_only=True)
class OffloadChoice:
    """The device GPU layers go to, among those llama.cpp lists, and how it was chosen."""

    device: BackendDevice | None
    index: int  # its place in llama.cpp's list of layer devices (the loader's ``main_gpu``)
    count: int  # how many devices llama.cpp could put layers on
    named: str = ""  # the device the user named ("" for llama.cpp's default)
    found: bool = True  # False when the named device is not in the list (the default is used)

    @property
    def alone(self) -> bool:
        """Whether every GPU layer goes to this one device (a named device, or the only one)."""
        return self.count <= 1 or (bool(self.named) and self.found)

    def to_json(self) -> dict[str, Any]:
        """The record as JSON values (``memory --json``'s ``gpu_device``)."""
        return {
            "device": self.device.name if self.device is not None else None,
            "index": self.index,
            "count": self.count,
            "named": self.named,
            "found": self.found,
        }

    def words(self) -> Words | Phrase | None:
        """Which device and why, for ``memory`` and the meter; None when there is no device to name."""
        if self.device is None:
            if not self.named:
                return None
            return QT_TRANSLATE_NOOP(
                "MemoryNotes", "TANDEM_GPU_DEVICE={named}: this build lists no device that takes layers"
            ).fill(named=self.named)
        label = self.device.label
        if self.named and not self.found:
            return QT_TRANSLATE_NOOP(
                "MemoryNotes", "{label} (TANDEM_GPU_DEVICE={named} names no device of this build: the default is used)"
            ).fill(label=label, named=self.named)
        if self.named:
            return QT_TRANSLATE_NOOP(
                "MemoryNotes", "{label} (named by TANDEM_GPU_DEVICE; it holds every GPU layer)"
            ).fill(label=label)
        if self.count > 1:
            return QT_TRANSLATE_NOOP(
                "MemoryNotes",
                "{label} (llama.cpp's default, the first of {count}: it splits layers over all of them and "
                "Tandem plans for this one; TANDEM_GPU_DEVICE=NAME uses one alone)",
            ).fill(label=label, count=self.count)
        return QT_TRANSLATE_NOOP("MemoryNotes", "{label} (the only one llama.cpp lists)").fill(label=label)


def choose_offload_device(devices: Iterable[BackendDevice], named: str = "") -> OffloadChoice:
    """The device GPU layers go to: the one ``named`` (ggml's name, any case), else llama.cpp's first."""
    candidates = layer_devices(devices)
    wanted = named.strip()
    if not candidates:
        return OffloadChoice(device=None, index=0, count=0, named=wanted, found=not wanted)
    if wanted:
        for index, device in enumerate(candidates):
            if device.name.casefold() == wanted.casefold():
                return OffloadChoice(device=device, index=index, count=len(candidates), named=wanted)
    return OffloadChoice(device=candidates[0], index=0, count=len(candidates), named=wanted, found=not wanted)


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
