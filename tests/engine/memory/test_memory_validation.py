"""The memory estimate against reality: real loads in fresh processes, and llama.cpp's own buffer report.

Each configuration runs in its own subprocess (``measure_configuration``):
load the pair with llama.cpp's log captured, generate 16 tokens, compare
the RSS growth with the estimate for that state (weights pre-faulted by
llama.cpp's MAP_POPULATE mapping, repacked copies, KV caches cleared at
creation, the compute pages the short prompt touched). Buffer sizes that
RSS cannot separate are checked against the sizes llama.cpp reported.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path

import pytest

from app.core.memory.estimate import compute_peak_bytes, kv_cache_bytes, pad_context, weight_placement
from app.engine.llama.model import FLASH_ATTENTION
from app.engine.memory.hardware import cpu_repack_types
from app.engine.memory.measure import (
    BufferReport,
    Measurement,
    mapped_file_rss,
    measure_configuration,
    parse_load_log,
    process_memory,
)
from app.engine.memory.shape import shape_from_gguf

MIB = 2**20

# Lines llama.cpp 0.3.36 logged while LoadedPair loaded the SmolLM2 pair (abridged).
RECORDED_LOG = [
    "llama_model_loader: loaded meta data with 33 key-value pairs and 272 tensors from /m/t.gguf (version GGUF V3)\n",
    "load_tensors:   CPU_Mapped model buffer size =    92.10 MiB\n",
    "llama_context:        CPU  output buffer size =     0.19 MiB\n",
    "llama_kv_cache:        CPU KV buffer size =    45.00 MiB\n",
    "sched_reserve:        CPU compute buffer size =    99.38 MiB\n",
    "llama_model_loader: loaded meta data with 33 key-value pairs and 272 tensors from /m/d.gguf (version GGUF V3)\n",
    "load_tensors:   CPU_Mapped model buffer size =    85.30 MiB\n",
    "load_tensors:   CPU_REPACK model buffer size =    56.95 MiB\n",
    "load_tensors:        CUDA0 model buffer size =  1200.00 MiB\n",
    "llama_kv_cache:        CPU KV buffer size =    45.00 MiB\n",
    "sched_reserve:        CUDA0 compute buffer size =   300.25 MiB\n",
    "sched_reserve:    CUDA_Host compute buffer size =     5.01 MiB\n",
]


def test_load_log_is_split_per_model_and_device():
    from app.core.memory.estimate import Device

    target, draft = parse_load_log(RECORDED_LOG)
    assert target.path == "/m/t.gguf" and draft.path == "/m/d.gguf"
    assert target.kv == {"CPU": 45 * MIB}
    assert target.compute == {"CPU": round(99.38 * MIB)}
    assert draft.model["CPU_REPACK"] == round(56.95 * MIB)
    assert draft.on("model", Device.GPU) == 1200 * MIB
    assert draft.on("compute", Device.GPU) == round(300.25 * MIB)
    assert draft.on("compute", Device.CPU) == round(5.01 * MIB)  # pinned host memory is RAM


def test_mapped_file_rss_counts_touched_pages(tmp_path: Path):
    path = tmp_path / "weights.bin"
    path.write_bytes(b"\0" * (8 * MIB))
    assert mapped_file_rss(path) == 0
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert (mapped_file_rss(path) or 0) < MIB
        checksum = sum(mapped[i] for i in range(0, 4 * MIB, 4096))  # touch the first half
        assert checksum == 0
        assert 4 * MIB <= (mapped_file_rss(path) or 0) <= 5 * MIB


def test_process_memory_splits_anonymous_and_file_pages():
    now = process_memory()
    assert now.rss > 0
    if now.anon is not None and now.file is not None:
        assert abs(now.anon + now.file - now.rss) <= 4 * MIB  # shmem pages are the difference


def _check_against_llama_cpp(result: Measurement, target: Path, draft: Path) -> None:
    """Buffer by buffer: the estimator's rules against what llama.cpp allocated."""
    reports = [BufferReport(**r) for r in result.buffers]
    assert [Path(r.path).name for r in reports] == [target.name, draft.name]
    for report, path in zip(reports, (target, draft), strict=True):
        shape = shape_from_gguf(path)
        assert report.kv["CPU"] == pytest.approx(kv_cache_bytes(shape, result.n_ctx), abs=0.01 * MIB)
        n_kv = pad_context(result.n_ctx)
        # Models load with flash attention on (FLASH_ATTENTION). Its graph holds a scratch beside the
        # logits at some context sizes: on SmolLM2 llama.cpp reported 98.25 MiB at n_ctx 512 and 8192
        # (the rule: 99.4, -1.1 %) but 102.51 MiB at 2048 (+3.2 %), so its rule is held to 4 %.
        expected = compute_peak_bytes(shape, n_kv, 512, 512, flash_attn=FLASH_ATTENTION)
        assert report.compute["CPU"] == pytest.approx(expected, rel=0.04 if FLASH_ATTENTION else 0.02)
        repacked = weight_placement(shape, 0, cpu_repack_types()).repacked
        assert report.model.get("CPU_REPACK", 0) == pytest.approx(repacked, abs=0.01 * MIB)


def _check_measured_breakdown(result: Measurement) -> None:
    measured = {c["kind"]: c["measured"] for c in result.components}
    assert measured["target weights"] and measured["draft weights"]
    assert measured["target KV cache"] and measured["draft KV cache"]
    assert measured["runtime"]  # the remainder of the RSS growth
    assert not measured["compute buffers"]  # CPU pages RSS cannot single out
    shown = sum(c["bytes"] + c["reclaimable_bytes"] for c in result.components)
    assert shown == pytest.approx(result.rss_growth, rel=0.01)


@pytest.mark.subprocess  # measured in a fresh process (app.engine.memory.measure)
@pytest.mark.parametrize("n_ctx", [2048, 8192])
def test_small_pair_estimate_within_15_percent(small_pair: tuple[Path, Path], n_ctx: int):
    target, draft = small_pair
    result = measure_configuration(target, draft, n_ctx, max_tokens=16, timeout=600)
    print(
        f"SmolLM2 pair n_ctx={n_ctx}: measured {result.rss_growth:,} B, estimated {result.estimated_rss:,} B, "
        f"error {result.error:+.1%}"
    )
    assert abs(result.error) <= 0.15, f"estimate {result.estimated_rss:,} vs measured {result.rss_growth:,}"
    _check_against_llama_cpp(result, target, draft)
    _check_measured_breakdown(result)


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("TANDEM_VALIDATE_DEMO") != "1",
    reason="loads 1.6 GB twice; set TANDEM_VALIDATE_DEMO=1 to check the Qwen pair (±10%)",
)
@pytest.mark.subprocess  # measured in a fresh process (app.engine.memory.measure)
@pytest.mark.parametrize("n_ctx", [2048, 8192])
def test_demo_pair_estimate_within_10_percent(demo_pair: tuple[Path, Path], n_ctx: int):
    target, draft = demo_pair
    result = measure_configuration(target, draft, n_ctx, max_tokens=16, timeout=900)
    print(
        f"Qwen pair n_ctx={n_ctx}: measured {result.rss_growth:,} B, estimated {result.estimated_rss:,} B, "
        f"error {result.error:+.1%}"
    )
    assert abs(result.error) <= 0.10
    _check_against_llama_cpp(result, target, draft)
