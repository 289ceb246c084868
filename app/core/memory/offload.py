"""GPU layers "auto": the largest target and draft layer counts that fit the free VRAM.

Pure arithmetic. Each model's GPU cost is an :class:`OffloadCost`: the bytes of
every layer slot in the order llama.cpp offloads them (the output layer first,
then the highest-numbered blocks, see :mod:`app.core.memory.rules`), each slot
its weights plus its KV cache, and the compute buffers the GPU backend reserves
as soon as one slot is there. :func:`offload_cost` builds it from a shape with
the same estimate the meter shows; tests build it by hand.

:func:`plan_offload` places the draft first, as far as it fits, then the target
in what is left: the draft is read for every drafted token (K times per verify
step) and the target once per step, so a draft layer on the GPU saves more time
than a target layer. A count the user set stays as set; only "auto" is chosen.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Final

from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.core.memory.estimate import GPU_RUNTIME_BYTES, Device, Kind, ModelShape, estimate_pair

# The GPU-layers setting that means "choose for me". Not -1: llama.cpp (and Tandem's
# --ngl) read -1 as "every layer", which stays available as a count of its own.
AUTO_GPU_LAYERS: Final = -2


def is_auto(n_gpu_layers: int) -> bool:
    """Whether a GPU-layers setting asks for the plan rather than a count."""
    return n_gpu_layers == AUTO_GPU_LAYERS


@dataclass(frozen=True, slots=True)
class OffloadCost:
    """One model's VRAM need by layer slots offloaded.

    ``slot_bytes[i]`` is the (i+1)-th slot llama.cpp moves to the GPU (weights and
    KV cache of that slot); ``fixed_bytes`` the compute buffers, needed once any
    slot is on the GPU.
    """

    slot_bytes: tuple[int, ...]
    fixed_bytes: int

    @property
    def slots(self) -> int:
        """Every block plus the output layer: the count that means fully on the GPU."""
        return len(self.slot_bytes)

    def bytes_for(self, layers: int) -> int:
        """VRAM for ``layers`` slots (clamped to ``0..slots``)."""
        n = max(0, min(layers, self.slots))
        return 0 if n == 0 else self.fixed_bytes + sum(self.slot_bytes[:n])

    def most_that_fit(self, budget: int) -> int:
        """The largest slot count whose bytes fit in ``budget``."""
        if self.bytes_for(1) > budget:
            return 0
        used, n = self.fixed_bytes, 0
        for size in self.slot_bytes:
            if used + size > budget:
                break
            used += size
            n += 1
        return n


@dataclass(frozen=True, slots=True)
class OffloadPlan:
    """The layer counts chosen (or kept) for both models, and what they need of the budget."""

    target_layers: int
    target_slots: int
    draft_layers: int
    draft_slots: int  # 0 without a draft model
    gpu_bytes: int  # runtime included once anything is on the GPU
    budget_bytes: int

    def describe(self) -> str:
        """One line for the meter and ``tandem memory``."""
        return str(self.describe_words())

    def describe_words(self) -> Words:
        """:meth:`describe` as words the window renders in its language."""
        if self.target_layers == 0 and self.draft_layers == 0:
            return QT_TRANSLATE_NOOP(
                "MemoryNotes", "auto: too little free GPU memory for any layer, so every layer stays on the CPU"
            ).fill()
        if self.draft_slots:
            return QT_TRANSLATE_NOOP(
                "MemoryNotes",
                "auto: {target} of {target_slots} target layers, {draft} of {draft_slots} draft layers on the GPU",
            ).fill(
                target=self.target_layers,
                target_slots=self.target_slots,
                draft=self.draft_layers,
                draft_slots=self.draft_slots,
            )
        return QT_TRANSLATE_NOOP("MemoryNotes", "auto: {target} of {target_slots} target layers on the GPU").fill(
            target=self.target_layers, target_slots=self.target_slots
        )


def plan_offload(
    budget_bytes: int,
    target: OffloadCost,
    draft: OffloadCost | None = None,
    *,
    runtime_bytes: int = GPU_RUNTIME_BYTES,
    target_layers: int | None = None,
    draft_layers: int | None = None,
) -> OffloadPlan:
    """The largest layer counts that fit ``budget_bytes``: the draft first, then the target.

    ``target_layers`` / ``draft_layers`` given (not None) are kept as the user set them
    (clamped to the model's slots, negative meaning all) and charged first; only the
    others are chosen.
    ``runtime_bytes`` is the GPU context, paid once when any layer is on the GPU.
    """
    room = budget_bytes - runtime_bytes
    fixed_draft = draft is not None and draft_layers is not None
    d = _clamped(draft_layers, draft.slots) if draft is not None and draft_layers is not None else 0
    t = _clamped(target_layers, target.slots) if target_layers is not None else 0
    room -= (draft.bytes_for(d) if draft is not None else 0) + target.bytes_for(t)
    if draft is not None and not fixed_draft:
        d = draft.most_that_fit(room)
        room -= draft.bytes_for(d)
    if target_layers is None:
        t = target.most_that_fit(room)
    used = target.bytes_for(t) + (draft.bytes_for(d) if draft is not None else 0)
    gpu = used + runtime_bytes if (t or d) else 0
    return OffloadPlan(t, target.slots, d, draft.slots if draft is not None else 0, gpu, budget_bytes)


def _clamped(layers: int, slots: int) -> int:
    """A set count as llama.cpp reads it: negative means every slot."""
    return slots if layers < 0 else min(layers, slots)


def offload_cost(shape: ModelShape, n_ctx: int, kv_type: str = "f16", *, flash_attn: bool = False) -> OffloadCost:
    """A model's :class:`OffloadCost` from the estimate itself, slot by slot, so plan and meter agree."""
    cumulative = [0]
    fixed = 0
    for layers in range(1, shape.layer_slots() + 1):
        breakdown = estimate_pair(shape, None, n_ctx, layers, 0, kv_type, flash_attn=flash_attn)
        if layers == 1:
            fixed = breakdown.of_kind(Kind.COMPUTE, Device.GPU)
        cumulative.append(breakdown.bytes_on(Device.GPU) - GPU_RUNTIME_BYTES - fixed)
    slots = tuple(max(0, b - a) for a, b in itertools.pairwise(cumulative))
    return OffloadCost(slots, fixed)
