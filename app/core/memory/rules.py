"""llama.cpp's allocation rules, as arithmetic over a model's shape.

The rules follow what llama.cpp 0.3.36's vendored build does, checked against
its own load log on this machine (see ``app.engine.memory.measure``):

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
* The CPU backend keeps its own scratch buffer at the largest size any graph
  needed (f16 copies of the attention weights, quantised activations); it is
  not in llama.cpp's report, so it is added to the CPU compute need.
"""

from __future__ import annotations

from dataclasses import dataclass

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
