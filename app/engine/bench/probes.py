"""Measurements the benchmark takes besides the runs themselves.

* :class:`CpuWatch`: how much CPU other processes took meanwhile; llama.cpp's
  threads wait on each other, so a little competition distorts a run.
* :func:`batch_numerics`: how far a verify batch's logits drift from
  single-token ones, the basis of the near-tie threshold.
* :func:`fresh_logits`: the target's logits after a prefix, for the
  near-tie check at a greedy divergence.
* :func:`overhead_table`: the decoder's Python overhead per step at Qwen's
  vocabulary, with synthetic models.
"""

from __future__ import annotations

import os
import platform
import resource
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import llama_cpp
import numpy as np
import numpy.typing as npt
import psutil

from app.core.decoding.drafters import DrafterKind
from app.engine.bench.overhead import QWEN_VOCAB, measure_overhead
from app.engine.llama.model import LlamaModel


def wait_for_quiet(threshold: float, limit_s: float = 600.0) -> float:
    """Wait until other processes use less than ``threshold`` of the CPUs (or ``limit_s`` passes); returns the wait."""
    started = time.monotonic()
    if limit_s <= 0:
        return 0.0
    # Measured while this process is idle, so all the CPU use seen belongs to others.
    while psutil.cpu_percent(interval=1.0) / 100.0 >= threshold:
        if time.monotonic() - started > limit_s:
            break
    return time.monotonic() - started


def overhead_table(temperatures: Sequence[float] = (0.0,), tokens: int = 200) -> list[dict[str, Any]]:
    """Python overhead per step at Qwen's vocabulary with synthetic models (see :mod:`app.engine.bench.overhead`)."""
    rows = []
    for temperature in dict.fromkeys((0.0, *temperatures)):
        for k in (0, 2, 4, 8, None):
            rows.append(asdict(measure_overhead(QWEN_VOCAB, k, temperature, tokens)))
        # Lookup and the hybrid search the whole context each step: give them a real context's
        # length (3,000 tokens that the reply goes on to copy) rather than a 3-token prompt.
        for kind in (DrafterKind.NGRAM, DrafterKind.HYBRID):
            for k in (4, None):
                result = measure_overhead(QWEN_VOCAB, k, temperature, tokens, drafter=kind, prompt_tokens=3000)
                rows.append(asdict(result))
    return rows


def fresh_logits(target: LlamaModel, prefix: Sequence[int]) -> npt.NDArray[np.float32]:
    """The target's logits after ``prefix``, from empty caches, its last token evaluated on its own."""
    target.truncate(0)
    target.decode(prefix[:-1], "none")
    return np.array(target.decode([prefix[-1]], "last")[0], copy=True)


def batch_numerics(target: LlamaModel, prompt: Sequence[int], width: int = 5) -> dict[str, Any]:
    """How far batched logits (a verify step) drift from single-token ones over the prompt's last positions."""
    n = min(len(prompt) - 1, 4 * width)
    start = len(prompt) - n
    max_diff = 0.0
    max_gap_change = 0.0
    # The prefix is read once: each chunk's single-token decodes leave the cache holding the prompt up to the
    # next chunk (a long-context prompt read afresh per chunk cost minutes).
    target.truncate(0)
    target.decode(prompt[:start], "none")
    for chunk in range(start, len(prompt), width):
        batch = list(prompt[chunk : chunk + width])
        batched = target.decode(batch, "all").copy()
        target.truncate(chunk)
        single = np.stack([target.decode([t], "last")[0].copy() for t in batch])
        max_diff = max(max_diff, float(np.abs(batched - single).max()))
        for b_row, s_row in zip(batched, single, strict=True):
            second, best = np.argsort(s_row)[-2:]
            change = (b_row[best] - b_row[second]) - (s_row[best] - s_row[second])
            max_gap_change = max(max_gap_change, abs(float(change)))
    target.truncate(0)
    return {"max_abs_diff": max_diff, "max_gap_change": max_gap_change, "rows": n, "batch": width}


class CpuWatch:
    """How much of the machine's CPU time other processes took while the benchmark ran.

    This process's children (the llama-server peers) count as its own: their
    work is the benchmark's, and while they live the kernel's ``children_*``
    times do not include them yet.
    """

    def __init__(self) -> None:
        self._process = psutil.Process()
        self._started = time.perf_counter()
        self._system = _busy(psutil.cpu_times())
        self._own = _own_cpu(self._process)
        self._children = _children_cpu(self._process)

    def other_share(self) -> float:
        """Share of all CPUs' time (0..1) busy with other processes since the watch started."""
        wall = time.perf_counter() - self._started
        cpus = psutil.cpu_count() or 1
        own = _own_cpu(self._process) - self._own
        children = sum(seconds - self._children.get(pid, 0.0) for pid, seconds in _children_cpu(self._process).items())
        others = (_busy(psutil.cpu_times()) - self._system) - own - children
        return max(0.0, others / (wall * cpus)) if wall > 0 else 0.0


def _children_cpu(process: psutil.Process) -> dict[int, float]:
    """CPU seconds of each live child process (recursively), by pid."""
    out: dict[int, float] = {}
    for child in process.children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:  # it ended meanwhile
            continue
        out[child.pid] = float(times.user + times.system)
    return out


def _busy(times: Any) -> float:
    return float(sum(times)) - float(getattr(times, "idle", 0.0)) - float(getattr(times, "iowait", 0.0))


def _own_cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system + times.children_user + times.children_system)


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info(other_share: float) -> dict[str, Any]:
    info: dict[str, Any] = {
        "cpu": _cpu_name(),
        "logical_cpus": os.cpu_count(),
        "physical_cpus": psutil.cpu_count(logical=False),
        "llama_cpp_python": llama_cpp.__version__,
        "python": platform.python_version(),
        "other_processes_cpu_share": other_share,
        "peak_rss_mb_process": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if other_share > 0.1:
        info["load_note"] = (
            f"other processes used {other_share:.0%} of the CPUs' time during the run; llama.cpp's threads wait "
            "on each other, so absolute tokens/s are low and noisy. The paired speedups are the figures to read"
        )
    return info
