"""A remote OpenAI-compatible server as a drafter-and-target pair: llama-server, vLLM, or any other.

:meth:`RemoteEngine.generate` streams ``/v1/chat/completions`` and yields the
same :class:`~app.core.decoding.events.StepEvent` and
:class:`~app.core.decoding.events.FinishedEvent` objects as the local
decoder, so the CLI, the chat view and the store need no second path. What
the events know depends on the server: llama-server's running counters give
verify steps and token origins (:mod:`app.engine.remote.steps`), vLLM's
per-request metrics give the statistics at the end, any other server gives
plain text. Every failure (no connection, a refused key, an unknown model, a
time-out, a stream that breaks or sends garbage) is one
:class:`RemoteError` carrying the partial reply, so nothing that arrived is
lost.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2

from app.core.conversation.chat import Message
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.decoding.sampling import SamplingParams
from app.core.decoding.stats import GenerationStats
from app.core.errors import TandemError
from app.engine.remote.errors import (
    DEADLINE,
    NO_MODEL_LIST_IN_TIME,
    NO_MODELS,
    NOT_A_MODEL_LIST,
    NOT_A_URL,
    PARTIAL_KEPT,
    SERVER_ERROR,
    STREAM_ENDED_EARLY,
    RemoteError,
    raise_for_status,
    said,
    transport_message,
)
from app.engine.remote.limits import MAX_MODELS_BYTES, RemoteLimits
from app.engine.remote.steps import LlamaServerSteps, plain_step, stats_from_vllm, tandem_step
from app.engine.remote.stream import EventStream, StreamLimitError, read_capped, read_error_body
from app.engine.remote.wire import (
    Counters,
    VllmSpec,
    WireError,
    check_base_url,
    parse_models,
)

CONNECT_TIMEOUT_S = 10.0


class ServerKind(enum.StrEnum):
    """What the server turned out to report."""

    TANDEM = "tandem"  # another Tandem's `serve`: every token with its origin
    LLAMA_SERVER = "llama-server"  # running draft counters on every chunk: steps and origins
    VLLM = "vllm"  # a speculative-decoding summary on the usage chunk
    PLAIN = "plain"  # text only


NO_STATS_NOTE = "this server reports no draft statistics: tokens are shown without origins"
VLLM_NOTE = "vLLM reports acceptance per request, not per token: statistics only, no token colours"
# What each kind of server lets Tandem show, as the picker says it on connecting.
KIND_NOTES = {
    ServerKind.TANDEM: "every token arrives with its origin and probabilities: colours and statistics as locally",
    ServerKind.LLAMA_SERVER: (
        "verify steps rebuilt from its running draft counters: tokens coloured per step, acceptance and "
        "tokens/s from its timings, no probabilities (it drafts only when started with -md DRAFT --spec-type ...)"
    ),
    ServerKind.VLLM: VLLM_NOTE + " (started with --per-request-spec-decode-metrics detailed)",
    ServerKind.PLAIN: NO_STATS_NOTE,
}


@dataclass(frozen=True, slots=True)
class RemoteModel:
    """One entry of the server's ``/v1/models``; ``entry`` is the whole object as the server sent it."""

    id: str
    owned_by: str = ""
    entry: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def wire_message(message: Message) -> dict[str, Any]:
    """A message as OpenAI's chat API takes it: its images, where it has any, as ``image_url`` parts with data URLs.

    The server reads them with its own projector (or refuses them); Tandem sends them as they were given.
    """
    shaped: dict[str, Any] = dict(message.as_dict())
    if message.images:
        parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
        parts += [{"type": "image_url", "image_url": {"url": image.data_url()}} for image in message.images]
        shaped["content"] = parts
    return shaped


def kind_of(models: Sequence[RemoteModel]) -> ServerKind:
    """What kind of server answered ``/v1/models``, from the marks each one leaves on its entries.

    The same kinds :meth:`RemoteEngine.generate` learns from the stream: Tandem's
    ``serve`` adds a ``tandem`` object, llama-server owns its models as
    ``llamacpp`` (with a ``meta`` object), vLLM as ``vllm`` (with ``max_model_len``).
    """
    for model in models:
        owner = model.owned_by.lower()
        if owner == "tandem" or "tandem" in model.entry:
            return ServerKind.TANDEM
        if owner == "llamacpp" or isinstance(model.entry.get("meta"), dict):
            return ServerKind.LLAMA_SERVER
        if owner == "vllm" or "max_model_len" in model.entry:
            return ServerKind.VLLM
    return ServerKind.PLAIN


