"""Where the memory meter's numbers come from: the engine's estimate, the hardware budget, a measurement.

:func:`estimate_state` runs before loading (off the GUI thread: it reads
GGUF headers and probes the hardware) and uses the engine's estimator and
verdict (``app.core.memory.estimate``, ``app.core.memory.verdict``,
``app.engine.memory.hardware``). :func:`measured_state` shows the breakdown
the engine thread measured while loading (``app.engine.memory.measure``),
judged against the same budget. If those modules are missing from a build,
the meter falls back to file sizes and a KV-cache formula.
"""

from __future__ import annotations

from typing import Any

from app.engine.llama.session import DrafterKind
from app.ui.models.memory_meter import DeviceBar, MeterState, human_bytes
from app.ui.settings.store import GenerationSettings, PairChoice
from app.ui.worker import PairInfo

_LEVELS = {"fits": "fits", "tight": "tight", "does_not_fit": "too big"}


def _device_title(name: str, budget: Any) -> str:
    if name == "gpu":
        gpu = getattr(budget, "gpu_name", None)
        return f"GPU ({gpu})" if gpu else "GPU"
    return "System RAM"


def _state(breakdown: Any, budget: Any, source: str) -> MeterState:
    """A meter state from an engine breakdown, judged against ``budget``."""
    from app.core.memory.verdict import judge

    verdict = judge(breakdown, budget)
    bars: list[DeviceBar] = []
    for usage in breakdown.devices:
        device_verdict = next((d for d in verdict.devices if d.device.value == usage.name), None)
        limit = device_verdict.budget_bytes if device_verdict is not None else None
        segments = tuple((label, int(size)) for label, size in usage.segments.items() if size > 0)
        bars.append(DeviceBar(_device_title(usage.name, budget), segments, limit))
    level = _LEVELS.get(verdict.status, "unknown")
    text = verdict.message.replace("cpu:", "RAM:").replace("gpu:", "GPU:")
    if verdict.advice:
        text += "\n" + verdict.advice[0]
    return MeterState(tuple(bars), source, text, level, tuple(breakdown.notes) + tuple(verdict.advice))


def estimate_state(choice: PairChoice, settings: GenerationSettings) -> MeterState:
    """What the chosen pair should need with these settings, against what this machine has."""
    draft = choice.draft if choice.drafter is DrafterKind.MODEL else None
    try:
        from app.core.memory.estimate import estimate_pair
        from app.engine.memory.hardware import probe_hardware
        from app.engine.memory.shape import shape_from_gguf
    except ImportError:
        return _fallback_estimate(choice, settings)
    budget = probe_hardware()
    breakdown = estimate_pair(
        shape_from_gguf(choice.target),
        shape_from_gguf(draft) if draft is not None else None,
        settings.n_ctx,
        settings.n_gpu_layers,
        settings.n_gpu_layers_draft,
        repack_types=budget.cpu_repack_types,
    )
    return _state(breakdown, budget, "estimate")


def measured_state(estimate: MeterState | None, info: PairInfo) -> MeterState:
    """After loading: what the engine thread measured, judged against the budget now."""
    if info.measured_breakdown is not None:
        try:
            from app.engine.memory.hardware import probe_hardware

            held = int(info.measured_bytes.get("process_delta", 0))
            return _state(info.measured_breakdown, probe_hardware(ram_held_bytes=held), "measured")
        except ImportError:
            pass
    grown = info.measured_bytes.get("process_delta", 0)
    bars = estimate.bars if estimate is not None else ()
    verdict = f"loaded in {info.load_seconds:.1f} s; the process grew by {human_bytes(grown)}"
    return MeterState(bars, "measured", verdict, "fits", estimate.notes if estimate else ())


def _fallback_estimate(choice: PairChoice, settings: GenerationSettings) -> MeterState:
    """File sizes plus an f16 KV cache: enough to see the proportions when the estimator is absent."""
    from app.engine.gguf.header import read_header
    from app.engine.gguf.inspection import inspect_header

    segments: list[tuple[str, int]] = []
    models = [("target", choice.target)]
    if choice.drafter is DrafterKind.MODEL and choice.draft is not None:
        models.append(("draft", choice.draft))
    for role, path in models:
        info = inspect_header(read_header(path))
        n_head = info.n_head or 1
        width = (info.n_head_kv or n_head) * (info.head_dim or (info.n_embd or 0) // n_head)
        segments.append((f"{role} weights", path.stat().st_size))
        segments.append((f"{role} KV cache", 2 * (info.n_layers or 0) * settings.n_ctx * width * 2))
    try:
        import psutil

        available: int | None = int(psutil.virtual_memory().available)
    except ImportError:
        available = None
    used = sum(size for _, size in segments)
    level = "unknown" if available is None else ("fits" if used < 0.9 * available else "too big")
    verdict = f"needs at least {human_bytes(used)}" + (f" of {human_bytes(available)} free" if available else "")
    return MeterState((DeviceBar("System RAM", tuple(segments), available),), "estimate", verdict, level)
