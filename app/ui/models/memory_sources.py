"""Where the memory meter's numbers come from: the engine's estimate, the hardware budget, a measurement.

:func:`estimate_state` runs before loading (off the GUI thread: it reads
GGUF headers and probes the hardware) and uses the engine's estimator and
verdict through :func:`app.engine.memory.plan.plan_pair`, the same call
``tandem memory`` makes, so the window and the terminal agree.
:func:`measured_state` shows the breakdown the engine thread measured while
loading (``app.engine.memory.measure``), judged against the same budget.
:class:`MeterFeed` decides which of the two the meter shows as the choice
changes and pairs load.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QCoreApplication

from app.core.display.units import bytes_words
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.memory.estimate import MemoryBreakdown
from app.core.memory.verdict import MemoryVerdict, judge
from app.engine.memory.hardware import HardwareBudget, probe_hardware
from app.engine.memory.plan import plan_pair
from app.ui.i18n.words import say, say_error
from app.ui.models.memory_meter import DeviceBar, MemoryMeter, MeterState
from app.ui.settings.store import GenerationSettings, PairChoice
from app.ui.threads.background import Background
from app.ui.threads.jobs import PairInfo

_LEVELS = {"fits": "fits", "tight": "tight", "does_not_fit": "too big"}


def _device_title(name: str, budget: HardwareBudget) -> str:
    if name == "gpu":
        return f"GPU ({budget.gpu_name})" if budget.gpu_name else "GPU"
    return QCoreApplication.translate("MemoryMeter", "System RAM")


def _state(breakdown: MemoryBreakdown, budget: HardwareBudget, verdict: MemoryVerdict, source: str) -> MeterState:
    """A meter state from an engine breakdown and its verdict against ``budget``."""
    bars: list[DeviceBar] = []
    for usage in breakdown.devices:
        device_verdict = next((d for d in verdict.devices if d.device.value == usage.name), None)
        limit = device_verdict.budget_bytes if device_verdict is not None else None
        segments = tuple((label, int(size)) for label, size in usage.segments.items() if size > 0)
        bars.append(DeviceBar(_device_title(usage.name, budget), segments, limit))
    level = _LEVELS.get(verdict.status, "unknown")
    text = say(verdict.message_words({"cpu": "RAM", "gpu": "GPU"}))
    advice = tuple(say(line) for line in verdict.advice_words)
    if advice:
        text += "\n" + advice[0]
    notes = tuple(say(note) for note in breakdown.note_words)
    return MeterState(tuple(bars), source, text, level, notes + advice)


def estimate_state(choice: PairChoice, settings: GenerationSettings) -> MeterState:
    """What the chosen pair should need with these settings, against what this machine has."""
    draft = choice.draft if choice.drafter.uses_draft_model else None
    plan = plan_pair(choice.target, draft, settings.n_ctx, settings.n_gpu_layers, settings.n_gpu_layers_draft)
    state = _state(plan.breakdown, plan.hardware, plan.verdict, "estimate")
    verdict = state.verdict if plan.offload is None else f"{say(plan.offload.describe_words())}\n{state.verdict}"
    return replace(
        state,
        verdict=verdict,
        notes=(*(say(note) for note in plan.note_words), *state.notes, *_device_notes(plan.hardware)),
    )


def _device_notes(budget: HardwareBudget) -> tuple[str, ...]:
    """The meter's tip on the build and device: its backends (or that it has no GPU one) and the GPU it plans for."""
    backends = QT_TRANSLATE_NOOP("MemoryMeter", "llama.cpp backends: {backends}").fill(backends=budget.backend_words)
    chosen = budget.offload_choice.words()
    if chosen is None:
        return (say(backends),)
    return say(backends), say(QT_TRANSLATE_NOOP("MemoryMeter", "GPU: {device}").fill(device=chosen))


def measured_state(estimate: MeterState | None, info: PairInfo) -> MeterState:
    """After loading: what the engine thread measured, judged against the budget now."""
    if info.measured_breakdown is not None:
        held = int(info.measured_bytes.get("process_delta", 0))
        budget = probe_hardware(ram_held_bytes=held)
        return _state(info.measured_breakdown, budget, judge(info.measured_breakdown, budget), "measured")
    # The engine thread could not read llama.cpp's load log: show the growth of the process alone.
    grown = info.measured_bytes.get("process_delta", 0)
    bars = estimate.bars if estimate is not None else ()
    # The meter's own sentence, rendered like the engine's so its seconds get the locale's decimal mark.
    verdict = say(
        QT_TRANSLATE_NOOP("MemoryMeter", "loaded in {seconds:.1f} s; the process grew by {size}").fill(
            seconds=info.load_seconds, size=bytes_words(grown)
        )
    )
    return MeterState(bars, "measured", verdict, "fits", estimate.notes if estimate else ())


class MeterFeed:
    """Keeps the memory meter on the right figures: the chosen pair's estimate, or the loaded pair's measurement.

    Each choice is estimated off the GUI thread; an answer for a choice the
    user has since left is dropped, and one that arrives for the pair already
    loaded keeps the measurement on show. ``loaded_as(choice)`` is the loaded
    pair when ``choice`` is it, else None.
    """

    def __init__(
        self,
        meter: MemoryMeter,
        background: Background,
        current_choice: Callable[[], PairChoice | None],
        loaded_as: Callable[[PairChoice], PairInfo | None],
    ) -> None:
        self._meter, self._background = meter, background
        self._current_choice, self._loaded_as = current_choice, loaded_as
        self._estimate: MeterState | None = None
        self._generation = 0

    def estimate(self, choice: PairChoice | None, settings: GenerationSettings) -> None:
        """Estimate ``choice`` with ``settings`` in the background; the meter shows it when it comes."""
        if choice is None:
            return
        self._generation += 1
        generation = self._generation
        self._background.submit(
            lambda: estimate_state(choice, settings),
            lambda state: self._ready(generation, state),
            lambda exc: self._meter.set_state(
                MeterState(
                    verdict=QCoreApplication.translate("MainWindow", "no estimate: {error}").format(
                        error=say_error(exc)
                    )
                )
            ),
        )

    def loaded(self, info: PairInfo) -> None:
        """A pair has loaded: show what loading it measured."""
        self._meter.set_state(measured_state(self._estimate, info))

    def _ready(self, generation: int, state: MeterState) -> None:
        if generation != self._generation:
            return  # an answer for a choice the user has since changed
        self._estimate = state
        choice = self._current_choice()
        pair = self._loaded_as(choice) if choice is not None else None
        # The loaded pair's estimate arrived after loading finished: keep showing the measurement.
        self._meter.set_state(measured_state(state, pair) if pair is not None else state)
