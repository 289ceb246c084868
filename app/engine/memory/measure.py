"""Measure what a loaded pair really uses, and check the estimate against it.

Three sources, each for what it can see:

* the process's resident memory (``/proc/self/status`` on Linux, psutil
  elsewhere) before and after loading: the ground truth for the total;
* ``/proc/self/smaps``: the resident pages of each model file's mapping
  (llama.cpp maps weights with MAP_POPULATE, so they are resident right
  after loading, before any token is generated);
* llama.cpp's own load log, captured with a log callback: the exact size of
  every buffer it allocated (repacked weights, KV cache, compute, output).

:func:`measured_breakdown` merges them into a breakdown whose components say
whether they were measured. :func:`measure_configuration` runs one load in a
fresh subprocess (``python -m app.engine.memory.measure``) so configurations
never share freed-but-retained memory.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil

from app.core.decoding.draft_policy import FixedDraftLength
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.memory.estimate import Device, Kind, MemoryBreakdown, estimate_pair, weight_placement
from app.engine.memory.hardware import cpu_repack_types, process_gpu_bytes
from app.engine.memory.shape import shape_from_header

if TYPE_CHECKING:
    from app.engine.llama.model import LlamaModel
    from app.engine.llama.session import LoadedPair

MIB = 1024 * 1024
_BUFFER_LINE = re.compile(r"(\S+)\s+(model|KV|compute|output) buffer size =\s+([\d.]+) MiB")
_LOADER_LINE = re.compile(r"loaded meta data with .* from (.+?) \(version")


@dataclass(frozen=True, slots=True)
class ProcessMemory:
    """Resident memory of this process: total, anonymous and file-backed (bytes)."""

    rss: int
    anon: int | None = None
    file: int | None = None


def process_memory() -> ProcessMemory:
    """This process's resident memory now."""
    try:
        values: dict[str, int] = {}
        with open("/proc/self/status") as status:
            for line in status:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "RssAnon", "RssFile"):
                    values[key] = int(rest.split()[0]) * 1024
        return ProcessMemory(values["VmRSS"], values.get("RssAnon"), values.get("RssFile"))
    except (OSError, KeyError, ValueError):
        return ProcessMemory(int(psutil.Process().memory_info().rss))


def mapped_file_rss(path: str | Path) -> int | None:
    """Resident bytes of this process's mappings of ``path``; None where smaps does not exist."""
    target = str(Path(path).expanduser().resolve())
    total = 0
    inside = False
    try:
        with open("/proc/self/smaps") as smaps:
            for line in smaps:
                if line[0] in "0123456789abcdef" and "-" in line.split(" ", 1)[0]:
                    fields = line.split(None, 5)
                    inside = len(fields) == 6 and fields[5].strip() == target
                elif inside and line.startswith("Rss:"):
                    total += int(line.split()[1]) * 1024
    except OSError:
        return None
    return total


@dataclass(slots=True)
class BufferReport:
    """The buffers llama.cpp reported while loading one model (bytes, per buffer name)."""

    path: str
    model: dict[str, int] = field(default_factory=dict)
    kv: dict[str, int] = field(default_factory=dict)
    compute: dict[str, int] = field(default_factory=dict)
    output: dict[str, int] = field(default_factory=dict)

    def on(self, part: str, device: Device) -> int:
        """Bytes of ``part`` ("model", "kv", "compute", "output") on ``device``."""
        buffers: dict[str, int] = getattr(self, part)
        return sum(n for name, n in buffers.items() if buffer_device(name) is device)


def buffer_device(name: str) -> Device:
    """``CPU``, ``CPU_Mapped``, ``CPU_REPACK``, ``CUDA_Host``... live in RAM; ``CUDA0``, ``Vulkan0``... on a GPU."""
    return Device.CPU if name.startswith("CPU") or name.endswith("_Host") else Device.GPU


