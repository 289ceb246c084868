"""Does a pair fit? A verdict per device, with advice that names concrete settings.

Pure: a :class:`~app.core.memory.estimate.MemoryBreakdown` against any
budget with ``cpu_budget_bytes``, ``gpu_budget_bytes`` and
``gpu_unusable_reason`` (``app.engine.memory.hardware.HardwareBudget``, or
:class:`MemoryBudget` here). "tight" means under 10% of the budget would be
left. Advice is found by re-estimating variants of the request (a smaller
context, fewer target layers on the GPU, no draft model), so every number
it names has been checked to fit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Protocol, Unpack

from app.core.display.units import bytes_words
from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Value, Words
from app.core.memory.estimate import (
    Device,
    EstimateRequest,
    Kind,
    MemoryBreakdown,
    RequestChanges,
    estimate,
    gpu_layer_count,
    pad_context,
)

TIGHT_FRACTION = 0.10
FITS, TIGHT, DOES_NOT_FIT, UNKNOWN = "fits", "tight", "does_not_fit", "unknown"
_SEVERITY = {FITS: 0, UNKNOWN: 1, TIGHT: 2, DOES_NOT_FIT: 3}
_MIN_CONTEXT = 512


class Budget(Protocol):
    """What a verdict needs to know about the machine."""

    @property
    def cpu_budget_bytes(self) -> int: ...

    @property
    def gpu_budget_bytes(self) -> int | None: ...

    @property
    def gpu_unusable_reason(self) -> str | None: ...

    @property
    def gpu_shares_ram(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class MemoryBudget:
    """A budget given by hand (tests, or a user-set limit)."""

    cpu_budget_bytes: int
    gpu_budget_bytes: int | None = None
    gpu_unusable_reason: str | None = None
    gpu_shares_ram: bool = False  # unified memory: the GPU's share is also RAM


@dataclass(frozen=True, slots=True)
class DeviceVerdict:
    """One device: what is needed, what there is, and what to do about it."""

    device: Device
    status: str  # "fits" | "tight" | "does_not_fit" | "unknown" (GPU without a measurable budget)
    needed_bytes: int
    budget_bytes: int | None
    headroom_bytes: int | None
    advice_words: tuple[Words | Phrase, ...] = ()

    @property
    def advice(self) -> tuple[str, ...]:
        """What to do about it, in English (the window renders :attr:`advice_words`)."""
        return tuple(str(line) for line in self.advice_words)


@dataclass(frozen=True, slots=True)
class MemoryVerdict:
    """Per-device verdicts and the combined advice."""

    devices: tuple[DeviceVerdict, ...]

    @property
    def status(self) -> str:
        """The worst device's status."""
        return max((d.status for d in self.devices), key=_SEVERITY.__getitem__, default=FITS)

    @property
    def advice(self) -> tuple[str, ...]:
        """Every device's advice, without repeats, worst device first."""
        return tuple(str(line) for line in self.advice_words)

    @property
    def advice_words(self) -> tuple[Words | Phrase, ...]:
        """:attr:`advice` as words the window renders in its language."""
        seen: dict[Words | Phrase, None] = {}
        for d in sorted(self.devices, key=lambda d: -_SEVERITY[d.status]):
            for line in d.advice_words:
                seen.setdefault(line, None)
        return tuple(seen)

    def for_device(self, device: Device) -> DeviceVerdict | None:
        """The verdict for one device, if it holds anything or has a budget."""
        return next((d for d in self.devices if d.device is device), None)

    @property
    def message(self) -> str:
        """One line for a status bar."""
        return str(self.message_words())

    def message_words(self, device_names: Mapping[str, Value] | None = None) -> Words:
        """:attr:`message` as words; ``device_names`` renames devices ("cpu" -> "RAM"), else their value is shown."""
        names = device_names or {}
        parts: list[Words] = []
        for d in self.devices:
            device = names.get(d.device.value, d.device.value)
            if d.budget_bytes is None:
                parts.append(
                    QT_TRANSLATE_NOOP("MemoryVerdict", "{device}: {needed} needed, no budget known").fill(
                        device=device, needed=bytes_words(d.needed_bytes)
                    )
                )
            else:
                parts.append(
                    QT_TRANSLATE_NOOP("MemoryVerdict", "{device}: {needed} of {budget} ({status})").fill(
                        device=device,
                        needed=bytes_words(d.needed_bytes),
                        budget=bytes_words(d.budget_bytes),
                        status=_STATUS_WORDS.get(d.status, d.status.replace("_", " ")),
                    )
                )
        sentence = parts[0] if parts else _ALONE.fill(text="")
        for part in parts[1:]:
            sentence = _AND_THEN.fill(earlier=sentence, next=part)
        return sentence