def context_of(model: RemoteModel) -> int:
    """The context size the server states for ``model`` (0 when it does not say)."""
    entry = model.entry
    for value in (
        (entry.get("tandem") or {}).get("n_ctx") if isinstance(entry.get("tandem"), dict) else None,
        entry.get("max_model_len"),
        (entry.get("meta") or {}).get("n_ctx_train") if isinstance(entry.get("meta"), dict) else None,
    ):
        if isinstance(value, int) and value > 0:
            return value
    return 0


@dataclass(slots=True)
class RemoteReply:
    """What the last generation learnt about the server (read after :meth:`RemoteEngine.generate` ends)."""

    kind: ServerKind = ServerKind.PLAIN
    timings: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    note: str = ""


class RemoteEngine:
    """A server at ``base_url`` (``http://host:port/v1``), with an optional API key.

    Every read is bounded by ``limits`` (:class:`~app.engine.remote.limits.RemoteLimits`):
    bytes per event and per reply, an idle time-out and an overall deadline;
    ``limits`` may be replaced between replies (the window's Settings do).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        model: str | None = None,
        read_timeout_s: float | None = None,
        limits: RemoteLimits | None = None,
    ) -> None:
        self.base_url = base_url.strip().rstrip("/")
        if not self.base_url.endswith("/v1"):
            self.base_url += "/v1"
        self.limits = limits or RemoteLimits()
        if read_timeout_s is not None:
            self.limits = dataclasses.replace(self.limits, idle_s=read_timeout_s)
        self.api_key = api_key
        self.model = model
        self.last = RemoteReply()
        self._cancelled = threading.Event()
        self._expired = threading.Event()  # the deadline passed: the watchdog shut the socket
        self._socket: socket.socket | None = None  # the open stream's socket, for cancel()
        self._counters: Counters | None = None  # the last timings of the reply being read
        self._vllm: VllmSpec | None = None  # vLLM's summary of it

    @property
    def read_timeout_s(self) -> float:
        """The idle time-out: the longest the server may send nothing (a long prefill sends nothing)."""
        return self.limits.idle_s

    def _headers(self) -> dict[str, str]:
        headers = {"Accept-Encoding": "identity"}  # the byte caps count what the server sent, not a decompressed bomb
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _timeout(self) -> httpx2.Timeout:
        return httpx2.Timeout(self.limits.idle_s, connect=CONNECT_TIMEOUT_S)

    def _check_url(self) -> None:
        try:
            check_base_url(self.base_url)
        except TandemError as exc:
            raise RemoteError(said(exc)) from None

    def list_models(self) -> list[RemoteModel]:
        """The models the server offers (the whole answer within twice the idle time-out and the response cap)."""
        self._check_url()
        url = f"{self.base_url}/models"
        self._expired.clear()
        try:
            with (
                self._watchdog(2 * self.limits.idle_s),  # a silent server is the read time-out's, a trickle this
                httpx2.Client(timeout=self._timeout()) as client,
                client.stream("GET", url, headers=self._headers(), extensions={"trace": self._trace}) as response,
            ):
                if response.status_code >= 400:
                    raise_for_status(response.status_code, read_error_body(response), self.base_url)
                body = read_capped(response, min(self.limits.max_response_bytes, MAX_MODELS_BYTES), url)
        except httpx2.HTTPError as exc:
            if self._expired.is_set():
                raise RemoteError(NO_MODEL_LIST_IN_TIME.fill(url=url, seconds=2 * self.limits.idle_s)) from None
            raise RemoteError(transport_message(self.base_url, exc)) from None
        except httpx2.InvalidURL as exc:
            raise RemoteError(NOT_A_URL.fill(url=repr(self.base_url), error=str(exc))) from None
        except StreamLimitError as exc:
            raise RemoteError(said(exc)) from None
        finally:
            self._socket = None
        try:
            return [RemoteModel(m.id, m.owned_by, m.entry) for m in parse_models(body, MAX_MODELS_BYTES)]
        except WireError as exc:
            raise RemoteError(NOT_A_MODEL_LIST.fill(url=url, error=str(exc))) from None

    def resolve_model(self) -> str:
        """The model to ask for: the one given, else the server's first."""
        if self.model:
            return self.model
        models = self.list_models()
        if not models:
            raise RemoteError(NO_MODELS.fill(url=self.base_url))
        self.model = models[0].id
        return self.model

    def cancel(self) -> None:
        """Stop the reply being streamed now, from any thread, even while the server sends nothing.

        ``should_stop`` is checked only when bytes arrive; a server busy with a
        long prompt sends none for minutes, so the socket is shut down under the
        read, which then ends at once and the reply finishes as cancelled.
        """
        self._cancelled.set()
        self._shut()

    def _shut(self) -> None:
        sock = self._socket
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed: the stream is over anyway
                sock.shutdown(socket.SHUT_RDWR)

    def _expire(self) -> None:
        """The watchdog's alarm: the deadline passed, cut the read wherever it is."""
        self._expired.set()
        self._shut()

    @contextlib.contextmanager
    def _watchdog(self, seconds: float) -> Iterator[None]:
        """Shut the socket after ``seconds`` however the server paces its bytes (the overall deadline)."""
        timer = threading.Timer(seconds, self._expire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace hook: keep the connection's socket, so cancel() can cut even a wait for headers."""
        if event.endswith("connect_tcp.complete"):
            stream = info.get("return_value")
            self._socket = stream.get_extra_info("socket") if stream is not None else None
            if (self._cancelled.is_set() or self._expired.is_set()) and self._socket is not None:
                with contextlib.suppress(OSError):
                    self._socket.shutdown(socket.SHUT_RDWR)

    def generate(
        self,
        messages: Sequence[Message],
        params: SamplingParams,
        max_tokens: int,
        stop: Sequence[str] = (),
        should_stop: Callable[[], bool] = lambda: False,
    ) -> Iterator[StepEvent | FinishedEvent]:
        """Stream one reply: step events as they arrive, then a finished event."""
        self._cancelled.clear()  # before the model list is asked for: a Stop from then on counts
        self._expired.clear()
        self._check_url()
        body: dict[str, Any] = {
            "model": self.resolve_model(),
            "messages": [wire_message(m) for m in messages],
            "stream": True,
            "stream_options": {"include_usage": True},
            "timings_per_token": True,  # llama-server: running draft counters on every chunk
            "max_tokens": max_tokens,
            "temperature": max(params.temperature, 0.0),
            "top_p": params.top_p,
            "top_k": params.top_k,
            "min_p": params.min_p,
        }
        if params.seed is not None:
            body["seed"] = params.seed
        if params.repeat_penalty != 1.0:
            body["repeat_penalty"] = params.repeat_penalty
        if stop:
            body["stop"] = list(stop)
        self.last = RemoteReply()
        self._expired.clear()
        limits = self.limits
        stopping = lambda: self._cancelled.is_set() or should_stop()  # noqa: E731 - one short predicate
        stats = GenerationStats()
        reply = _Reply()
        steps = LlamaServerSteps()
        reason = FinishReason.MAX_TOKENS
        started = time.perf_counter()
        first_token_at: float | None = None
        try:
            with (
                self._watchdog(limits.deadline_s),
                httpx2.Client(timeout=self._timeout()) as client,
                client.stream(
                    "POST",
                    f"{self.base_url}/chat/completions",
                    json=body,
                    headers=self._headers(),
                    extensions={"trace": self._trace},  # hands over the socket as soon as it is connected
                ) as response,
            ):
                if stopping():  # cancelled before the socket was known
                    reason = FinishReason.CANCELLED
                    raise _CancelledError
                if response.status_code >= 400:
                    raise_for_status(response.status_code, read_error_body(response), self.base_url)
                stream = EventStream(response, limits, stopping, self._expired.is_set)
                for chunk in stream:
                    if stopping():
                        reason = FinishReason.CANCELLED
                        break
                    if chunk.error is not None:
                        raise RemoteError(SERVER_ERROR.fill(error=chunk.error), reply.text, stats)
                    timings = chunk.timings
                    if timings is not None:
                        self.last.timings = timings.raw
                        self._counters = timings
                        if timings.draft_n is not None and self.last.kind is ServerKind.PLAIN:
                            self.last.kind = ServerKind.LLAMA_SERVER
                    if chunk.vllm is not None:
                        self.last.metrics = chunk.vllm.raw
                        self._vllm = chunk.vllm
                        self.last.kind = ServerKind.VLLM
                    extension = chunk.tandem
                    for choice in chunk.choices:
                        piece = choice.content
                        if piece:
                            if reply.tokens >= max_tokens:  # the server keeps sending past the client's own limit
                                raise _TooManyTokensError
                            first_token_at = first_token_at or time.perf_counter()
                            # The step is built first: a piece whose event cannot be read is not kept.
                            if extension is not None and extension.tokens:
                                events, n_tokens = [tandem_step(extension)], len(extension.tokens)
                                self.last.kind = ServerKind.TANDEM
                            elif timings is not None and timings.raw:
                                before = steps.tokens_seen
                                events = steps.feed(piece, timings)
                                n_tokens = steps.tokens_seen - before
                            else:
                                events, n_tokens = [plain_step(piece)], 1
                            reply.add(piece)
                            reply.tokens += n_tokens
                            for event in events:
                                stats.record(event)
                                yield event
                        if choice.finish_reason:
                            reason = FinishReason.from_openai(choice.finish_reason)
                if stopping():
                    reason = FinishReason.CANCELLED
                if not stream.done and reason is not FinishReason.CANCELLED:
                    raise RemoteError(STREAM_ENDED_EARLY.fill(url=self.base_url), reply.text, stats)
        except _CancelledError:
            pass
        except _TooManyTokensError:
            reason = FinishReason.MAX_TOKENS  # the reply is as long as asked for: stop reading
        except (httpx2.HTTPError, httpx2.StreamError) as exc:
            if self._expired.is_set():
                raise self._deadline_error(limits.deadline_s, reply.text, stats) from None
            if not stopping():
                raise RemoteError(transport_message(self.base_url, exc, bool(reply.text)), reply.text, stats) from None
            reason = FinishReason.CANCELLED  # cancel() shut the socket under the read
        except httpx2.InvalidURL as exc:
            raise RemoteError(NOT_A_URL.fill(url=repr(self.base_url), error=str(exc))) from None
        except WireError as exc:
            if not stopping():
                raise RemoteError(PARTIAL_KEPT.fill(error=str(exc)), reply.text, stats) from None
            reason = FinishReason.CANCELLED
        except (RemoteError, StreamLimitError) as exc:
            if stopping():  # a stream cut by cancel() reads as broken: it was stopped
                reason = FinishReason.CANCELLED
            elif self._expired.is_set():
                raise self._deadline_error(limits.deadline_s, reply.text, stats) from None
            elif isinstance(exc, RemoteError) and (exc.partial or not reply.text):
                raise
            else:
                raise RemoteError(said(exc), reply.text, stats) from None  # the error, with what had arrived
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            # The checks in app.engine.remote.wire should leave nothing for here; if a value slips past
            # them the reply still ends as one line with the partial reply, never as a traceback.
            raise RemoteError(f"{WireError.PREFIX}{type(exc).__name__}: {exc}", reply.text, stats) from None
        finally:
            self._socket = None
        for event in steps.finish():
            stats.record(event)
            yield event
        ended = time.perf_counter()
        stats.prefill_s = (first_token_at or ended) - started
        stats.time_to_first_token_s = stats.prefill_s  # what a client sees; the server's prefill is not told apart
        stats.prompt_reused = None  # what the server's cache held, unless its timings say (below)
        stats.total_s = ended - (first_token_at or started)
        self._fold_server_stats(stats)
        yield FinishedEvent(reason, reply.text, stats)

    def _deadline_error(self, deadline_s: float, text: str, stats: GenerationStats) -> RemoteError:
        return RemoteError(DEADLINE.fill(url=self.base_url, seconds=deadline_s), text, stats)

    def _fold_server_stats(self, stats: GenerationStats) -> None:
        """Prefer the server's own totals where it sent them; say what it could not tell."""
        counters, self._counters = self._counters, None
        spec, self._vllm = self._vllm, None
        if counters is not None and counters.prompt_n is not None:
            # llama-server's prompt_n counts the tokens it read; those its cache held are cache_n.
            stats.prompt_tokens = counters.prompt_n + (counters.cache_n or 0)
            stats.prompt_reused = counters.cache_n
        if self.last.kind in (ServerKind.LLAMA_SERVER, ServerKind.TANDEM) and counters is not None:
            stats.drafted = counters.draft_n if counters.draft_n is not None else stats.drafted
            stats.accepted = counters.draft_n_accepted if counters.draft_n_accepted is not None else stats.accepted
            stats.emitted = counters.predicted_n if counters.predicted_n is not None else stats.emitted
        elif self.last.kind is ServerKind.VLLM and spec is not None:
            stats_from_vllm(spec, stats)
            self.last.note = VLLM_NOTE
        elif self.last.kind is ServerKind.PLAIN:
            self.last.note = NO_STATS_NOTE


class _Reply:
    """The reply's text as it arrives (pieces joined once, not a string grown piece by piece) and its tokens."""

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self._text: str | None = ""
        self.tokens = 0

    def add(self, piece: str) -> None:
        self._pieces.append(piece)
        self._text = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self._pieces)
            self._pieces = [self._text]
        return self._text


class _TooManyTokensError(Exception):
    """Internal: the server sent more tokens than ``max_tokens`` asked for."""


class _CancelledError(Exception):
    """Internal: the reply was cancelled before its stream began."""
