"""How much memory a target/draft pair needs, per component and per device, before loading it.

Pure arithmetic over :class:`ModelShape` (built by ``app.engine.memory.shape``
from a GGUF header, or with :meth:`ModelShape.from_totals` from a catalog
entry) using llama.cpp's allocation rules in :mod:`app.core.memory.rules`.
The result is a :class:`MemoryBreakdown`: target and draft weights, both KV
caches, compute buffers, logits and app buffers, and runtime state, each on
the CPU or the GPU. ``bytes`` is what must be resident for the worst case
(a full context); ``reserved_bytes`` and ``reclaimable_bytes`` explain how
that differs from what llama.cpp reserves and from what RSS shows.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import TypedDict, Unpack

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Value, Words
from app.core.memory.rules import (
    KV_TYPES,
    ModelShape,
    TensorBytes,
    WeightPlacement,
    blocks_on_gpu,
    compute_peak_bytes,
    cpu_work_bytes,
    gpu_layer_count,
    kv_cache_bytes,
    pad_context,
    weight_placement,
)

MIB = 1024 * 1024

# Runtime state per loaded model that is neither weights nor buffers: the
# vocabulary in llama.cpp (token texts, lookup maps, BPE merge ranks) and in
# Python (the GGUF header Tandem keeps), plus llama-cpp-python's per-model
# arrays. Calibrated on single-model loads in fresh processes (RSS growth
# minus weights, KV, compute and buffers): 34.5 MiB for SmolLM2 (49,152
# tokens), 72.8 and 75.5 MiB for Qwen2.5 0.5B and 1.5B (151,936 tokens).
RUNTIME_BASE_BYTES = 16 * MIB
RUNTIME_BYTES_PER_VOCAB_ENTRY = 400

# A CUDA context with cuBLAS costs a few hundred MiB of VRAM before any
# buffer exists. Not measurable on this machine (no GPU): a conservative
# assumption, labelled as such in the breakdown.
GPU_RUNTIME_BYTES = 300 * MIB

# Tandem's own rows: one float32 scratch row per LogitsWarper, plus about two
# float64 temporaries of a full row while warping.
APP_BYTES_PER_VOCAB_ENTRY = 4 + 2 * 8


class Device(enum.StrEnum):
    """Where a component lives."""

    CPU = "cpu"
    GPU = "gpu"


class Kind(enum.StrEnum):
    """What a component is; the value is the label the meter shows."""

    TARGET_WEIGHTS = "target weights"
    DRAFT_WEIGHTS = "draft weights"
    TARGET_KV = "target KV cache"
    DRAFT_KV = "draft KV cache"
    COMPUTE = "compute buffers"
    BUFFERS = "logits and app buffers"
    RUNTIME = "runtime"


@dataclass(frozen=True, slots=True)
class EstimateRequest:
    """Every input of an estimate, so a verdict can re-estimate variants."""

    target: ModelShape
    draft: ModelShape | None
    n_ctx: int
    n_gpu_layers: int
    n_gpu_layers_draft: int
    kv_type: str = "f16"
    n_batch: int = 512
    n_ubatch: int = 512
    n_outputs_max: int = 0
    max_verify_rows: int = 17
    flash_attn: bool = False
    repack_types: frozenset[str] = frozenset()
    context_fill: int | None = None


class RequestChanges(TypedDict, total=False):
    """Fields of :class:`EstimateRequest` to change, as keywords of ``dataclasses.replace``."""

    target: ModelShape
    draft: ModelShape | None
    n_ctx: int
    n_gpu_layers: int
    n_gpu_layers_draft: int
    kv_type: str
    n_batch: int
    n_ubatch: int
    n_outputs_max: int
    max_verify_rows: int
    flash_attn: bool
    repack_types: frozenset[str]
    context_fill: int | None


@dataclass(frozen=True, slots=True)
class Component:
    """One segment of the meter.

    ``bytes`` is what the component needs on ``device``. ``reserved_bytes``
    is the address space llama.cpp reserves for it (larger for CPU compute
    buffers whose pages Tandem never touches). ``reclaimable_bytes`` are
    mapped file pages counted in RSS but not needed (superseded by a copy).
    ``measured`` says whether ``bytes`` came from a measurement.
    """

    kind: Kind
    device: Device
    bytes: int
    reserved_bytes: int = 0
    reclaimable_bytes: int = 0
    measured: bool = False
    note: str = ""

    @property
    def label(self) -> str:
        """The meter label, e.g. ``draft KV cache``."""
        return self.kind.value


@dataclass(frozen=True, slots=True)
class DeviceUsage:
    """One device's bar: labelled segments; the budget is filled in by a verdict."""

    name: str
    segments: dict[str, int]
    budget: int | None = None


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """Components per kind and device, with totals."""

    components: tuple[Component, ...]
    request: EstimateRequest | None = None
    note_words: tuple[Words | Phrase, ...] = ()

    @property
    def notes(self) -> tuple[str, ...]:
        """The notes in English (the window renders :attr:`note_words`)."""
        return tuple(str(note) for note in self.note_words)

    def bytes_on(self, device: Device) -> int:
        """What ``device`` needs."""
        return sum(c.bytes for c in self.components if c.device is device)

    def reclaimable_on(self, device: Device) -> int:
        """Page-cache bytes counted in RSS on ``device`` but not needed."""
        return sum(c.reclaimable_bytes for c in self.components if c.device is device)

    def of_kind(self, kind: Kind, device: Device | None = None) -> int:
        """Bytes of one kind, on one device or all."""
        return sum(c.bytes for c in self.components if c.kind is kind and (device is None or c.device is device))

    @property
    def totals(self) -> dict[Device, int]:
        """Needed bytes per device that holds anything."""
        out: dict[Device, int] = {}
        for c in self.components:
            out[c.device] = out.get(c.device, 0) + c.bytes
        return out

    @property
    def total_bytes(self) -> int:
        """Needed bytes over all devices."""
        return sum(c.bytes for c in self.components)

    @property
    def devices(self) -> tuple[DeviceUsage, ...]:
        """One bar per device, segments in component order (for the GUI meter)."""
        bars: list[DeviceUsage] = []
        for device in Device:
            segments: dict[str, int] = {}
            for c in self.components:
                if c.device is device and c.bytes > 0:
                    segments[c.label] = segments.get(c.label, 0) + c.bytes
            if segments:
                bars.append(DeviceUsage(device.value, segments))
        return tuple(bars)


