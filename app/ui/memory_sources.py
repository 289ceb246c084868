"""Where the memory meter's numbers come from: the engine's estimate, the hardware budget, a measurement.

:func:`estimate_state` runs before loading (off the GUI thread: it reads
GGUF headers and probes the hardware); :func:`measured_state` turns what
the engine thread recorded while loading into the "after" picture.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.engine.gguf_header import read_header
from app.engine.session import DrafterKind
from app.ui.memory_meter import DeviceBar, MeterState, human_bytes
from app.ui.settings_store import GenerationSettings, PairChoice
from app.ui.worker import PairInfo

_N_BATCH = 512  # the engine's batch: llama.cpp reserves logits for this many rows


def _shape(path: Path) -> dict[str, int]:
    """The sizes that decide a model's memory, from its header."""
    from app.engine.gguf_inspect import inspect_header

    info = inspect_header(read_header(path))
    n_head = info.n_head or 1
    head_dim = info.head_dim or ((info.n_embd or 0) // n_head)
    return {
        "file": path.stat().st_size,
        "layers": info.n_layers or 0,
        "kv_width": (info.n_head_kv or n_head) * head_dim,
        "vocab": info.n_vocab,
    }


def _kv_bytes(shape: dict[str, int], n_ctx: int) -> int:
    # K and V, f16, every layer, every position.
    return 2 * shape["layers"] * n_ctx * shape["kv_width"] * 2


def _system_budget() -> tuple[int | None, int | None]:
    try:
        import psutil

        memory = psutil.virtual_memory()
        return int(memory.total), int(memory.available)
    except Exception:  # no psutil: the meter shows sizes without a budget
        return None, None


def _engine_estimate(choice: PairChoice, settings: GenerationSettings) -> MeterState | None:
    """The engine's own estimate and verdict, when those modules are available."""
    try:
        from app.core.memory_estimate import estimate_pair  # type: ignore[import-not-found]
        from app.core.memory_verdict import judge  # type: ignore[import-not-found]
        from app.engine.hardware_probe import probe_hardware  # type: ignore[import-not-found]
    except ImportError:
        return None
    try:
        from app.engine.hardware_probe import shape_from_gguf  # type: ignore[import-not-found]
    except ImportError:
        try:
            from app.engine.memory_shape import shape_from_gguf  # type: ignore[import-not-found]
        except ImportError:
            return None
    draft = choice.draft if choice.drafter is DrafterKind.MODEL else None
    breakdown = estimate_pair(
        shape_from_gguf(choice.target),
        shape_from_gguf(draft) if draft else None,
        settings.n_ctx,
        settings.n_gpu_layers,
        settings.n_gpu_layers_draft,
    )
    verdict = judge(breakdown, probe_hardware())
    return _from_engine(breakdown, verdict)


def _from_engine(breakdown: Any, verdict: Any) -> MeterState:
    """Adapt the engine's breakdown and verdict to what the meter draws."""
    bars: list[DeviceBar] = []
    for device in getattr(breakdown, "devices", []):
        segments = tuple((str(k), int(v)) for k, v in getattr(device, "segments", {}).items() if int(v) > 0)
        bars.append(DeviceBar(str(device.name), segments, getattr(device, "budget", None)))
    level = str(getattr(verdict, "level", "unknown"))
    return MeterState(tuple(bars), "estimate", str(getattr(verdict, "message", verdict)), level)


def estimate_state(choice: PairChoice, settings: GenerationSettings) -> MeterState:
    """What the chosen pair should need with these settings, against what this machine has."""
    engine = _engine_estimate(choice, settings)
    if engine is not None:
        return engine
    target = _shape(choice.target)
    segments: list[tuple[str, int]] = [("target weights", target["file"])]
    draft = _shape(choice.draft) if choice.drafter is DrafterKind.MODEL and choice.draft else None
    if draft:
        segments.append(("draft weights", draft["file"]))
    segments.append(("target KV cache", _kv_bytes(target, settings.n_ctx)))
    if draft:
        segments.append(("draft KV cache", _kv_bytes(draft, settings.n_ctx)))
    buffers = target["vocab"] * 4 * _N_BATCH + (draft["vocab"] * 4 * _N_BATCH if draft else 0)
    segments.append(("buffers", buffers))
    _total, available = _system_budget()
    used = sum(size for _, size in segments)
    if available is None:
        level, verdict = "unknown", f"needs about {human_bytes(used)}"
    elif used <= 0.8 * available:
        level, verdict = "fits", f"fits: about {human_bytes(used)} of {human_bytes(available)} free memory"
    elif used <= available:
        level, verdict = "tight", f"tight: about {human_bytes(used)} of {human_bytes(available)} free; close other apps"
    else:
        level, verdict = (
            "too big",
            (
                f"too big: about {human_bytes(used)} but only {human_bytes(available)} free; "
                "try a smaller context or a smaller quantisation"
            ),
        )
    notes = ("Both models run on the CPU here, so everything comes out of system RAM.",)
    return MeterState((DeviceBar("System RAM", tuple(segments), available),), "estimate", verdict, level, notes)


def measured_state(estimate: MeterState | None, info: PairInfo) -> MeterState:
    """After loading: the process's measured growth next to the estimate's breakdown."""
    grown = info.measured_bytes.get("process_delta", 0)
    bars = estimate.bars if estimate is not None else ()
    if not bars:
        segments: list[tuple[str, int]] = [("target weights", info.measured_bytes.get("target_file", 0))]
        if "draft_file" in info.measured_bytes:
            segments.append(("draft weights", info.measured_bytes["draft_file"]))
        bars = (DeviceBar("System RAM", tuple(segments), None),)
    verdict = (
        f"loaded in {info.load_seconds:.1f} s; the process grew by {human_bytes(grown)} "
        "(weights are memory-mapped, so pages count once they are read)"
    )
    return MeterState(bars, "measured", verdict, "fits", estimate.notes if estimate else ())
