"""How much memory a target/draft pair needs, per component and per device, before loading it.

Pure arithmetic over :class:`ModelShape` (built by ``app.engine.memory_shape``
from a GGUF header, or from a catalog entry's totals). The rules follow what
llama.cpp 0.3.36's vendored build does, checked against its own load log on
this machine (see ``app.engine.memory_measure``):

* Layer placement: ``n_gpu_layers`` counts ``n_layers + 1`` slots, the last
  being the output layer (``output_norm`` + ``output``). The GPU takes the
  output layer first, then the highest-numbered blocks, so ``ngl = n_layers``
  still leaves block 0 on the CPU and only ``ngl >= n_layers + 1`` (or -1) is
  full offload. The token-embedding table always stays on the CPU. A model
  with tied embeddings has no ``output.weight``; when its output layer is on
  the GPU, llama.cpp copies the embedding table there as well.
* Weights are memory-mapped and pre-faulted. On the CPU, quantisation types
  the CPU backend "repacks" (Q4_0 and Q4_K with AVX2 here) are copied into
  anonymous memory; their mapped pages then only sit in the page cache
  (counted in RSS while memory is plentiful, dropped under pressure). Those
  pages are reported as ``reclaimable_bytes``, never as a need.
* KV cache: ``pad256(n_ctx)`` cells per layer, K and V, on the layer's device.
  llama.cpp clears it at creation, so every byte is resident at once.
* Compute buffers: the scheduler reserves the peak of the worst-case graph.
  The peak is the largest of three terms, identified from llama.cpp's
  reported buffer sizes (exact to about 1% for SmolLM2 and Qwen2.5):
  the logits of ``n_outputs_max`` rows (it defaults to ``n_batch`` = 512),
  the attention scores ``n_kv x n_ubatch x n_head`` plus mask, and the FFN.
  On a GPU the reservation is allocated up front; on the CPU pages are only
  touched by graphs that run, and Tandem never asks for more than
  ``max_verify_rows`` logits, so the CPU *need* uses that row count.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

MIB = 1024 * 1024

# (bytes per block, elements per block) of the KV cache types llama.cpp accepts.
KV_TYPES: dict[str, tuple[int, int]] = {
    "f32": (4, 1),
    "f16": (2, 1),
    "bf16": (2, 1),
    "q8_0": (34, 32),
    "q5_1": (24, 32),
    "q5_0": (22, 32),
    "q4_1": (20, 32),
    "q4_0": (18, 32),
}

# llama.cpp rounds the context up to a multiple of 256 KV cells.
KV_PAD = 256

# Runtime state per loaded model that is neither weights nor buffers: the
# vocabulary in llama.cpp (token texts, lookup maps, BPE merge ranks) and in
# Python (the GGUF header Tandem keeps), plus llama-cpp-python's per-model
# arrays. Calibrated on SmolLM2 (49k vocabulary) and Qwen2.5 (152k) in
# separate processes; see app/engine/memory_measure.py.
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
class TensorBytes:
    """One tensor's name, size and quantisation type name (``Q4_K``, ``F32``...)."""

    name: str
    n_bytes: int
    type_name: str = ""


@dataclass(frozen=True, slots=True)
class ModelShape:
    """The sizes of a model that decide its memory.

    ``tensors`` is empty for a shape built from totals (a catalog entry); the
    weights are then spread evenly over the layers, see :meth:`from_totals`.
    """

    n_layers: int
    n_embd: int
    n_head: int
    n_head_kv: int
    head_dim: int
    n_vocab: int
    n_ctx_train: int = 0
    head_dim_v: int | None = None
    n_ff: int | None = None
    tensors: tuple[TensorBytes, ...] = ()
    n_params: int | None = None
    file_size: int = 0
    name: str = ""

    @classmethod
    def from_totals(
        cls,
        *,
        n_params: int,
        file_size: int,
        n_layers: int,
        n_embd: int,
        n_head: int,
        n_head_kv: int,
        head_dim: int,
        n_vocab: int,
        name: str = "",
        n_ctx_train: int = 0,
    ) -> ModelShape:
        """A shape from a catalog entry: totals only, no tensor table."""
        return cls(
            n_layers=n_layers,
            n_embd=n_embd,
            n_head=n_head,
            n_head_kv=n_head_kv,
            head_dim=head_dim,
            n_vocab=n_vocab,
            n_ctx_train=n_ctx_train,
            n_params=n_params,
            file_size=file_size,
            name=name,
        )

    @property
    def approximate(self) -> bool:
        """True when per-tensor sizes are unknown and the split over layers is a guess."""
        return not self.tensors

    @property
    def weight_bytes(self) -> int:
        """All tensor bytes (the file minus its header)."""
        if self.tensors:
            return sum(t.n_bytes for t in self.tensors)
        # The header is dominated by the vocabulary: about 40 bytes per token
        # (text + merges) in SmolLM2 and Qwen2.5 files.
        return max(0, self.file_size - 40 * self.n_vocab)

    @property
    def kv_width(self) -> int:
        """K plus V elements per cell and layer."""
        return self.n_head_kv * (self.head_dim + (self.head_dim_v or self.head_dim))

    def layer_slots(self) -> int:
        """Values ``n_gpu_layers`` can usefully take: every block plus the output layer."""
        return self.n_layers + 1


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
    notes: tuple[str, ...] = ()

    def bytes_on(self, device: Device) -> int:
        """What ``device`` needs."""
        return sum(c.bytes for c in self.components if c.device is device)

    def reclaimable_on(self, device: Device) -> int:
        """Page-cache bytes counted in RSS on ``device`` but not needed."""
        return sum(c.reclaimable_bytes for c in self.components if c.device is device)

    def reserved_on(self, device: Device) -> int:
        """Address space reserved on ``device`` (at least what it needs)."""
        return sum(max(c.reserved_bytes, c.bytes) for c in self.components if c.device is device)

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


