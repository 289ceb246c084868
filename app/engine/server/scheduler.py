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

import dataclasses
import math
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from app.core.conversation.chat_settings import ChatSettings
from app.core.conversation.output_format import OutputFormatError
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.decoding.sampling import MAX_TOKENS
from app.core.decoding.stats import GenerationStats
from app.core.errors import PromptTooLongError
from app.core.reply.plan import PromptPolicy
from app.core.tools.call_stream import ToolDialect
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.llama.vision import ImageError
from app.engine.reply import ReplyPlan, ReplyRequest, fit_prompt, plan_reply, run_reply
from app.engine.reply_attachments import MEMORY_SEARCH, attachment_tokens, distinct_attachments
from app.engine.server.protocol import CONTEXT_LENGTH_EXCEEDED, CompletionRequest, RequestError
from app.engine.server.tool_calls import needs_tool_format, template_refusal

DEFAULT_QUEUE_LIMIT = 8  # requests waiting behind the one being generated


@dataclass(frozen=True, slots=True)
class PromptAccepted:
    """The prompt fitted the context and generation starts; ``n_tokens`` is its length."""

    n_tokens: int
    reasoning_inside: bool = False  # the template opened a reasoning block: the reply starts as thinking
    tool_dialect: ToolDialect | None = None  # how the template writes calls (None: it has no tool format)


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


class RequestQueue:
    """The bounded first-come, first-served queue in front of one engine, and what it served.

    Both engines compose it: ``serve``'s own thread (:class:`ServerEngine`)
    and the window's engine thread (``app.ui.models.server_switch.SharedServerEngine``).
    """

    def __init__(self, limit: int = DEFAULT_QUEUE_LIMIT) -> None:
        self.limit = limit
        self.served: list[ServedRecord] = []
        self._jobs: queue.Queue[Ticket | None] = queue.Queue()
        self._lock = threading.Lock()
        self._pending = 0  # submitted and not finished: the one generating plus those waiting
        self._durations: deque[float] = deque(maxlen=8)

    @property
    def pending(self) -> int:
        """Requests submitted and not finished (the one generating and those waiting)."""
        with self._lock:
            return self._pending

    def submit(self, request: CompletionRequest) -> Ticket:
        """Queue ``request``; :class:`QueueFullError` when the queue is at its limit."""
        with self._lock:
            if self._pending > self.limit:  # one generating, `limit` waiting
                raise QueueFullError(self._pending - 1, self._retry_after())
            self._pending += 1
            ticket = Ticket(request)
            self._jobs.put(ticket)
        return ticket

    def take(self, block: bool = True) -> Ticket | None:
        """The oldest waiting ticket; None when the queue is closed (or, not blocking, empty)."""
        try:
            return self._jobs.get(block)
        except queue.Empty:
            return None

    def done(self) -> None:
        """The ticket taken last has been answered."""
        with self._lock:
            self._pending = max(0, self._pending - 1)

    def close(self) -> None:
        """Refuse every waiting ticket with 503 and wake the taker with the end mark."""
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

    def record(self, record: ServedRecord) -> None:
        """Keep what a request did (and its duration, for the next Retry-After)."""
        self._durations.append(record.finished - record.started)
        self.served.append(record)

    def _retry_after(self) -> int:
        """Seconds until a place is likely to free up: the recent mean reply time per waiting request."""
        mean = sum(self._durations) / len(self._durations) if self._durations else 5.0
        return max(1, math.ceil(mean))


class Engine(Protocol):
    """What the HTTP side needs of the engine behind it."""

    config: PairConfig
    draft_length: int | None  # None: adaptive drafting

    @property
    def model_name(self) -> str:
        """The name clients see in ``/v1/models``."""
        ...

    @property
    def waiting(self) -> int:
        """Requests queued behind the one being generated."""
        ...

    @property
    def served(self) -> list[ServedRecord]:
        """What each finished request did."""
        ...

    def submit(self, request: CompletionRequest) -> Ticket:
        """Queue ``request`` (:class:`QueueFullError` past the limit)."""
        ...

    def prepare(self, request: CompletionRequest, cancel: threading.Event) -> None:
        """Do what ``request`` needs of the model off the engine thread, before it is submitted (may do nothing)."""
        ...

    def close(self) -> None:
        """Stop serving."""
        ...


