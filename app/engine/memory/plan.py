"""The memory plan of a pair on this machine: the one place the estimate is assembled.

The window's meter and ``tandem memory`` both call :func:`plan_pair`, so the
same pair and settings always get the same figures and the same verdict:
headers read into shapes, the hardware probed, GPU layers dropped when the
llama.cpp build cannot offload (llama.cpp itself keeps every layer on the CPU
then, silently), the estimate made and judged.

GPU layers "auto" (:data:`~app.core.memory.offload.AUTO_GPU_LAYERS`, the default) is
resolved here too, by :func:`resolve_gpu_layers`: with a GPU build and a GPU, the
offload planner's counts for the free memory of the device llama.cpp offloads to, as
ggml reports it (:func:`~app.core.memory.devices.plan_for_device`, less a margin: the
GPU figures are llama.cpp's rules, not measured here); otherwise 0, so a CPU build
changes nothing.
:func:`auto_gpu_layers` does the same from file paths for the loader.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words
from app.core.memory.devices import plan_for_device
from app.core.memory.estimate import MemoryBreakdown, ModelShape, estimate_pair
from app.core.memory.offload import AUTO_GPU_LAYERS, OffloadPlan, is_auto, offload_cost
from app.core.memory.verdict import MemoryVerdict, judge
from app.engine.llama.model import FLASH_ATTENTION, gpu_offload_supported
from app.engine.memory.hardware import HardwareBudget, probe_hardware
from app.engine.memory.shape import shape_from_gguf

NO_OFFLOAD_WORDS = QT_TRANSLATE_NOOP(
    "MemoryNotes",
    "this llama.cpp build cannot offload to a GPU: the GPU layer settings are ignored, as llama.cpp would",
)
NO_OFFLOAD_NOTE = str(NO_OFFLOAD_WORDS)


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    """What a pair needs here, what this machine offers, and whether it fits."""

    breakdown: MemoryBreakdown
    hardware: HardwareBudget
    verdict: MemoryVerdict
    note_words: tuple[Words | Phrase, ...]  # about the request itself; the estimate's own notes are on ``breakdown``
    offload: OffloadPlan | None = None  # what "auto" chose, when it chose anything

    @property
    def notes(self) -> tuple[str, ...]:
        """The request's notes in English (the window renders :attr:`note_words`)."""
        return tuple(str(note) for note in self.note_words)

    @property
    def all_notes(self) -> tuple[str, ...]:
        """The request's notes, then the estimate's."""
        return (*self.notes, *self.breakdown.notes)

    @property
    def all_note_words(self) -> tuple[Words | Phrase, ...]:
        """:attr:`all_notes` as words."""
        return (*self.note_words, *self.breakdown.note_words)


def plan_pair(
    target: Path,
    draft: Path | None,
    n_ctx: int,
    n_gpu_layers: int = AUTO_GPU_LAYERS,
    n_gpu_layers_draft: int = AUTO_GPU_LAYERS,
    kv_type: str = "f16",
) -> MemoryPlan:
    """Estimate ``target`` (+ ``draft``) at ``n_ctx`` and judge it against this machine's free memory.

    Raises :class:`~app.engine.gguf.header.ModelFileError` for a file whose header cannot be read.
    """
    target_shape = shape_from_gguf(target)
    draft_shape = shape_from_gguf(draft) if draft is not None else None
    hardware = probe_hardware()
    notes: list[Words | Phrase] = []
    n_gpu_layers, n_gpu_layers_draft, offload = resolve_gpu_layers(
        target_shape, draft_shape, n_ctx, n_gpu_layers, n_gpu_layers_draft, hardware, kv_type
    )
    if offload is not None:
        notes.append(offload.describe_words())
    if (n_gpu_layers or n_gpu_layers_draft) and not hardware.gpu_offload_supported:
        notes.append(NO_OFFLOAD_WORDS)
        n_gpu_layers = n_gpu_layers_draft = 0
    breakdown = estimate_pair(
        target_shape,
        draft_shape,
        n_ctx,
        n_gpu_layers,
        n_gpu_layers_draft,
        kv_type,
        flash_attn=FLASH_ATTENTION,
        repack_types=hardware.cpu_repack_types,
    )
    return MemoryPlan(breakdown, hardware, judge(breakdown, hardware), tuple(notes), offload)


def resolve_gpu_layers(
    target: ModelShape,
    draft: ModelShape | None,
    n_ctx: int,
    n_gpu_layers: int,
    n_gpu_layers_draft: int,
    hardware: HardwareBudget,
    kv_type: str = "f16",
) -> tuple[int, int, OffloadPlan | None]:
    """The layer counts to load with: "auto" planned for this GPU (or 0 without one), set counts kept."""
    if not (is_auto(n_gpu_layers) or is_auto(n_gpu_layers_draft)):
        return n_gpu_layers, n_gpu_layers_draft, None
    # None: a CPU build (llama.cpp keeps every layer on the CPU whatever it is told), or no GPU.
    device = hardware.offload_device if hardware.gpu_offload_supported else None
    plan = plan_for_device(
        device,
        offload_cost(target, n_ctx, kv_type, flash_attn=FLASH_ATTENTION),
        offload_cost(draft, n_ctx, kv_type, flash_attn=FLASH_ATTENTION) if draft is not None else None,
        held_bytes=hardware.gpu_held_bytes,
        target_layers=None if is_auto(n_gpu_layers) else n_gpu_layers,
        draft_layers=None if is_auto(n_gpu_layers_draft) else n_gpu_layers_draft,
    )
    if plan is None:
        return _cpu(n_gpu_layers), _cpu(n_gpu_layers_draft), None
    return plan.target_layers, plan.draft_layers if draft is not None else _cpu(n_gpu_layers_draft), plan


def auto_gpu_layers(
    target: Path, draft: Path | None, n_ctx: int, n_gpu_layers: int, n_gpu_layers_draft: int
) -> tuple[int, int, OffloadPlan | None]:
    """:func:`resolve_gpu_layers` for files about to be loaded; a CPU build answers 0 without reading them."""
    if not (is_auto(n_gpu_layers) or is_auto(n_gpu_layers_draft)):
        return n_gpu_layers, n_gpu_layers_draft, None
    if not gpu_offload_supported():
        return _cpu(n_gpu_layers), _cpu(n_gpu_layers_draft), None
    draft_shape = shape_from_gguf(draft) if draft is not None else None
    return resolve_gpu_layers(
        shape_from_gguf(target), draft_shape, n_ctx, n_gpu_layers, n_gpu_layers_draft, probe_hardware()
    )


def _cpu(n_gpu_layers: int) -> int:
    """A setting with "auto" read as no GPU layers."""
    return 0 if is_auto(n_gpu_layers) else n_gpu_layers
