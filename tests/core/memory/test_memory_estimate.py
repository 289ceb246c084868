"""Memory estimate and verdict: hand-computed sizes, llama.cpp's placement rules, thresholds, advice."""

from __future__ import annotations

import pytest

from app.core.memory.estimate import (
    Device,
    Kind,
    ModelShape,
    TensorBytes,
    compute_peak_bytes,
    estimate_pair,
    kv_cache_bytes,
    pad_context,
    weight_placement,
    with_changes,
)
from app.core.memory.verdict import DOES_NOT_FIT, FITS, TIGHT, UNKNOWN, MemoryBudget, judge, status_for

MIB = 2**20


def smollm2(**changes: object) -> ModelShape:
    """SmolLM2-135M's sizes (30 layers, 9 heads, 3 KV heads of 64, 49152 tokens), no tensor table."""
    values: dict[str, object] = {
        "n_layers": 30,
        "n_embd": 576,
        "n_head": 9,
        "n_head_kv": 3,
        "head_dim": 64,
        "n_vocab": 49152,
        "n_ff": 1536,
        "file_size": 98_362_432,
        "n_params": 134_515_008,
        "name": "smol",
    }
    values.update(changes)
    return ModelShape(**values)  # type: ignore[arg-type]


def toy(tied: bool = False, q4: str = "Q8_0") -> ModelShape:
    """Four blocks of 110 bytes, an embedding of 1000 and an output layer of 501 (unless tied)."""
    tensors = [TensorBytes("token_embd.weight", 1000, q4)]
    for i in range(4):
        tensors += [TensorBytes(f"blk.{i}.attn_q.weight", 100, q4), TensorBytes(f"blk.{i}.attn_norm.weight", 10, "F32")]
    tensors.append(TensorBytes("output_norm.weight", 1, "F32"))
    if not tied:
        tensors.append(TensorBytes("output.weight", 500, "Q6_K"))
    return ModelShape(
        n_layers=4, n_embd=8, n_head=2, n_head_kv=1, head_dim=4, n_vocab=100, tensors=tuple(tensors), name="toy"
    )


# -- KV cache -------------------------------------------------------------------------------------


def test_kv_cache_f16_is_cells_times_layers_times_heads_times_dims_times_k_and_v():
    # 2048 cells x 30 layers x 3 KV heads x 64 dims x (K + V) x 2 bytes; llama.cpp reports 45.00 MiB.
    assert kv_cache_bytes(smollm2(), 2048) == 2048 * 30 * 3 * 64 * 2 * 2 == 45 * MIB


def test_kv_cache_quantised_types_use_block_sizes():
    elements = 2048 * 30 * 3 * 64 * 2
    assert kv_cache_bytes(smollm2(), 2048, "q8_0") == elements * 34 // 32  # llama.cpp: 23.91 MiB
    assert kv_cache_bytes(smollm2(), 2048, "q4_0") == elements * 18 // 32  # llama.cpp: 12.66 MiB


def test_kv_cache_rounds_the_context_up_to_256_cells_like_llama_cpp():
    assert pad_context(1000) == 1024
    assert pad_context(1024) == 1024
    assert kv_cache_bytes(smollm2(), 1000) == kv_cache_bytes(smollm2(), 1024)


def test_kv_cache_separate_value_head_size():
    shape = smollm2(head_dim=128, head_dim_v=64)
    assert kv_cache_bytes(shape, 256) == 256 * 30 * 3 * (128 + 64) * 2


def test_unknown_kv_type_is_rejected():
    with pytest.raises(ValueError, match="unknown KV cache type"):
        estimate_pair(smollm2(), None, 2048, 0, 0, "q3_k")


# -- layer placement ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ngl", "gpu_bytes"),
    [
        (0, 0),
        (1, 501),  # the output layer goes first
        (2, 501 + 110),  # then the last block
        (4, 501 + 3 * 110),  # ngl = n_layers still leaves block 0 on the CPU
        (5, 501 + 4 * 110),  # n_layers + 1 is full offload
        (-1, 501 + 4 * 110),
        (99, 501 + 4 * 110),
    ],
)
def test_gpu_layers_follow_llama_cpp_order(ngl: int, gpu_bytes: int):
    placed = weight_placement(toy(), ngl)
    assert placed.gpu == gpu_bytes
    assert placed.cpu == 1000 + 4 * 110 + 501 - gpu_bytes  # the embedding table never leaves the CPU


