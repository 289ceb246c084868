"""The memory plan of a pair on this machine: the one place the estimate is assembled.

The window's meter and ``tandem memory`` both call :func:`plan_pair`, so the
same pair and settings always get the same figures and the same verdict:
headers read into shapes, the hardware probed, GPU layers dropped when the
llama.cpp build cannot offload (llama.cpp itself keeps every layer on the CPU
then, silently), the estimate made and judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.core.memory.estimate import MemoryBreakdown, estimate_pair
from app.core.memory.verdict import MemoryVerdict, judge
from app.engine.memory.hardware import HardwareBudget, probe_hardware
from app.engine.memory.shape import shape_from_gguf

NO_OFFLOAD_NOTE = "this llama.cpp build cannot offload to a GPU: the GPU layer settings are ignored, as llama.cpp would"


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    """What a pair needs here, what this machine offers, and whether it fits."""

    breakdown: MemoryBreakdown
    hardware: HardwareBudget
    verdict: MemoryVerdict
    notes: tuple[str, ...]  # about the request itself; the estimate's own notes are on ``breakdown``

    @property
    def all_notes(self) -> tuple[str, ...]:
        """The request's notes, then the estimate's."""
        return (*self.notes, *self.breakdown.notes)


def plan_pair(
    target: Path,
    draft: Path | None,
    n_ctx: int,
    n_gpu_layers: int = 0,
    n_gpu_layers_draft: int = 0,
    kv_type: str = "f16",
) -> MemoryPlan:
    """Estimate ``target`` (+ ``draft``) at ``n_ctx`` and judge it against this machine's free memory.

    Raises :class:`~app.engine.gguf.header.ModelFileError` for a file whose header cannot be read.
    """
    target_shape = shape_from_gguf(target)
    draft_shape = shape_from_gguf(draft) if draft is not None else None
    hardware = probe_hardware()
    notes: list[str] = []
    if (n_gpu_layers or n_gpu_layers_draft) and not hardware.gpu_offload_supported:
        notes.append(NO_OFFLOAD_NOTE)
        n_gpu_layers = n_gpu_layers_draft = 0
    breakdown = estimate_pair(
        target_shape,
        draft_shape,
        n_ctx,
        n_gpu_layers,
        n_gpu_layers_draft,
        kv_type,
        repack_types=hardware.cpu_repack_types,
    )
    return MemoryPlan(breakdown, hardware, judge(breakdown, hardware), tuple(notes))