def reply_request(
    request: CompletionRequest,
    drafter: DrafterKind,
    draft_length: int | None,
    n_ctx: int,
    dialect: ToolDialect | None = None,
) -> ReplyRequest:
    """A request as the reply planner takes it: the request's sampling, the server's drafting.

    ``draft_length`` is ``serve --draft-max`` (None: adaptive; 0: no drafting).
    The client owns its context, so an oversized prompt is refused, never cut.
    A conversation ending with the assistant's message is continued from its text.
    A request without a token limit may fill the context (``n_ctx``, the loaded
    target's); :func:`up_to_the_context` makes that the prompt's room once it is fitted.
    """
    settings = ChatSettings.from_sampling(
        request.params,
        max_tokens=request.max_tokens if request.max_tokens is not None else min(n_ctx, MAX_TOKENS.maximum),
        drafter=DrafterKind.NONE if draft_length == 0 else drafter,
        draft_length=draft_length or ChatSettings().draft_length,
        adaptive=draft_length is None,
    )
    return ReplyRequest(
        settings,
        request.messages,
        PromptPolicy.REFUSE,
        continue_reply=request.continues_reply,
        stop=request.stop,
        raw_prompt=None if request.chat else request.prompt,
        output_format=request.output_format,
        tools=request.tools.rendered if request.tools is not None else (),
        reply_prefix=request.tools.reply_prefix(dialect) if request.tools is not None else "",
        logit_bias=request.params.logit_bias,
        top_logprobs=request.top_logprobs,
    )


def up_to_the_context(plan: ReplyPlan) -> ReplyPlan:
    """``plan`` with the reply's limit at the context's end: the tokens the context holds after the prompt."""
    room = max(1, plan.prompt.n_ctx - len(plan.prompt.tokens))
    return dataclasses.replace(plan, sampling=dataclasses.replace(plan.sampling, max_tokens=room))


def tokenise_attachments(pair: LoadedPair, request: CompletionRequest, cancel: threading.Event) -> None:
    """Tokenise the request's documents with the pair's target into its cache, stopping when ``cancel`` is set.

    Called on a preparation thread: llama.cpp's tokenizer reads the
    vocabulary only, so it runs beside the engine thread's decoding, and the
    prompt planner then finds each document's tokens ready, and a document
    longer than the context already chunked, costed and indexed for search
    (:meth:`~app.engine.reply_attachments.AttachmentTokens.prepare`).
    """
    cache = attachment_tokens(pair)
    for attachment in distinct_attachments(request.messages):
        if cancel.is_set():
            return
        cache.prepare(attachment, MEMORY_SEARCH)


def serve_ticket(pair: LoadedPair, job: Ticket, draft_length: int | None, requests: RequestQueue) -> None:
    """Answer one ticket with ``pair`` on the calling (engine) thread; every outcome ends up in ``job.items``."""
    request = job.request
    if job.cancel.is_set():  # the client left while waiting
        job.items.put(FinishedEvent(FinishReason.CANCELLED, "", GenerationStats()))
        return
    has_tool_messages = any(m.tool_calls or m.role == "tool" for m in request.messages)
    refusal = template_refusal(pair.template.tool_format, needs_tool_format(request.tools, has_tool_messages))
    if refusal is not None:
        job.items.put(RequestError(refusal, param="tools" if request.tools is not None else "messages"))
        return
    if request.count_only:
        _count_prompt(pair, job, draft_length)
        return
    n_vocab = pair.target.n_vocab
    outside = [token for token, _ in request.params.logit_bias if token >= n_vocab]
    if outside:
        job.items.put(
            RequestError(
                f"'logit_bias' names token {outside[0]}, past this model's vocabulary (ids 0 to {n_vocab - 1})",
                param="logit_bias",
            )
        )
        return
    dialect = pair.template.tool_dialect(request.tools.tools if request.tools is not None else ())
    started = time.perf_counter()
    try:
        try:
            ask = reply_request(request, pair.config.drafter, draft_length, pair.target.n_ctx, dialect)
            plan = plan_reply(pair, ask)
            if request.max_tokens is None:  # OpenAI's meaning of no limit: up to the context's end
                plan = up_to_the_context(plan)
        except PromptTooLongError as exc:
            where = "messages" if request.chat else "prompt"
            job.items.put(RequestError(exc.worded("--ctx"), param=where, code=CONTEXT_LENGTH_EXCEEDED))
            return
        except OutputFormatError as exc:  # a schema this vocabulary cannot spell
            job.items.put(RequestError(str(exc), param="response_format"))
            return
        except ImageError as exc:  # no projector, or an image it cannot read
            job.items.put(RequestError(str(exc), param="messages"))
            return
        job.items.put(PromptAccepted(len(plan.prompt.tokens), plan.prompt.reasoning_inside, dialect))
        finished: FinishedEvent | None = None
        for event in run_reply(pair, plan, job.cancel.is_set):
            job.items.put(event)
            if isinstance(event, FinishedEvent):
                finished = event
    except Exception as exc:  # one bad request must not stop the engine for the next ones
        job.items.put(RequestError(f"generation failed: {exc}", status=500, kind="server_error"))
        return
    if finished is not None:
        stats = finished.stats
        ended = time.perf_counter()
        requests.record(ServedRecord(started, ended, stats.prompt_tokens, stats.emitted, finished.reason.value))