def parse_load_log(lines: list[str]) -> list[BufferReport]:
    """Buffer sizes per model, in load order, from llama.cpp's log lines."""
    reports: list[BufferReport] = []
    for line in lines:
        loader = _LOADER_LINE.search(line)
        if loader:
            reports.append(BufferReport(loader.group(1)))
            continue
        match = _BUFFER_LINE.search(line)
        if match and reports:
            name, part, mib = match.group(1), match.group(2).lower(), float(match.group(3))
            buffers: dict[str, int] = getattr(reports[-1], part)
            buffers[name] = buffers.get(name, 0) + round(mib * MIB)
    return reports


class LoadLog:
    """llama.cpp log lines recorded during :func:`capture_load_log`."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    @property
    def reports(self) -> list[BufferReport]:
        """One report per model loaded while capturing."""
        return parse_load_log(self.lines)

    def for_path(self, path: str | Path) -> BufferReport | None:
        """The last report for the model file ``path``."""
        wanted = Path(path).expanduser().resolve()
        found = [r for r in self.reports if Path(r.path).expanduser().resolve() == wanted]
        return found[-1] if found else None


@contextmanager
def capture_load_log() -> Iterator[LoadLog]:
    """Record llama.cpp's log (still passing it on to llama-cpp-python's handler) while loading.

    llama.cpp's log callback is process-global: use this on the thread that
    loads models, around the load only.
    """
    import llama_cpp
    from llama_cpp import _logger

    log = LoadLog()
    default = _logger.llama_log_callback

    @llama_cpp.llama_log_callback
    def record(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        log.lines.append(text.decode("utf-8", errors="replace"))
        default(level, text, user_data)

    llama_cpp.llama_log_set(record, ctypes.c_void_p(0))
    try:
        yield log
    finally:
        llama_cpp.llama_log_set(default, ctypes.c_void_p(0))


def measured_breakdown(
    pair: LoadedPair,
    baseline_rss: ProcessMemory | int,
    log: LoadLog | None = None,
    gpu_baseline: int | None = None,
    context_fill: int | None = None,
) -> MemoryBreakdown:
    """What ``pair`` uses now, measured wherever possible.

    Weights come from smaps plus llama.cpp's repacked-buffer size, KV caches
    and GPU buffers from llama.cpp's report (``log``, recorded with
    :func:`capture_load_log` around the load). The CPU runtime component is
    the measured remainder, so the CPU total plus reclaimable page cache
    equals the RSS growth since ``baseline_rss``. CPU compute buffers stay
    estimated at ``context_fill`` tokens (default: what the target's cache
    holds now): their pages are touched as the context fills, up to the
    full-context estimate, and RSS cannot tell them apart.
    """
    base = baseline_rss.rss if isinstance(baseline_rss, ProcessMemory) else int(baseline_rss)
    grown = process_memory().rss - base
    repack = cpu_repack_types()
    # The counts each model was loaded with (GPU layers "auto" resolved), not the config's setting.
    ngl = pair.target.options.n_gpu_layers
    ngld = pair.draft.options.n_gpu_layers if pair.draft is not None else 0
    models: list[tuple[LlamaModel, int, Kind, Kind]] = [(pair.target, ngl, Kind.TARGET_WEIGHTS, Kind.TARGET_KV)]
    if pair.draft is not None:
        models.append((pair.draft, ngld, Kind.DRAFT_WEIGHTS, Kind.DRAFT_KV))
    shapes = [shape_from_header(model.header) for model, *_ in models]
    fill = len(pair.target.kv_tokens) if context_fill is None else context_fill
    estimate = estimate_pair(
        shapes[0],
        shapes[1] if len(shapes) > 1 else None,
        pair.target.n_ctx,
        ngl,
        ngld,
        flash_attn=pair.target.options.flash_attn,
        repack_types=repack,
        context_fill=max(1, fill),
    )
    parts = {(c.kind, c.device): c for c in estimate.components}
    compute_reported = dict.fromkeys(Device, 0)
    for (model, ngl, weights_kind, kv_kind), shape in zip(models, shapes, strict=True):
        report = log.for_path(model.path) if log is not None else None
        key = (weights_kind, Device.CPU)
        resident = mapped_file_rss(model.path)
        if key in parts and resident is not None:
            repacked = report.model.get("CPU_REPACK", 0) if report else weight_placement(shape, ngl, repack).repacked
            reclaimable = min(parts[key].reclaimable_bytes, resident)
            parts[key] = replace(
                parts[key], bytes=resident + repacked - reclaimable, reclaimable_bytes=reclaimable, measured=True
            )
        if report is None:
            continue
        for device in Device:
            compute_reported[device] += report.on("compute", device)
            for kind, part in ((kv_kind, "kv"), (weights_kind, "model")):
                reported = report.on(part, device)
                if reported and (kind, device) in parts and not (kind is weights_kind and device is Device.CPU):
                    parts[(kind, device)] = replace(
                        parts[(kind, device)], bytes=reported, reserved_bytes=reported, measured=True
                    )
    for device, reserved in compute_reported.items():
        old = parts.get((Kind.COMPUTE, device))
        if not reserved or old is None:
            continue
        if device is Device.GPU:  # a GPU allocates its whole reservation up front
            parts[(Kind.COMPUTE, device)] = replace(old, bytes=reserved, reserved_bytes=reserved, measured=True)
        else:  # CPU pages count once a graph touches them: RSS cannot single them out
            parts[(Kind.COMPUTE, device)] = replace(old, note=f"llama.cpp reserved {reserved:,} bytes")
    known = sum(
        c.bytes + c.reclaimable_bytes for c in parts.values() if c.device is Device.CPU and c.kind is not Kind.RUNTIME
    )
    runtime = parts[(Kind.RUNTIME, Device.CPU)]
    parts[(Kind.RUNTIME, Device.CPU)] = replace(
        runtime, bytes=grown - known, measured=True, note="measured: RSS growth minus the other components"
    )
    gpu_now = process_gpu_bytes()
    if gpu_now is not None and (Kind.RUNTIME, Device.GPU) in parts:
        gpu_known = sum(c.bytes for c in parts.values() if c.device is Device.GPU and c.kind is not Kind.RUNTIME)
        parts[(Kind.RUNTIME, Device.GPU)] = replace(
            parts[(Kind.RUNTIME, Device.GPU)],
            bytes=gpu_now - (gpu_baseline or 0) - gpu_known,
            measured=True,
            note="measured: NVML process memory minus the other components",
        )
    ordered = tuple(parts[(c.kind, c.device)] for c in estimate.components)
    grew = QT_TRANSLATE_NOOP("MemoryNotes", "RSS grew by {size:,} bytes since loading").fill(size=grown)
    return MemoryBreakdown(ordered, estimate.request, (*estimate.note_words, grew))


@dataclass(frozen=True, slots=True)
class Measurement:
    """One configuration measured in a fresh process, next to its estimates."""

    target: str
    draft: str | None
    n_ctx: int
    context_fill: int
    rss_growth: int
    anon_growth: int | None
    file_growth: int | None
    estimated_rss: int  # the estimate for the measured state, reclaimable page cache included
    estimated_need: int  # the same without the reclaimable page cache
    worst_case_need: int  # the estimate at a full context: what the verdict judges
    buffers: list[dict[str, Any]]
    components: list[dict[str, Any]]

    @property
    def error(self) -> float:
        """Relative error of the estimate against the measured RSS growth."""
        return self.estimated_rss / self.rss_growth - 1.0


def measure_configuration(
    target: Path,
    draft: Path | None,
    n_ctx: int,
    n_gpu_layers: int = 0,
    n_gpu_layers_draft: int = 0,
    max_tokens: int = 16,
    fill_context: bool = False,
    timeout: float = 900.0,
) -> Measurement:
    """Load the pair in a fresh Python process, generate a little, and report memory."""
    command = [sys.executable, "-m", "app.engine.memory.measure", "--target", str(target)]
    command += ["--ctx", str(n_ctx), "--ngl", str(n_gpu_layers), "--ngld", str(n_gpu_layers_draft)]
    command += ["--max-tokens", str(max_tokens)]
    if draft is not None:
        command += ["--draft", str(draft)]
    if fill_context:
        command.append("--fill")
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=root, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"memory measurement failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return Measurement(**json.loads(done.stdout.strip().splitlines()[-1]))


def _measure_here(args: argparse.Namespace) -> Measurement:
    """The child side of :func:`measure_configuration`."""
    import llama_cpp

    from app.core.conversation.chat import Message
    from app.core.decoding.decoder import GenerationRequest
    from app.core.decoding.sampling import SamplingParams
    from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig

    llama_cpp.llama_backend_init()  # library set-up is not the pair's memory
    baseline = process_memory()
    gpu_baseline = process_gpu_bytes()
    kind = DrafterKind.MODEL if args.draft else DrafterKind.NONE
    config = PairConfig(args.target, args.draft, kind, args.ctx, None, args.ngl, args.ngld)
    with capture_load_log() as log:
        pair = LoadedPair(config)
    with pair:
        if args.fill:
            _fill_contexts(pair)
        messages = [Message("user", "Write a Python function that returns the n-th Fibonacci number.")]
        prompt = pair.template.render(messages)
        # Greedy: the same reply, so the same cache fill, on every measurement of one configuration.
        decoder = pair.decoder(SamplingParams(temperature=0.0), FixedDraftLength(4))
        for _event in decoder.generate(GenerationRequest(prompt, max_tokens=args.max_tokens)):
            pass
        now = process_memory()
        fill = args.ctx if args.fill else len(pair.target.kv_tokens)
        measured = measured_breakdown(pair, baseline, log, gpu_baseline, context_fill=fill)
        target_shape = shape_from_header(pair.target.header)
        draft_shape = shape_from_header(pair.draft.header) if pair.draft is not None else None
        repack = cpu_repack_types()
        flash = pair.target.options.flash_attn
        at_state = estimate_pair(
            target_shape,
            draft_shape,
            args.ctx,
            args.ngl,
            args.ngld,
            flash_attn=flash,
            repack_types=repack,
            context_fill=fill,
        )
        worst = estimate_pair(
            target_shape, draft_shape, args.ctx, args.ngl, args.ngld, flash_attn=flash, repack_types=repack
        )
    return Measurement(
        target=str(args.target),
        draft=str(args.draft) if args.draft else None,
        n_ctx=args.ctx,
        context_fill=fill,
        rss_growth=now.rss - baseline.rss,
        anon_growth=None if now.anon is None or baseline.anon is None else now.anon - baseline.anon,
        file_growth=None if now.file is None or baseline.file is None else now.file - baseline.file,
        estimated_rss=at_state.bytes_on(Device.CPU) + at_state.reclaimable_on(Device.CPU),
        estimated_need=at_state.bytes_on(Device.CPU),
        worst_case_need=worst.bytes_on(Device.CPU),
        buffers=[asdict(r) for r in log.reports],
        components=[
            {
                "kind": c.kind.value,
                "device": c.device.value,
                "bytes": c.bytes,
                "reclaimable_bytes": c.reclaimable_bytes,
                "measured": c.measured,
            }
            for c in measured.components
        ],
    )


def _fill_contexts(pair: LoadedPair) -> None:
    """Fill each model's context in full chunks, so the compute buffers' worst case is touched, then empty it."""
    for model in (pair.target, pair.draft):
        if model is None:
            continue
        filler = model.tokenize(" the quick brown fox jumps over the lazy dog" * 8)
        tokens = (filler * (model.n_ctx // len(filler) + 1))[: model.n_ctx - 1]
        model.decode(tokens, "none")
        model.truncate(0)


def main(argv: list[str] | None = None) -> int:
    """Entry of the measurement subprocess: prints one JSON line."""
    parser = argparse.ArgumentParser(description="measure one pair's memory in this process")
    parser.add_argument("--target", type=Path, required=True)
    parser.add_argument("--draft", type=Path, default=None)
    parser.add_argument("--ctx", type=int, default=2048)
    parser.add_argument("--ngl", type=int, default=0)
    parser.add_argument("--ngld", type=int, default=0)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--fill", action="store_true", help="fill the context first (slow: touches every buffer)")
    args = parser.parse_args(argv)
    result = _measure_here(args)
    print(json.dumps(asdict(result)))
    return 0


__all__ = [
    "LoadLog",
    "Measurement",
    "ProcessMemory",
    "capture_load_log",
    "measure_configuration",
    "measured_breakdown",
    "process_memory",
]

if __name__ == "__main__":
    sys.exit(main())