def test_kv_cache_follows_its_block_to_the_gpu():
    breakdown = estimate_pair(toy(), None, 256, 3, 0)  # output layer + blocks 2 and 3
    per_layer = kv_cache_bytes(toy(), 256, n_layers=1)
    assert breakdown.of_kind(Kind.TARGET_KV, Device.GPU) == 2 * per_layer
    assert breakdown.of_kind(Kind.TARGET_KV, Device.CPU) == 2 * per_layer


def test_tied_embeddings_are_copied_to_the_gpu_with_the_output_layer():
    placed = weight_placement(toy(tied=True), 1)
    assert placed.gpu == 1 + 1000  # output_norm + a copy of token_embd
    assert placed.cpu == 1000 + 4 * 110  # the original stays for the embedding lookup
    assert weight_placement(toy(tied=True), 0).gpu == 0


def test_repacked_weights_are_page_cache_not_need():
    placed = weight_placement(toy(q4="Q4_0"), 0, frozenset({"Q4_0"}))
    assert placed.repacked == 4 * 100  # block matrices only; the embedding is read by row lookups
    assert placed.cpu == 1000 + 4 * 110 + 501
    breakdown = estimate_pair(toy(q4="Q4_0"), None, 256, 0, 0, repack_types=frozenset({"Q4_0"}))
    assert breakdown.of_kind(Kind.TARGET_WEIGHTS) == placed.cpu
    assert breakdown.reclaimable_on(Device.CPU) == 400


def test_shape_from_totals_splits_weights_and_keeps_the_sum():
    shape = ModelShape.from_totals(
        n_params=1_000_000,
        file_size=1_004_000,
        n_layers=10,
        n_embd=100,
        n_head=4,
        n_head_kv=2,
        head_dim=25,
        n_vocab=100,
    )
    assert shape.approximate
    assert shape.weight_bytes == 1_000_000  # the file minus 40 bytes per token of header
    for ngl in (0, 3, 11):
        placed = weight_placement(shape, ngl)
        assert placed.cpu + placed.gpu == 1_000_000
    full = weight_placement(shape, 11)
    assert full.cpu == 10_000  # only the embedding table: 100 tokens x 100 dims x 1 byte per weight


# -- compute buffers ------------------------------------------------------------------------------

# Compute buffer sizes llama.cpp 0.3.36 reported on this machine (MiB), flash attention off.
RECORDED_COMPUTE = [
    # (n_ctx, n_ubatch, n_outputs_max, MiB)
    (512, 512, 512, 98.25),
    (2048, 512, 512, 99.38),
    (4096, 512, 512, 99.38),
    (8192, 512, 512, 166.38),
    (16384, 512, 512, 326.38),
    (2048, 512, 32, 46.38),
    (8192, 256, 256, 83.19),
]


@pytest.mark.parametrize(("n_ctx", "n_ubatch", "n_outputs", "reported_mib"), RECORDED_COMPUTE)
def test_compute_peak_matches_llama_cpp_reports(n_ctx: int, n_ubatch: int, n_outputs: int, reported_mib: float):
    estimate = compute_peak_bytes(smollm2(), pad_context(n_ctx), n_ubatch, n_outputs) / MIB
    assert estimate == pytest.approx(reported_mib, rel=0.015)


def test_compute_at_8192_is_the_attention_scores_by_hand():
    # 512 tokens x (8192 cells x (9 heads + mask) + 5 x 576 + 2 x 192) floats.
    assert compute_peak_bytes(smollm2(), 8192, 512, 512) == 4 * 512 * (8192 * 10 + 5 * 576 + 2 * 192)


def test_cpu_compute_need_counts_only_the_logit_rows_tandem_asks_for():
    breakdown = estimate_pair(smollm2(), None, 2048, 0, 0)
    compute = next(c for c in breakdown.components if c.kind is Kind.COMPUTE)
    attention = 4 * 512 * (2048 * 10 + 5 * 576 + 2 * 192)  # the touched graph peak
    work = 2 * 2048 * 512 * 9 + 2 * 512 * 1536  # f16 copy of the scores + quantised activations
    assert compute.bytes == attention + work
    # llama.cpp reserves 512 logit rows (99.38 MiB reported); the backend's scratch comes on top.
    assert compute.reserved_bytes == 4 * 512 * 49152 + 12 * 512 * 576 + work


def test_compute_follows_the_context_fill():
    empty = estimate_pair(smollm2(), None, 8192, 0, 0, context_fill=50)
    full = estimate_pair(smollm2(), None, 8192, 0, 0)
    assert empty.of_kind(Kind.COMPUTE) < full.of_kind(Kind.COMPUTE) / 10