def pad_context(n_ctx: int) -> int:
    """The KV cells llama.cpp allocates for ``n_ctx`` tokens."""
    return -(-max(1, n_ctx) // KV_PAD) * KV_PAD


def kv_cache_bytes(shape: ModelShape, n_ctx: int, kv_type: str = "f16", n_layers: int | None = None) -> int:
    """K and V for ``n_layers`` layers (default all) at ``n_ctx`` tokens."""
    try:
        block_bytes, block_elems = KV_TYPES[kv_type]
    except KeyError:
        raise ValueError(f"unknown KV cache type {kv_type!r}; choose one of {', '.join(KV_TYPES)}") from None
    layers = shape.n_layers if n_layers is None else n_layers
    elements = pad_context(n_ctx) * layers * shape.kv_width
    return elements * block_bytes // block_elems


def gpu_layer_count(shape: ModelShape, n_gpu_layers: int) -> int:
    """``n_gpu_layers`` clamped to ``0..n_layers+1``; negative means everything."""
    slots = shape.layer_slots()
    return slots if n_gpu_layers < 0 else min(n_gpu_layers, slots)


def block_on_gpu(shape: ModelShape, n_gpu_layers: int, block: int) -> bool:
    """Whether repeating block ``block`` lives on the GPU."""
    return block >= shape.layer_slots() - gpu_layer_count(shape, n_gpu_layers)


def blocks_on_gpu(shape: ModelShape, n_gpu_layers: int) -> int:
    """How many repeating blocks the GPU holds."""
    return max(0, gpu_layer_count(shape, n_gpu_layers) - 1)


def compute_peak_bytes(
    shape: ModelShape,
    n_kv: int,
    n_tokens: int,
    n_outputs: int,
    flash_attn: bool = False,
) -> int:
    """Peak graph memory for a batch of ``n_tokens`` with ``n_outputs`` logit rows over ``n_kv`` cells.

    The three terms are llama.cpp's largest live sets; their coefficients were
    read off its reported compute buffer sizes (n_ctx 256..16384, n_ubatch 256
    and 512, n_outputs_max 1..512, flash attention on and off).
    """
    n_ff = shape.n_ff or 4 * shape.n_embd
    n_embd_gqa = shape.n_head_kv * shape.head_dim
    logits = 4 * n_outputs * shape.n_vocab + 12 * n_tokens * shape.n_embd
    ffn = 4 * n_tokens * (3 * n_ff + 3 * shape.n_embd)
    if flash_attn:
        # No score matrix: the f16 mask and the FFN activations are the peak.
        attention = 2 * n_kv * n_tokens + ffn
    else:
        # f32 scores for every head plus the f32 mask, next to q/k/v and the residual.
        attention = 4 * n_tokens * (n_kv * (shape.n_head + 1) + 5 * shape.n_embd + 2 * n_embd_gqa)
        ffn += 4 * n_kv * n_tokens
    return max(logits, ffn, attention)


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
    (``app.engine.hardware_probe.cpu_repack_types``); ``context_fill`` is
    how many tokens the KV cache holds (default: full, the worst case).
    """
    request = EstimateRequest(
        target,
        draft,
        n_ctx,
        n_gpu_layers,
        n_gpu_layers_draft,
        kv_type,
        n_batch,
        n_ubatch,
        n_outputs_max,
        max_verify_rows,
        flash_attn,
        repack_types,
        context_fill,
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
    notes: list[str] = []
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
            notes.append(f"{shape.name or 'a model'}: sizes from catalog totals, split evenly over layers")
    if any_gpu:
        components.append(
            Component(Kind.RUNTIME, Device.GPU, GPU_RUNTIME_BYTES, GPU_RUNTIME_BYTES, note="assumed CUDA context")
        )
        notes.append("GPU figures follow llama.cpp's rules but were not measured on this machine")
    return MemoryBreakdown(tuple(_merge(components)), request, tuple(notes))


def with_changes(breakdown: MemoryBreakdown, **changes: object) -> MemoryBreakdown:
    """Re-estimate ``breakdown``'s request with some fields changed."""
    if breakdown.request is None:
        raise ValueError("this breakdown carries no request to re-estimate")
    return estimate(replace(breakdown.request, **changes))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class WeightPlacement:
    """Where one model's weights go: CPU and GPU bytes, repacked copies, cached file pages."""

    cpu: int
    gpu: int
    repacked: int
    reclaimable: int


def weight_placement(
    shape: ModelShape, n_gpu_layers: int, repack_types: frozenset[str] = frozenset()
) -> WeightPlacement:
    """Split a model's weights between the devices the way llama.cpp's loader does."""
    output_on_gpu = gpu_layer_count(shape, n_gpu_layers) >= 1
    if not shape.tensors:
        total = shape.weight_bytes
        per_param = total / shape.n_params if shape.n_params else 0.0
        embedding = output = int(shape.n_vocab * shape.n_embd * per_param)
        per_layer = max(0, total - embedding - output) // max(1, shape.n_layers)
        gpu = per_layer * blocks_on_gpu(shape, n_gpu_layers) + (output if output_on_gpu else 0)
        return WeightPlacement(total - gpu, gpu, 0, gpu)
    cpu = gpu = repacked = duplicated = 0
    has_output = any(t.name == "output.weight" for t in shape.tensors)
    for t in shape.tensors:
        if _tensor_on_gpu(shape, n_gpu_layers, t.name):
            gpu += t.n_bytes
            continue
        cpu += t.n_bytes
        if t.type_name in repack_types and t.name.startswith("blk.") and t.name.endswith(".weight"):
            repacked += t.n_bytes
        if t.name == "token_embd.weight" and output_on_gpu and not has_output:
            duplicated = t.n_bytes  # tied embeddings: the output layer gets its own copy
    # GPU tensors were read through the mapping too: their pages stay cached.
    return WeightPlacement(cpu, gpu + duplicated, repacked, repacked + gpu)


def _weights(shape: ModelShape, ngl: int, kind: Kind, repack_types: frozenset[str]) -> list[Component]:
    placed = weight_placement(shape, ngl, repack_types)
    note = f"{placed.repacked:,} bytes repacked" if placed.repacked else ""
    out = [Component(kind, Device.CPU, placed.cpu, placed.cpu, placed.reclaimable, note=note)]
    if placed.gpu:
        out.append(Component(kind, Device.GPU, placed.gpu, placed.gpu))
    return out


def _tensor_on_gpu(shape: ModelShape, ngl: int, name: str) -> bool:
    if name.startswith("blk."):
        try:
            block = int(name.split(".", 2)[1])
        except (IndexError, ValueError):
            return False
        return block_on_gpu(shape, ngl, block)
    if name.startswith("output"):  # output.weight and output_norm.*: the output layer
        return gpu_layer_count(shape, ngl) >= 1
    return False  # token embeddings and other input tensors stay on the CPU


def cpu_work_bytes(shape: ModelShape, n_kv: int, n_tokens: int, flash_attn: bool = False) -> int:
    """The CPU backend's scratch for one graph, kept at its largest size (not in llama.cpp's report).

    Before multiplying the f32 attention weights by the f16 V cache, the CPU
    backend converts them to f16 in its own work buffer: ``n_kv x n_tokens x
    n_head`` halves. Activations are also quantised there for every matmul.
    Measured: 18 MiB per SmolLM2 context after a 512-token chunk at 2048 cells.
    """
    n_ff = shape.n_ff or 4 * shape.n_embd
    activations = 2 * n_tokens * n_ff
    return activations if flash_attn else activations + 2 * n_kv * n_tokens * shape.n_head


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
    "Component",
    "Device",
    "DeviceUsage",
    "EstimateRequest",
    "Kind",
    "MemoryBreakdown",
    "ModelShape",
    "TensorBytes",
    "WeightPlacement",
    "compute_peak_bytes",
    "cpu_work_bytes",
    "estimate",
    "estimate_pair",
    "kv_cache_bytes",
    "weight_placement",
    "with_changes",
]