def estimate_pair(
    target: ModelShape,
    draft: ModelShape | None,
    n_ctx: int,
    n_gpu_layers: int,
    n_gpu_layers_draft: int,
    kv_type: str = "f16",
    *,
    n_batch: int = 512,
    n_ubatch: int = 512,
    n_outputs_max: int = 0,
    max_verify_rows: int = 17,
    flash_attn: bool = False,
    repack_types: frozenset[str] = frozenset(),
    context_fill: int | None = None,
) -> MemoryBreakdown:
    """The memory a pair needs at ``n_ctx`` tokens with these GPU layer counts.

    ``n_outputs_max`` 0 means llama.cpp's default (``n_batch``);
    ``repack_types`` are the quantisation types this CPU's backend repacks
    (``app.engine.memory.hardware.cpu_repack_types``); ``context_fill`` is
    how many tokens the KV cache holds (default: full, the worst case).
    """
    request = EstimateRequest(
        target=target,
        draft=draft,
        n_ctx=n_ctx,
        n_gpu_layers=n_gpu_layers,
        n_gpu_layers_draft=n_gpu_layers_draft,
        kv_type=kv_type,
        n_batch=n_batch,
        n_ubatch=n_ubatch,
        n_outputs_max=n_outputs_max,
        max_verify_rows=max_verify_rows,
        flash_attn=flash_attn,
        repack_types=repack_types,
        context_fill=context_fill,
    )
    return estimate(request)


def estimate(request: EstimateRequest) -> MemoryBreakdown:
    """:func:`estimate_pair` for a prepared request."""
    if request.n_ctx < 1:
        raise ValueError("the context size must be at least 1 token")
    if request.kv_type not in KV_TYPES:
        raise ValueError(f"unknown KV cache type {request.kv_type!r}; choose one of {', '.join(KV_TYPES)}")
    # llama.cpp can only quantise the V cache with flash attention, so a
    # quantised cache implies it.
    flash = request.flash_attn or request.kv_type not in ("f16", "f32", "bf16")
    components: list[Component] = []
    notes: list[Words | Phrase] = []
    models = [(request.target, request.n_gpu_layers, True)]
    if request.draft is not None:
        models.append((request.draft, request.n_gpu_layers_draft, False))
    any_gpu = False
    for shape, ngl, is_target in models:
        weights_kind = Kind.TARGET_WEIGHTS if is_target else Kind.DRAFT_WEIGHTS
        kv_kind = Kind.TARGET_KV if is_target else Kind.DRAFT_KV
        components += _weights(shape, ngl, weights_kind, request.repack_types)
        gpu_blocks = blocks_on_gpu(shape, ngl)
        cpu_blocks = shape.n_layers - gpu_blocks
        kv_cpu = kv_cache_bytes(shape, request.n_ctx, request.kv_type, cpu_blocks)
        kv_gpu = kv_cache_bytes(shape, request.n_ctx, request.kv_type, gpu_blocks)
        if kv_cpu:
            components.append(Component(kv_kind, Device.CPU, kv_cpu, kv_cpu))
        if kv_gpu:
            components.append(Component(kv_kind, Device.GPU, kv_gpu, kv_gpu))
        components += _compute(shape, ngl, request, flash)
        rows = request.max_verify_rows if is_target else 1
        own = 4 * rows * shape.n_vocab + APP_BYTES_PER_VOCAB_ENTRY * shape.n_vocab
        components.append(Component(Kind.BUFFERS, Device.CPU, own, own, note="llama.cpp output rows + warper rows"))
        runtime = RUNTIME_BASE_BYTES + RUNTIME_BYTES_PER_VOCAB_ENTRY * shape.n_vocab
        components.append(Component(Kind.RUNTIME, Device.CPU, runtime, runtime, note="vocabulary and library state"))
        any_gpu = any_gpu or gpu_layer_count(shape, ngl) > 0
        if shape.approximate:
            name: Value = shape.name or QT_TRANSLATE_NOOP("MemoryNotes", "a model")
            notes.append(
                QT_TRANSLATE_NOOP("MemoryNotes", "{name}: sizes from catalog totals, split evenly over layers").fill(
                    name=name
                )
            )
    if any_gpu:
        components.append(
            Component(Kind.RUNTIME, Device.GPU, GPU_RUNTIME_BYTES, GPU_RUNTIME_BYTES, note="assumed CUDA context")
        )
        notes.append(
            QT_TRANSLATE_NOOP(
                "MemoryNotes", "GPU figures follow llama.cpp's rules but were not measured on this machine"
            )
        )
    return MemoryBreakdown(tuple(_merge(components)), request, tuple(notes))