def test_offloaded_model_reserves_its_whole_compute_buffer_on_the_gpu():
    breakdown = estimate_pair(toy(), None, 1024, -1, 0)
    gpu = next(c for c in breakdown.components if c.kind is Kind.COMPUTE and c.device is Device.GPU)
    assert gpu.bytes == compute_peak_bytes(toy(), 1024, 512, 512)
    assert breakdown.of_kind(Kind.RUNTIME, Device.GPU) > 0  # the CUDA context


# -- breakdown ------------------------------------------------------------------------------------


def test_breakdown_totals_add_up_per_device():
    breakdown = estimate_pair(toy(), toy(), 1024, 2, -1)
    assert breakdown.total_bytes == sum(breakdown.totals.values())
    assert breakdown.totals[Device.GPU] == breakdown.bytes_on(Device.GPU)
    keys = [(c.kind, c.device) for c in breakdown.components]
    assert len(keys) == len(set(keys))
    assert {bar.name for bar in breakdown.devices} == {"cpu", "gpu"}


def test_draft_adds_its_weights_kv_and_buffers():
    alone = estimate_pair(smollm2(), None, 2048, 0, 0)
    pair = estimate_pair(smollm2(), smollm2(), 2048, 0, 0)
    assert pair.of_kind(Kind.DRAFT_KV) == 45 * MIB
    assert pair.of_kind(Kind.DRAFT_WEIGHTS) == alone.of_kind(Kind.TARGET_WEIGHTS)
    # The draft's llama.cpp output buffer holds one row, the target's up to 17.
    assert pair.of_kind(Kind.BUFFERS) - alone.of_kind(Kind.BUFFERS) == 49152 * (4 + 20)


# -- verdict --------------------------------------------------------------------------------------


def test_status_thresholds():
    assert status_for(900, 1000) == FITS  # exactly 10% left
    assert status_for(901, 1000) == TIGHT
    assert status_for(1000, 1000) == TIGHT
    assert status_for(1001, 1000) == DOES_NOT_FIT


def test_judge_reports_headroom_per_device():
    breakdown = estimate_pair(smollm2(), smollm2(), 2048, 0, 0)
    need = breakdown.bytes_on(Device.CPU)
    verdict = judge(breakdown, MemoryBudget(cpu_budget_bytes=need + 10 * MIB))
    cpu = verdict.for_device(Device.CPU)
    assert cpu is not None
    assert cpu.status == TIGHT
    assert cpu.headroom_bytes == 10 * MIB
    assert verdict.for_device(Device.GPU) is None


def test_context_advice_names_the_largest_context_that_fits():
    breakdown = estimate_pair(smollm2(), smollm2(), 32768, 0, 0)
    budget = MemoryBudget(cpu_budget_bytes=1500 * MIB)
    verdict = judge(breakdown, budget)
    assert verdict.status == DOES_NOT_FIT
    line = next(a for a in verdict.advice if a.startswith("reduce context to "))
    n_ctx = int(line.rsplit(" ", 1)[1])
    assert n_ctx % 256 == 0
    assert status_for(with_changes(breakdown, n_ctx=n_ctx).bytes_on(Device.CPU), budget.cpu_budget_bytes) == FITS
    bigger = with_changes(breakdown, n_ctx=n_ctx + 256).bytes_on(Device.CPU)
    assert status_for(bigger, budget.cpu_budget_bytes) != FITS


def test_ngram_advice_when_the_target_alone_fits():
    breakdown = estimate_pair(smollm2(), smollm2(), 8192, 0, 0)
    alone = with_changes(breakdown, draft=None).bytes_on(Device.CPU)
    verdict = judge(breakdown, MemoryBudget(cpu_budget_bytes=int(alone / 0.85)))
    assert verdict.status == DOES_NOT_FIT
    assert any(a.startswith("use the n-gram drafter: it needs no memory") for a in verdict.advice)


def qwen_like(big: bool) -> ModelShape:
    """Qwen2.5-Coder 1.5B or 0.5B sizes from catalog-style totals."""
    if big:
        return ModelShape.from_totals(
            n_params=1_543_714_304,
            file_size=1_117_320_768,
            n_layers=28,
            n_embd=1536,
            n_head=12,
            n_head_kv=2,
            head_dim=128,
            n_vocab=151936,
        )
    return ModelShape.from_totals(
        n_params=494_032_768,
        file_size=491_400_064,
        n_layers=24,
        n_embd=896,
        n_head=14,
        n_head_kv=2,
        head_dim=64,
        n_vocab=151936,
    )