_STATUS_WORDS: dict[str, Value] = {
    FITS: QT_TRANSLATE_NOOP("MemoryVerdict", "fits"),
    TIGHT: QT_TRANSLATE_NOOP("MemoryVerdict", "tight"),
    DOES_NOT_FIT: QT_TRANSLATE_NOOP("MemoryVerdict", "does not fit"),
    UNKNOWN: QT_TRANSLATE_NOOP("MemoryVerdict", "unknown"),
}
_AND_THEN = QT_TRANSLATE_NOOP("MemoryVerdict", "{earlier}; {next}")
_ALONE = QT_TRANSLATE_NOOP("MemoryVerdict", "{text}")


def judge(breakdown: MemoryBreakdown, budget: Budget) -> MemoryVerdict:
    """Fits / tight / does not fit for each device the breakdown uses (the CPU always)."""
    gpu_budget = budget.gpu_budget_bytes
    verdicts = [
        _device_verdict(breakdown, Device.CPU, budget.cpu_budget_bytes, ram_needed=_ram_needed(breakdown, budget))
    ]
    if breakdown.bytes_on(Device.GPU) > 0 or gpu_budget is not None:
        verdicts.append(_device_verdict(breakdown, Device.GPU, gpu_budget, budget.gpu_unusable_reason))
    verdicts = [_with_advice(v, breakdown, budget) for v in verdicts]
    return MemoryVerdict(tuple(verdicts))


def status_for(needed: int, budget: int) -> str:
    """The status of ``needed`` bytes against ``budget``."""
    if needed > budget:
        return DOES_NOT_FIT
    if budget - needed < TIGHT_FRACTION * budget:
        return TIGHT
    return FITS


def _ram_needed(breakdown: MemoryBreakdown, budget: Budget) -> int:
    """What system RAM must hold: the CPU's share, and the GPU's too on unified memory (counted once, in RAM)."""
    on_gpu = breakdown.bytes_on(Device.GPU) if budget.gpu_shares_ram else 0
    return breakdown.bytes_on(Device.CPU) + on_gpu


def _device_verdict(
    breakdown: MemoryBreakdown,
    device: Device,
    budget: int | None,
    unusable: str | None = None,
    *,
    ram_needed: int | None = None,
) -> DeviceVerdict:
    needed = breakdown.bytes_on(device) if ram_needed is None else ram_needed
    if budget is None:
        # GPU layers were asked for, but nothing measurable will take them.
        status = UNKNOWN if unusable is None else DOES_NOT_FIT
        return DeviceVerdict(device, status, needed, None, None)
    return DeviceVerdict(device, status_for(needed, budget), needed, budget, budget - needed)


def _comfortable(breakdown: MemoryBreakdown, budget: Budget) -> bool:
    """True when every device fits with at least 10% to spare."""
    cpu = budget.cpu_budget_bytes
    if status_for(_ram_needed(breakdown, budget), cpu) != FITS:
        return False
    gpu_needed = breakdown.bytes_on(Device.GPU)
    if gpu_needed == 0:
        return True
    gpu = budget.gpu_budget_bytes
    return gpu is not None and status_for(gpu_needed, gpu) == FITS


def _with_advice(verdict: DeviceVerdict, breakdown: MemoryBreakdown, budget: Budget) -> DeviceVerdict:
    request = breakdown.request
    if verdict.status == UNKNOWN or request is None:
        return verdict
    if verdict.device is Device.GPU and verdict.budget_bytes is None:
        cpu_only = _replace(request, n_gpu_layers=0, n_gpu_layers_draft=0)
        advice: list[Words | Phrase] = [
            QT_TRANSLATE_NOOP("MemoryVerdict", "no usable GPU ({reason}); set GPU layers to 0 for both models").fill(
                reason=str(budget.gpu_unusable_reason)
            )
        ]
        if not _comfortable(estimate(cpu_only), budget):
            advice += _cpu_advice(cpu_only, budget)
        return _replace_advice(verdict, advice)
    if verdict.device is Device.GPU:
        # Placement advice is worth giving even when everything fits.
        advice = _draft_placement_advice(request, budget)
        if verdict.status != FITS and not advice:
            layers = _max_target_layers(request, budget)
            if layers is not None and layers != gpu_layer_count(request.target, request.n_gpu_layers):
                advice.append(_offload_line(request, layers))
            else:
                advice += _context_advice(request, budget) + _ngram_advice(request, budget)
        return _replace_advice(verdict, advice)
    if verdict.status == FITS:
        return verdict
    advice = []
    if budget.gpu_budget_bytes is not None:
        # Moving more target layers to a GPU with room relieves the CPU.
        current = gpu_layer_count(request.target, request.n_gpu_layers)
        layers = _max_target_layers(request, budget)
        if layers is not None and layers > current:
            advice.append(_offload_line(request, layers))
    advice += _cpu_advice(request, budget)
    return _replace_advice(verdict, advice)