def with_changes(breakdown: MemoryBreakdown, **changes: Unpack[RequestChanges]) -> MemoryBreakdown:
    """Re-estimate ``breakdown``'s request with some fields changed."""
    if breakdown.request is None:
        raise ValueError("this breakdown carries no request to re-estimate")
    return estimate(replace(breakdown.request, **changes))


def _weights(shape: ModelShape, ngl: int, kind: Kind, repack_types: frozenset[str]) -> list[Component]:
    placed = weight_placement(shape, ngl, repack_types)
    note = f"{placed.repacked:,} bytes repacked" if placed.repacked else ""
    out = [Component(kind, Device.CPU, placed.cpu, placed.cpu, placed.reclaimable, note=note)]
    if placed.gpu:
        out.append(Component(kind, Device.GPU, placed.gpu, placed.gpu))
    return out


def _compute(shape: ModelShape, ngl: int, request: EstimateRequest, flash: bool) -> list[Component]:
    n_batch = min(request.n_batch, request.n_ctx)
    n_ubatch = min(request.n_ubatch, n_batch)
    n_outputs_max = min(request.n_outputs_max or n_batch, n_ubatch)
    n_kv = pad_context(request.n_ctx)
    reserved = compute_peak_bytes(shape, n_kv, n_ubatch, n_outputs_max, flash)
    # What Tandem's batches touch: prompt chunks of n_ubatch tokens over the
    # filled cells, and verify batches of at most max_verify_rows logits.
    fill = request.n_ctx if request.context_fill is None else max(1, min(request.context_fill, request.n_ctx))
    fill_kv, fill_tokens = pad_context(fill), min(n_ubatch, fill)
    rows = min(request.max_verify_rows, n_ubatch)
    touched = min(compute_peak_bytes(shape, fill_kv, fill_tokens, rows, flash), reserved)
    work = cpu_work_bytes(shape, fill_kv, fill_tokens, flash)
    work_max = cpu_work_bytes(shape, n_kv, n_ubatch, flash)
    if gpu_layer_count(shape, ngl) == 0:
        return [Component(Kind.COMPUTE, Device.CPU, touched + work, reserved + work_max)]
    # The GPU backend allocates its whole reservation. Blocks left on the CPU
    # still need their attention scores and scratch there; otherwise the host
    # side only holds the batch inputs.
    out = [Component(Kind.COMPUTE, Device.GPU, reserved, reserved)]
    if blocks_on_gpu(shape, ngl) < shape.n_layers:
        host = compute_peak_bytes(shape, fill_kv, fill_tokens, 0, flash) + work
    else:
        host = 4 * n_ubatch * 2 * shape.n_embd
    out.append(Component(Kind.COMPUTE, Device.CPU, host, host))
    return out


def _merge(components: list[Component]) -> list[Component]:
    """One component per (kind, device), in the meter's order."""
    merged: dict[tuple[Kind, Device], Component] = {}
    for c in components:
        key = (c.kind, c.device)
        if key not in merged:
            merged[key] = c
            continue
        old = merged[key]
        merged[key] = replace(
            old,
            bytes=old.bytes + c.bytes,
            reserved_bytes=old.reserved_bytes + c.reserved_bytes,
            reclaimable_bytes=old.reclaimable_bytes + c.reclaimable_bytes,
            note=old.note if c.note in ("", old.note) else f"{old.note}; {c.note}",
        )
    kinds, devices = list(Kind), list(Device)
    return sorted(merged.values(), key=lambda c: (kinds.index(c.kind), devices.index(c.device)))


__all__ = [
    "KV_TYPES",
    "Component",
    "Device",
    "DeviceUsage",
    "EstimateRequest",
    "Kind",
    "MemoryBreakdown",
    "ModelShape",
    "RequestChanges",
    "TensorBytes",
    "WeightPlacement",
    "compute_peak_bytes",
    "cpu_work_bytes",
    "estimate",
    "estimate_pair",
    "gpu_layer_count",
    "kv_cache_bytes",
    "pad_context",
    "weight_placement",
    "with_changes",
]
