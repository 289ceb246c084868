"""The one long-lived thread that owns the models.

llama.cpp objects are created, used and freed on this thread only
(:class:`EngineWorker` lives there; :class:`EngineHost` on the GUI thread
sends it jobs through queued signals). The GUI never waits on it: loading and
generation report back through signals, one per verify step carrying the
whole :class:`~app.core.decoding.events.StepEvent` so a five-token step costs one
cross-thread hop, not five. Cancelling sets the job's own ``threading.Event``,
which the decoder polls between steps; a fresh event per job means a stop
meant for one reply can never leak into the next.

In place of a local pair the worker can hold a :class:`~app.engine.remote.client.RemoteEngine`
(the picker's "Server" choice): a reply then streams from the server as the
same step and finished events, so the controller, view and store take no
second path; Stop also shuts the HTTP stream down at once. The same thread
runs the requests of the window's local server between chat replies
(:meth:`EngineHost.run_on_engine`), so both use the one loaded pair.

Slow motion (:meth:`EngineHost.set_step_hold`) makes a local reply wait after
each step it sends, on the job's cancel event: Stop ends the wait at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal, Slot

from app.core.attachments.context import rendered_whole
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.events import FinishReason, StepEvent
from app.core.decoding.sampling import SamplingParams
from app.core.errors import ContextSettingError, OutOfMemoryError, TandemError
from app.core.memory.estimate import MemoryBreakdown
from app.core.reply.plan import DraftPlan
from app.core.tools.call_stream import ToolFormat
from app.engine.llama.prefix_cache import PrefixCache
from app.engine.llama.profile_store import ProfileStore
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.memory.measure import capture_load_log, measured_breakdown, process_memory
from app.engine.remote.client import RemoteEngine, ServerKind
from app.engine.remote.errors import RemoteError
from app.engine.remote.steps import plain_step
from app.engine.reply import ReplyRequest, fit_prompt, plan_remote_reply, plan_reply, run_reply
from app.ui.i18n import QT_TRANSLATE_NOOP
from app.ui.i18n.words import number, say, say_error
from app.ui.threads.jobs import (
    SERVER_DRAFTER_NAMES,
    ComparisonJob,
    GenerateJob,
    PairInfo,
    PromptInfo,
    RemoteInfo,
    RunSummary,
    drafter_label,
)

# How the window's errors name the context-size setting (the CLI says --ctx); translated where it is said.
CONTEXT_SETTING = QT_TRANSLATE_NOOP("EngineWorker", '"Context size" in the Settings tab')
# Marked for translation here; shown through QCoreApplication.translate("EngineWorker", LOCAL_ONLY).
LOCAL_ONLY = QT_TRANSLATE_NOOP(
    "EngineWorker", "a server is chosen: A/B, the sweep and pre-flight measure a local pair; load one in the Model tab"
)
_UNEXPECTED = QT_TRANSLATE_NOOP("EngineWorker", "unexpected {kind}: {error}")


def _describe(exc: BaseException) -> str:
    """A sentence for the user in the window's language; TandemError already is one.

    Rendered here, on the engine thread (QCoreApplication.translate and the default QLocale are
    thread-safe), so the ``error`` signal carries the finished sentence as before.
    """
    if isinstance(exc, ContextSettingError):
        return say(exc.words(QCoreApplication.translate("EngineWorker", CONTEXT_SETTING)))
    if isinstance(exc, TandemError):  # the engine words its own failures, memory included (OutOfMemoryError)
        return say_error(exc)
    if isinstance(exc, MemoryError):  # Python's own allocations outside the engine's loads
        return say(OutOfMemoryError().words())
    return QCoreApplication.translate("EngineWorker", _UNEXPECTED).format(kind=type(exc).__name__, error=say_error(exc))


def _load_measured(config: PairConfig) -> tuple[LoadedPair, MemoryBreakdown | None]:
    """Load the pair and measure what loading took, from llama.cpp's load log and the process's growth."""
    baseline = process_memory()
    with capture_load_log() as log:
        pair = LoadedPair(config)
    try:
        breakdown = measured_breakdown(pair, baseline, log)
    except Exception:  # a failed measurement only costs the meter its "measured" view
        breakdown = None
    return pair, breakdown


def _process_rss() -> int:
    try:
        import psutil

        return int(psutil.Process().memory_info().rss)
    except Exception:  # psutil missing or the platform refuses: the meter just shows the estimate
        return 0


class EngineWorker(QObject):
    """Lives on the engine thread; every slot runs there."""

    loaded = Signal(object)  # PairInfo
    unloaded = Signal()
    prompt_ready = Signal(object)  # PromptInfo
    prompt_counted = Signal(object)  # PromptInfo, for the context gauge
    step = Signal(object)  # StepEvent
    finished = Signal(object)  # FinishedEvent
    error = Signal(str)
    comparison_progress = Signal(str)
    comparison_run = Signal(object)  # RunSummary, one per finished run
    comparison_finished = Signal()  # after an A/B run, a sweep or a pre-flight check
    preflight_progress = Signal(str, float)  # what is being measured, fraction done
    preflight_done = Signal(object)  # app.engine.bench.preflight.PreflightReport
    closed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self._pair: LoadedPair | None = None
        self._remote: RemoteEngine | None = None
        self._remote_info: RemoteInfo | None = None
        # Seconds a local reply waits after each step (slow motion; 0: none). Set from the GUI
        # thread and read here once per step: a float's assignment is atomic, no lock needed.
        self.step_hold = 0.0
        self.prefix_cache: PrefixCache | None = None  # given to each pair loaded (set by the window before any load)
        # Where each pair loaded starts from what the controller learned last time (set by the window).
        self.profile_store: ProfileStore | None = None
        # The call dialect Settings names over the template's (None: the template's); read at each load.
        self.tool_format: ToolFormat | None = None

    # -- slots (queued from the GUI thread) -------------------------------------------

    @Slot(object)
    def load(self, config: PairConfig) -> None:
        """Free the current pair (if any) and load ``config``."""
        self._unload()
        self._remote = None
        try:
            before = _process_rss()
            started = time.perf_counter()
            pair, breakdown = _load_measured(config)
            elapsed = time.perf_counter() - started
            measured = {"process_delta": max(0, _process_rss() - before), "target_file": config.target.stat().st_size}
            if pair.draft is not None and config.draft is not None:
                measured["draft_file"] = config.draft.stat().st_size
        except Exception as exc:  # every failure becomes a message; the thread lives on
            self.error.emit(_describe(exc))
            return
        self._pair = pair
        pair.prefix_cache = self.prefix_cache
        pair.attach_profile_store(self.profile_store)
        if self.tool_format is not None:
            pair.template.tool_format = self.tool_format
        draft_name = config.draft.name if pair.draft is not None and config.draft is not None else None
        info = PairInfo(
            config=config,
            target_name=config.target.name,
            draft_name=draft_name,
            n_ctx=pair.target.n_ctx,
            n_vocab=pair.target.n_vocab,
            load_seconds=elapsed,
            measured_bytes=measured,
            measured_breakdown=breakdown,
            tool_dialect=pair.template.tool_dialect(),
        )
        self.loaded.emit(info)

    @Slot(object, object)
    def use_remote(self, engine: RemoteEngine, info: RemoteInfo) -> None:
        """Free the local pair and answer from ``engine`` instead (``loaded`` carries ``info``)."""
        self._unload()
        self._remote = engine
        self._remote_info = info
        config = PairConfig(Path(info.model), None, DrafterKind.NONE, n_ctx=info.n_ctx)
        self.loaded.emit(PairInfo(config, info.model, None, info.n_ctx, 0, 0.0, remote=info))

    @Slot(object)
    def run_on_engine(self, task: Callable[[LoadedPair | None], None]) -> None:
        """Run ``task`` here with the loaded pair (None without one): the local server's requests."""
        try:
            task(self._pair)
        except Exception as exc:  # a task reports its own failures; this only keeps the thread alive
            self.error.emit(_describe(exc))

    @Slot(object)
    def generate(self, job: GenerateJob) -> None:
        """Stream one reply: ``prompt_ready``, a ``step`` per verify step, then ``finished`` (or ``error``)."""
        if self._remote is not None:
            self._generate_remote(self._remote, job)
            return
        try:
            pair = self._require_pair()
            plan = plan_reply(pair, job.request)
            prompt = plan.prompt
            self.prompt_ready.emit(
                PromptInfo(
                    n_tokens=len(prompt.tokens),
                    dropped_messages=prompt.dropped_messages,
                    n_ctx=prompt.n_ctx,
                    reused=prompt.reused,
                    draft_reused=prompt.draft_reused,
                    plan=plan,
                    attachment_tokens=prompt.attachment_tokens,
                )
            )
            for event in run_reply(pair, plan, job.cancel.is_set):
                if isinstance(event, StepEvent):
                    self.step.emit(event)
                    hold = self.step_hold
                    if hold > 0:
                        job.cancel.wait(hold)  # Stop sets the event: the wait ends at once
                else:
                    self.finished.emit(event)
        except Exception as exc:
            self.error.emit(_describe(exc))

    def _generate_remote(self, engine: RemoteEngine, job: GenerateJob) -> None:
        """One reply from the server; on a failure, what had arrived is shown and kept before the error."""
        shown = ""
        started = False
        info = self._remote_info
        n_ctx = info.n_ctx if info is not None else 0
        kind = info.kind if info is not None else ServerKind.PLAIN
        plan = plan_remote_reply(job.request, engine.model or "", SERVER_DRAFTER_NAMES[kind])

        def begin() -> None:
            nonlocal started
            if not started:  # only once the server answers: a refused connection leaves no empty reply behind
                started = True
                self.prompt_ready.emit(PromptInfo(0, 0, n_ctx, plan=plan))

        try:
            request = job.request
            # Attached files go in whole: the server fits (or refuses) the prompt itself.
            messages = rendered_whole(request.messages)
            events = engine.generate(
                messages, plan.sampling.params, plan.sampling.max_tokens, should_stop=job.cancel.is_set
            )
            for event in events:
                begin()
                if isinstance(event, StepEvent):
                    shown += event.text
                    self.step.emit(event)
                else:
                    self.finished.emit(event)
        except RemoteError as exc:
            # llama-server steps are sent once whole: text of a step still open when the stream broke
            # arrived but was not shown; it joins the reply as target tokens before the error ends it.
            rest = exc.partial[len(shown) :] if exc.partial.startswith(shown) else ""
            if rest:
                begin()
                self.step.emit(plain_step(rest))
            self.error.emit(_describe(exc))
        except Exception as exc:
            self.error.emit(_describe(exc))

    @Slot(object)
    def count_prompt(self, request: ReplyRequest) -> None:
        """Fit the request's prompt as its reply would and report the size (the context gauge); quiet without a pair."""
        if self._pair is None or not request.messages:
            return
        try:
            prompt = fit_prompt(self._pair, request)
            self.prompt_counted.emit(
                PromptInfo(
                    n_tokens=len(prompt.tokens),
                    dropped_messages=prompt.dropped_messages,
                    n_ctx=prompt.n_ctx,
                    attachment_tokens=prompt.attachment_tokens,
                )
            )
        except Exception:  # a count that fails only leaves the gauge as it was; sending reports the error
            return

    @Slot(object)
    def compare(self, job: ComparisonJob) -> None:
        """A/B (target-only, then the drafter) or a temperature sweep; one ``comparison_run`` per run."""
        try:
            pair = self._require_pair()
            # The prompt a reply to the chat would run, its attachments planned in.
            fitted = fit_prompt(pair, job.request)
            runs: list[tuple[DrafterKind, SamplingParams]]
            drafter = pair.config.drafter if pair.config.drafter is not DrafterKind.NONE else DrafterKind.NGRAM
            if job.temperatures:
                runs = [(drafter, _with_temperature(job.params, t)) for t in job.temperatures]
            else:
                # Interleaved (A, B, A, B, ...) so a machine that slows down part-way hits both arms.
                runs = [(k, job.params) for _ in range(max(1, job.repeats)) for k in (DrafterKind.NONE, drafter)]
            for i, (kind, params) in enumerate(runs):
                if job.cancel.is_set():
                    break
                label = (
                    self.tr("target only")
                    if kind is DrafterKind.NONE
                    else self.tr("{kind} drafter").format(kind=drafter_label(kind.value))
                )
                self.comparison_progress.emit(
                    self.tr("run {i} of {n}: {label}, temperature {t}").format(
                        i=i + 1, n=len(runs), label=label, t=number(params.temperature, "g")
                    )
                )
                request = GenerationRequest(
                    prompt_tokens=fitted.tokens, max_tokens=job.max_tokens, should_stop=job.cancel.is_set
                )
                ids: list[int] = []
                policy = DraftPlan.for_chat(kind, job.draft_length, job.adaptive).policy()
                for event in pair.decoder(params, policy, drafter=kind).generate(request):
                    if isinstance(event, StepEvent):
                        ids.extend(event.token_ids)
                    elif event.reason is not FinishReason.CANCELLED:
                        # A stopped run is cut short: its numbers would be drawn as a real data point.
                        self.comparison_run.emit(
                            RunSummary(
                                kind, event.text, tuple(ids), event.reason, event.stats.to_dict(), params.temperature
                            )
                        )
        except Exception as exc:
            self.error.emit(_describe(exc))
        finally:
            self.comparison_finished.emit()

    @Slot(object)
    def preflight(self, params: SamplingParams) -> None:
        """Measure this machine with the loaded pair and seed its adaptive controller with the result."""
        try:
            from app.engine.bench.preflight import apply_to, run_preflight

            pair = self._require_pair()
            report = run_preflight(pair, lambda stage, done: self.preflight_progress.emit(stage, done), params)
            apply_to(pair, report)
            self.preflight_done.emit(report)
        except Exception as exc:
            self.error.emit(_describe(exc))
        finally:
            self.comparison_finished.emit()

    @Slot()
    def unload(self) -> None:
        """Free the models (or forget the server)."""
        self._unload()
        self._remote = None
        self.unloaded.emit()

    @Slot()
    def close(self) -> None:
        """Free the models and end the thread's event loop."""
        self._unload()
        self._remote = None
        self.closed.emit()
        thread = QThread.currentThread()
        if thread is not None:
            thread.quit()

    # -- helpers ------------------------------------------------------------------------

    def _require_pair(self) -> LoadedPair:
        if self._remote is not None:
            raise TandemError(self.tr(LOCAL_ONLY))
        if self._pair is None:
            raise TandemError(self.tr("no model pair is loaded yet: pick one and press Load"))
        return self._pair

    def _unload(self) -> None:
        if self._pair is not None:
            pair, self._pair = self._pair, None
            pair.close()


