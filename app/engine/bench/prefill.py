"""``bench --prefill``: Tandem's prompt processing beside ``llama-bench -p`` on the same model and threads, one run.

For each prompt size (512 and 4,096 tokens by default) Tandem reads a prompt
of that many tokens through the reply's own road (a target-only
:class:`~app.engine.llama.session.LoadedPair` and its decoder, one token
generated; the prompt is one token longer, since the first step reads the
last one, so the prefill reads exactly the size) from an empty cache, after a
warm-up, a few times; then llama-bench runs ``-p SIZE -n 0 -t N -r R -o json``
on the same file with the same threads (its warm-up included), so the two
alternate size by size and a slow spell of the machine hits both. Each side
waits for the other processes to calm down first. The prompt is seeded random
token ids, as llama-bench's are: a dense model's prefill costs the same
whatever the text. Both sides run on the CPU (the tools are a CPU build).
"""

from __future__ import annotations

import datetime
import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llama_cpp
import numpy as np

from app.core.bench.prefill import LlamaBenchRow, TandemPrefill, pair_up, parse_llama_bench
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.events import FinishedEvent
from app.core.decoding.sampling import SamplingParams
from app.core.errors import TandemError
from app.core.reply.plan import DraftPlan
from app.engine.bench.probes import CpuWatch, machine_info, wait_for_quiet
from app.engine.llama.model import default_threads
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig

Say = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class PrefillSettings:
    """What ``bench --prefill`` runs."""

    target: Path
    llama_bench: Path
    sizes: tuple[int, ...] = (512, 4096)
    repetitions: int = 3
    n_threads: int | None = None  # None: the physical cores, llama-bench's own default
    max_other_cpu: float = 0.1
    max_wait_s: float = 600.0


def prompt_ids(n_vocab: int, size: int, seed: int = 31) -> list[int]:
    """``size`` seeded random token ids below ``n_vocab`` (the same prompt on every run)."""
    return [int(t) for t in np.random.default_rng(seed).integers(0, n_vocab, size)]


def tandem_prefill(pair: LoadedPair, size: int, repetitions: int, settings: PrefillSettings) -> TandemPrefill:
    """Tandem reading a ``size``-token prompt from an empty cache: a warm-up, then ``repetitions`` timed reads."""
    tokens = prompt_ids(pair.target.n_vocab, size + 1)
    policy = DraftPlan.for_run(DrafterKind.NONE, 0).policy()
    samples = []
    for attempt in range(repetitions + 1):
        pair.target.truncate(0)
        wait_for_quiet(settings.max_other_cpu, settings.max_wait_s)
        decoder = pair.decoder(SamplingParams(temperature=0.0), policy, drafter=DrafterKind.NONE)
        finished = None
        for event in decoder.generate(GenerationRequest(tokens, max_tokens=1)):
            if isinstance(event, FinishedEvent):
                finished = event
        figures = finished.stats.prompt_figures if finished is not None else None
        rate = figures.prompt_tokens_per_second if figures is not None else None
        if rate is None or figures is None or figures.prompt_read != size:
            raise TandemError(f"the {size}-token prefill was not measured (the decoder reported {figures})")
        if attempt > 0:  # the first read is the warm-up: it pages the weights in
            samples.append(rate)
    pair.target.truncate(0)
    params = pair.target.llama.context_params
    return TandemPrefill(
        size,
        tuple(samples),
        pair.target.threads,
        int(params.n_batch),
        int(params.n_ubatch),
        int(params.flash_attn_type) == llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED,
    )


def llama_bench_prefill(settings: PrefillSettings, size: int, threads: int) -> LlamaBenchRow:
    """``llama-bench -p SIZE -n 0`` on the target with ``threads``, its defaults otherwise; its one row."""
    command = [
        str(settings.llama_bench),
        "-m",
        str(settings.target),
        "-p",
        str(size),
        "-n",
        "0",
        "-t",
        str(threads),
        "-r",
        str(settings.repetitions),
        "-o",
        "json",
    ]
    wait_for_quiet(settings.max_other_cpu, settings.max_wait_s)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise TandemError(f"llama-bench failed (exit {done.returncode}): {tail[0]}")
    rows = [row for row in parse_llama_bench(done.stdout) if row.n_prompt == size]
    if not rows:
        raise TandemError(f"llama-bench reported no pp{size} result")
    return rows[0]


def run_prefill(settings: PrefillSettings, say: Say | None = None) -> dict[str, Any]:
    """Both sides at every size, alternating; the JSON-ready report (rendered by ``render_prefill``)."""
    if not settings.sizes or min(settings.sizes) < 1 or settings.repetitions < 1:
        raise TandemError("--prefill needs prompt sizes >= 1 and at least one repetition")
    tell = say or (lambda _line: None)
    threads = settings.n_threads or default_threads()
    n_ctx = max(settings.sizes) + 256  # the prompt, the one generated token, llama.cpp's padding
    watch = CpuWatch()
    tandem: list[TandemPrefill] = []
    theirs: list[LlamaBenchRow] = []
    config = PairConfig(settings.target, None, DrafterKind.NONE, n_ctx, threads, n_gpu_layers=0)
    with LoadedPair(config) as pair:
        for size in settings.sizes:
            tell(f"Tandem: {size}-token prefill, {settings.repetitions} repetitions after a warm-up")
            tandem.append(tandem_prefill(pair, size, settings.repetitions, settings))
            tell(f"llama-bench: pp{size}")
            theirs.append(llama_bench_prefill(settings, size, threads))
    machine = machine_info(watch.other_share())
    report = {
        "format": "tandem-prefill/1",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "model": settings.target.name,
        "threads": threads,
        "repetitions": settings.repetitions,
        "machine": machine,
        "load_note": machine.get("load_note"),
        "rows": [row.to_dict() for row in pair_up(tandem, theirs)],
    }
    normalised: dict[str, Any] = json.loads(json.dumps(report))
    return normalised