def _count_prompt(pair: LoadedPair, job: Ticket, draft_length: int | None) -> None:
    """Answer a ticket that only counts: the prompt fitted as a reply would see it, its length, and no reply."""
    try:
        tools = job.request.tools.tools if job.request.tools is not None else ()
        ask = reply_request(
            job.request, pair.config.drafter, draft_length, pair.target.n_ctx, pair.template.tool_dialect(tools)
        )
        prompt = fit_prompt(pair, ask)
    except PromptTooLongError as exc:
        job.items.put(RequestError(exc.worded("--ctx"), param="messages", code=CONTEXT_LENGTH_EXCEEDED))
        return
    except ImageError as exc:
        job.items.put(RequestError(str(exc), param="messages"))
        return
    except Exception as exc:  # one bad request must not stop the engine for the next ones
        job.items.put(RequestError(f"counting the prompt failed: {exc}", status=500, kind="server_error"))
        return
    job.items.put(PromptAccepted(len(prompt.tokens), prompt.reasoning_inside))
    job.items.put(FinishedEvent(FinishReason.EOG, "", GenerationStats(prompt_tokens=len(prompt.tokens))))


class ServerEngine:
    """``serve``'s engine: the loaded pair on its own thread, serving :class:`Ticket` s in arrival order."""

    def __init__(
        self,
        config: PairConfig,
        draft_length: int | None = None,
        queue_limit: int = DEFAULT_QUEUE_LIMIT,
        on_load: Callable[[LoadedPair], None] | None = None,
    ) -> None:
        self.config = config
        # Run on the engine thread once the pair has loaded, before any request: `serve` attaches the
        # on-disk prefix cache and learned costs there, as `chat` does.
        self.on_load = on_load
        self.draft_length = draft_length  # None: adaptive drafting
        self.requests = RequestQueue(queue_limit)
        self._ready = threading.Event()
        self._load_error: BaseException | None = None
        self._pair: LoadedPair | None = None  # for the preparation threads, until the engine frees it
        self._pair_users = 0  # preparations using it now: the engine waits for them before freeing it
        self._pair_free = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="tandem-server-engine", daemon=True)

    @property
    def queue_limit(self) -> int:
        """Requests that may wait behind the one being generated."""
        return self.requests.limit

    @property
    def served(self) -> list[ServedRecord]:
        """What each finished request did."""
        return self.requests.served

    def start(self) -> None:
        """Load the pair on the engine thread; re-raise what loading raised."""
        self._thread.start()
        self._ready.wait()
        if self._load_error is not None:
            raise self._load_error

    def close(self) -> None:
        """Finish the request in progress, drop the waiting ones, free the models."""
        self.requests.close()
        if self._thread.is_alive():
            self._thread.join()

    @property
    def model_name(self) -> str:
        """The name clients see in ``/v1/models``: the target file's stem."""
        return self.config.target.stem

    @property
    def waiting(self) -> int:
        """Requests queued behind the one being generated."""
        return max(0, self.requests.pending - 1)

    def submit(self, request: CompletionRequest) -> Ticket:
        """Queue ``request``; :class:`QueueFullError` when the queue is at its limit."""
        return self.requests.submit(request)

    def prepare(self, request: CompletionRequest, cancel: threading.Event) -> None:
        """Tokenise the request's documents off the engine thread (see :func:`tokenise_attachments`)."""
        if not any(m.attachments for m in request.messages):
            return
        with self._pair_free:
            pair = self._pair
            if pair is None:
                return
            self._pair_users += 1
        try:
            tokenise_attachments(pair, request, cancel)
        finally:
            with self._pair_free:
                self._pair_users -= 1
                self._pair_free.notify_all()

    def _run(self) -> None:
        try:
            pair = LoadedPair(self.config)
            if self.on_load is not None:
                try:
                    self.on_load(pair)
                except BaseException:
                    pair.close()
                    raise
        except BaseException as exc:  # reported to start(), which re-raises it on the caller's thread
            self._load_error = exc
            self._ready.set()
            return
        self._pair = pair
        self._ready.set()
        try:
            while (job := self.requests.take()) is not None:
                try:
                    serve_ticket(pair, job, self.draft_length, self.requests)
                finally:
                    self.requests.done()
        finally:
            with self._pair_free:
                self._pair = None
                self._pair_free.wait_for(lambda: self._pair_users == 0)
            pair.close()