def _cpu_advice(request: EstimateRequest, budget: Budget) -> list[Words | Phrase]:
    return _context_advice(request, budget) + _ngram_advice(request, budget)


def _draft_placement_advice(request: EstimateRequest, budget: Budget) -> list[Words | Phrase]:
    """When the target uses the GPU but the draft is not all there: move it, making room if needed."""
    draft = request.draft
    if draft is None or gpu_layer_count(request.target, request.n_gpu_layers) == 0:
        return []
    if gpu_layer_count(draft, request.n_gpu_layers_draft) == draft.layer_slots():
        return []
    # The draft runs once per drafted token and the target once per step, so
    # GPU memory buys more speed when it holds the draft.
    moved = _replace(request, n_gpu_layers_draft=-1)
    layers = _max_target_layers(moved, budget)
    if layers is None:
        return []
    advice: list[Words | Phrase] = [
        QT_TRANSLATE_NOOP("MemoryVerdict", "keep the draft fully on the GPU; it is read for every drafted token")
    ]
    if layers != gpu_layer_count(request.target, request.n_gpu_layers):
        advice.append(_offload_line(request, layers))
    return advice


def _offload_line(request: EstimateRequest, layers: int) -> Words:
    slots = request.target.layer_slots()
    # llama.cpp's n_gpu_layers counts the output layer as one of n_layers + 1.
    return QT_TRANSLATE_NOOP("MemoryVerdict", "offload {layers} of {slots} target layers (--ngl {layers})").fill(
        layers=layers, slots=slots
    )


def _max_target_layers(request: EstimateRequest, budget: Budget) -> int | None:
    """The most target layers on the GPU with every device comfortable; None if no count is."""
    best = None
    for layers in range(request.target.layer_slots() + 1):
        if _comfortable(estimate(_replace(request, n_gpu_layers=layers)), budget):
            best = layers
    return best


def _context_advice(request: EstimateRequest, budget: Budget) -> list[Words | Phrase]:
    """The largest smaller context (a multiple of 256, at least 512, at most the trained one) that fits comfortably."""
    # Memory grows with the context, so binary-search the number of 256-cell blocks.
    low, high = _MIN_CONTEXT // 256, pad_context(request.n_ctx) // 256 - 1
    trained = [m.n_ctx_train for m in (request.target, request.draft) if m is not None and m.n_ctx_train > 0]
    if trained:
        # Beyond its trained context a model degrades; never advise a size it was not made for.
        high = min(high, min(trained) // 256)
    if high < low or not _comfortable(estimate(_replace(request, n_ctx=low * 256)), budget):
        return []
    while low < high:
        mid = (low + high + 1) // 2
        if _comfortable(estimate(_replace(request, n_ctx=mid * 256)), budget):
            low = mid
        else:
            high = mid - 1
    return [QT_TRANSLATE_NOOP("MemoryVerdict", "reduce context to {n_ctx}").fill(n_ctx=low * 256)]


def _ngram_advice(request: EstimateRequest, budget: Budget) -> list[Words | Phrase]:
    if request.draft is None:
        return []
    without = estimate(_replace(request, draft=None))
    draft_bytes = sum(c.bytes for c in estimate(request).components if c.kind in (Kind.DRAFT_WEIGHTS, Kind.DRAFT_KV))
    if _comfortable(without, budget):
        return [
            QT_TRANSLATE_NOOP("MemoryVerdict", "use the n-gram drafter: it needs no memory (saves {size})").fill(
                size=bytes_words(draft_bytes)
            )
        ]
    return []


def _replace(request: EstimateRequest, **changes: Unpack[RequestChanges]) -> EstimateRequest:
    return replace(request, **changes)


def _replace_advice(verdict: DeviceVerdict, advice: list[Words | Phrase]) -> DeviceVerdict:
    return replace(verdict, advice_words=tuple(dict.fromkeys(advice)))