def _gpu_budget_for(breakdown, target_layers: int) -> MemoryBudget:
    """A GPU that holds the whole draft plus ``target_layers`` target layers with 12% to spare."""
    need = with_changes(breakdown, n_gpu_layers=target_layers, n_gpu_layers_draft=-1).bytes_on(Device.GPU)
    return MemoryBudget(cpu_budget_bytes=64 * 2**30, gpu_budget_bytes=int(need / 0.88))


def _assert_largest_fitting(breakdown, budget: MemoryBudget, line: str) -> None:
    layers = int(line.split()[1])
    assert line == f"offload {layers} of 29 target layers (--ngl {layers})"
    assert budget.gpu_budget_bytes is not None
    fits = with_changes(breakdown, n_gpu_layers=layers, n_gpu_layers_draft=-1).bytes_on(Device.GPU)
    over = with_changes(breakdown, n_gpu_layers=layers + 1, n_gpu_layers_draft=-1).bytes_on(Device.GPU)
    assert status_for(fits, budget.gpu_budget_bytes) == FITS
    assert status_for(over, budget.gpu_budget_bytes) != FITS


def test_gpu_advice_moves_the_draft_to_the_gpu_first():
    # Target fully offloaded, draft on the CPU: it fits, but the layout is backwards.
    breakdown = estimate_pair(qwen_like(True), qwen_like(False), 4096, -1, 0)
    budget = _gpu_budget_for(breakdown, 15)
    verdict = judge(breakdown, budget)
    gpu = verdict.for_device(Device.GPU)
    assert gpu is not None and gpu.status == FITS
    assert gpu.advice[0] == "keep the draft fully on the GPU; it is read for every drafted token"
    _assert_largest_fitting(breakdown, budget, gpu.advice[1])


def test_gpu_advice_offloads_only_the_target_layers_that_fit():
    breakdown = estimate_pair(qwen_like(True), qwen_like(False), 4096, -1, -1)
    budget = _gpu_budget_for(breakdown, 15)
    verdict = judge(breakdown, budget)
    gpu = verdict.for_device(Device.GPU)
    assert gpu is not None and gpu.status == DOES_NOT_FIT
    assert len(gpu.advice) == 1
    _assert_largest_fitting(breakdown, budget, gpu.advice[0])


def test_cpu_advice_offloads_to_a_gpu_with_room():
    breakdown = estimate_pair(qwen_like(True), qwen_like(False), 4096, 0, -1)
    cpu_need = breakdown.bytes_on(Device.CPU)
    budget = MemoryBudget(cpu_budget_bytes=int(cpu_need * 0.8), gpu_budget_bytes=64 * 2**30)
    verdict = judge(breakdown, budget)
    assert verdict.for_device(Device.CPU).status == DOES_NOT_FIT  # type: ignore[union-attr]
    assert "offload 29 of 29 target layers (--ngl 29)" in verdict.advice


def test_gpu_layers_without_a_usable_gpu_do_not_fit_and_say_why():
    breakdown = estimate_pair(smollm2(), None, 2048, 10, 0)
    verdict = judge(breakdown, MemoryBudget(cpu_budget_bytes=2**34, gpu_unusable_reason="no NVIDIA driver"))
    gpu = verdict.for_device(Device.GPU)
    assert gpu is not None and gpu.status == DOES_NOT_FIT
    assert gpu.advice[0] == "no usable GPU (no NVIDIA driver); set GPU layers to 0 for both models"


def test_gpu_without_a_measurable_budget_is_unknown():
    breakdown = estimate_pair(smollm2(), None, 2048, 10, 0)
    verdict = judge(breakdown, MemoryBudget(cpu_budget_bytes=2**34))
    gpu = verdict.for_device(Device.GPU)
    assert gpu is not None and gpu.status == UNKNOWN
    assert verdict.status == UNKNOWN


def test_context_advice_never_exceeds_the_trained_context():
    trained = 8192
    breakdown = estimate_pair(smollm2(n_ctx_train=trained), smollm2(n_ctx_train=trained), 131072, 0, 0)
    # A budget where twice the trained context would fit comfortably, but the asked-for one does not.
    budget = MemoryBudget(cpu_budget_bytes=int(with_changes(breakdown, n_ctx=2 * trained).bytes_on(Device.CPU) / 0.8))
    verdict = judge(breakdown, budget)
    assert verdict.status == DOES_NOT_FIT
    assert "reduce context to 8192" in verdict.advice
