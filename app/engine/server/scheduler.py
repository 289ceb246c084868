"""One engine, one request at a time: the thread that owns the pair and the queue in front of it.

llama.cpp models must be driven from one thread, and one pair decodes one
reply at a time, so requests wait in a first-come, first-served queue of
bounded length; past the bound a request is refused at once with a hint of
how long to wait (HTTP 429 with Retry-After), rather than piling up behind a
long reply. Each request gets a :class:`Ticket`: the HTTP side reads the
events from it and sets its cancel flag when the client goes away, which the
decoder sees before its next verify step.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.decoding.stats import GenerationStats
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.server.protocol import CompletionRequest, RequestError

DEFAULT_QUEUE_LIMIT = 8  # requests waiting behind the one being generated


@dataclass(frozen=True, slots=True)
class PromptAccepted:
    """The prompt fitted the context and generation starts; ``n_tokens`` is its length."""

    n_tokens: int


TicketItem = PromptAccepted | StepEvent | FinishedEvent | RequestError


class QueueFullError(Exception):
    """Too many requests are waiting; ``retry_after`` is a guess in whole seconds."""

    def __init__(self, waiting: int, retry_after: int) -> None:
        super().__init__(f"{waiting} requests are already waiting for the engine; try again in {retry_after} s")
        self.retry_after = retry_after


@dataclass(slots=True)
class Ticket:
    """One queued request: its events arrive in ``items``; setting ``cancel`` stops it between verify steps."""

    request: CompletionRequest
    items: queue.Queue[TicketItem] = field(default_factory=queue.Queue)
    cancel: threading.Event = field(default_factory=threading.Event)

    def events(self, poll_s: float = 0.05) -> Iterator[TicketItem | None]:
        """The items as they come, and ``None`` every ``poll_s`` while waiting (a chance to check the client)."""
        while True:
            try:
                item = self.items.get(timeout=poll_s)
            except queue.Empty:
                yield None
                continue
            yield item
            if isinstance(item, FinishedEvent | RequestError):
                return


@dataclass(frozen=True, slots=True)
class ServedRecord:
    """What one request did, for the log and the window's counter."""

    started: float
    finished: float
    prompt_tokens: int
    tokens: int
    reason: str


class ServerEngine:
    """The loaded pair on its own thread, serving :class:`Ticket` s in arrival order."""

    def __init__(
        self, config: PairConfig, draft_length: int | None = None, queue_limit: int = DEFAULT_QUEUE_LIMIT
    ) -> None:
        self.config = config
        self.draft_length = draft_length  # None: adaptive drafting
        self.queue_limit = queue_limit
        self.served: list[ServedRecord] = []
        self._jobs: queue.Queue[Ticket | None] = queue.Queue()
        self._lock = threading.Lock()
        self._pending = 0  # submitted and not finished: the one generating plus those waiting
        self._durations: deque[float] = deque(maxlen=8)
        self._ready = threading.Event()
        self._load_error: BaseException | None = None
        self._pair: LoadedPair | None = None
        self._thread = threading.Thread(target=self._run, name="tandem-server-engine", daemon=True)

    # -- lifetime -------------------------------------------------------------------------

    def start(self) -> None:
        """Load the pair on the engine thread; re-raise what loading raised."""
        self._thread.start()
        self._ready.wait()
        if self._load_error is not None:
            raise self._load_error

    def close(self) -> None:
        """Finish the request in progress, drop the waiting ones, free the models."""
        with self._lock:
            pending = []
            while True:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is not None:
                    pending.append(job)
            self._pending = 0
        for job in pending:
            job.items.put(RequestError("the server is shutting down", status=503, kind="server_error"))
        self._jobs.put(None)
        if self._thread.is_alive():
            self._thread.join()

    # -- requests -------------------------------------------------------------------------

    @property
    def model_name(self) -> str:
        """The name clients see in ``/v1/models``: the target file's stem."""
        return self.config.target.stem

    @property
    def waiting(self) -> int:
        """Requests queued behind the one being generated."""
        with self._lock:
            return max(0, self._pending - 1)

    def submit(self, request: CompletionRequest) -> Ticket:
        """Queue ``request``; :class:`QueueFullError` when the queue is at its limit."""
        with self._lock:
            if self._pending > self.queue_limit:  # one generating, queue_limit waiting
                raise QueueFullError(self._pending - 1, self._retry_after())
            self._pending += 1
            ticket = Ticket(request)
            self._jobs.put(ticket)
        return ticket

    def _retry_after(self) -> int:
        """Seconds until a place is likely to free up: the recent mean reply time per waiting request."""
        mean = sum(self._durations) / len(self._durations) if self._durations else 5.0
        return max(1, math.ceil(mean))

    # -- the engine thread ------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._pair = LoadedPair(self.config)
        except BaseException as exc:  # reported to start(), which re-raises it on the caller's thread
            self._load_error = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            while (job := self._jobs.get()) is not None:
                if job.cancel.is_set():  # the client left while waiting
                    job.items.put(FinishedEvent(FinishReason.CANCELLED, "", GenerationStats()))
                else:
                    self._serve(self._pair, job)
                with self._lock:
                    self._pending = max(0, self._pending - 1)
        finally:
            self._pair.close()

    def _serve(self, pair: LoadedPair, job: Ticket) -> None:
        request = job.request
        started = time.perf_counter()
        try:
            if request.chat:
                prompt = pair.template.render(list(request.messages))
            else:
                prompt = pair.target.tokenize(request.prompt, add_special=True, parse_special=True)
            n_ctx = pair.target.n_ctx
            if len(prompt) >= n_ctx:
                job.items.put(
                    RequestError(
                        f"the prompt is {len(prompt)} tokens but the context holds {n_ctx}: "
                        "shorten it or start the server with a larger --ctx",
                        param="messages" if request.chat else "prompt",
                    )
                )
                return
            job.items.put(PromptAccepted(len(prompt)))
            decoder = pair.decoder(request.params, draft_length=self.draft_length)
            generation = GenerationRequest(prompt, request.max_tokens, request.stop, job.cancel.is_set)
            finished: FinishedEvent | None = None
            for event in decoder.generate(generation):
                job.items.put(event)
                if isinstance(event, FinishedEvent):
                    finished = event
        except Exception as exc:  # one bad request must not stop the engine for the next ones
            job.items.put(RequestError(f"generation failed: {exc}", status=500, kind="server_error"))
            return
        ended = time.perf_counter()
        self._durations.append(ended - started)
        if finished is not None:
            stats = finished.stats
            self.served.append(ServedRecord(started, ended, stats.prompt_tokens, stats.emitted, finished.reason.value))