def _with_temperature(params: SamplingParams, temperature: float) -> SamplingParams:
    return replace(params, temperature=temperature)


class EngineHost(QObject):
    """The GUI-thread side: starts the engine thread and forwards jobs to it."""

    _load = Signal(object)
    _use_remote = Signal(object, object)
    _run = Signal(object)
    _generate = Signal(object)
    _compare = Signal(object)
    _count = Signal(object)
    _preflight = Signal(object)
    _unload = Signal()
    _close = Signal()
    thread: QThread  # type: ignore[assignment]  # the engine thread shadows QObject.thread(); callers and tests read host.thread

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.thread = QThread()
        self.thread.setObjectName("tandem-engine")
        self.worker = EngineWorker()
        self.worker.moveToThread(self.thread)
        self._load.connect(self.worker.load)
        self._use_remote.connect(self.worker.use_remote)
        self._run.connect(self.worker.run_on_engine)
        self._generate.connect(self.worker.generate)
        self._compare.connect(self.worker.compare)
        self._count.connect(self.worker.count_prompt)
        self._preflight.connect(self.worker.preflight)
        self._unload.connect(self.worker.unload)
        self._close.connect(self.worker.close)
        self.thread.start()
        self._active_cancel: threading.Event | None = None
        self._remote: RemoteEngine | None = None  # held here too: Stop cuts its stream from the GUI thread

    def load(self, config: PairConfig) -> None:
        """Load a pair on the engine thread (the current one is freed first)."""
        self._remote = None
        self._load.emit(config)

    def use_remote(self, engine: RemoteEngine, info: RemoteInfo) -> None:
        """Free the local pair and send replies to ``engine`` (answered by ``loaded`` with ``info``)."""
        self._remote = engine
        self._use_remote.emit(engine, info)

    def run_on_engine(self, task: Callable[[LoadedPair | None], None]) -> None:
        """Queue ``task`` for the engine thread, after the jobs already sent (safe from any thread)."""
        self._run.emit(task)

    def generate(self, job: GenerateJob) -> None:
        """Start a reply."""
        self._active_cancel = job.cancel
        self._generate.emit(job)

    def set_step_hold(self, seconds: float) -> None:
        """Slow motion: a local reply waits ``seconds`` after each step (0: no wait); applies from the next step."""
        self.worker.step_hold = max(0.0, seconds)

    def count_prompt(self, request: ReplyRequest) -> None:
        """Ask the engine thread for the size of the request's fitted prompt (answered by ``prompt_counted``)."""
        self._count.emit(request)

    def compare(self, job: ComparisonJob) -> None:
        """Start an A/B run or a temperature sweep."""
        self._active_cancel = job.cancel
        self._compare.emit(job)

    def preflight(self, params: SamplingParams) -> None:
        """Start the pre-flight measurement (it cannot be stopped part-way; it takes seconds to a minute)."""
        self._active_cancel = None
        self._preflight.emit(params)

    def cancel(self) -> None:
        """Stop the running job at its next step boundary (safe to call from the GUI at any time)."""
        if self._active_cancel is not None:
            self._active_cancel.set()
        if self._remote is not None:
            self._remote.cancel()

    def unload(self) -> None:
        """Free the models."""
        self._remote = None
        self._unload.emit()

    def shutdown(self, timeout_ms: int = 60_000) -> bool:
        """Cancel, free the models on their own thread and stop it; True when the thread ended."""
        self.cancel()
        if not self.thread.isRunning():
            return True
        self._close.emit()
        return bool(self.thread.wait(timeout_ms))
