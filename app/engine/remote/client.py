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
import enum
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2

from app.core.chat import Message
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.decoding.sampling import SamplingParams
from app.core.decoding.stats import GenerationStats
from app.core.errors import TandemError
from app.engine.remote.steps import LlamaServerSteps, plain_step, stats_from_vllm, tandem_step

CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 300.0  # a long prompt's prefill on a busy server sends nothing for a while


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


class RemoteError(TandemError):
    """The remote reply failed; ``partial`` holds the text that had arrived and ``stats`` what was counted."""

    def __init__(self, message: str, partial: str = "", stats: GenerationStats | None = None) -> None:
        super().__init__(message)
        self.partial = partial
        self.stats = stats or GenerationStats()


@dataclass(frozen=True, slots=True)
class RemoteModel:
    """One entry of the server's ``/v1/models``; ``entry`` is the whole object as the server sent it."""

    id: str
    owned_by: str = ""
    entry: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


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
    """A server at ``base_url`` (``http://host:port/v1``), with an optional API key."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        model: str | None = None,
        read_timeout_s: float = READ_TIMEOUT_S,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.read_timeout_s = read_timeout_s
        if not self.base_url.endswith("/v1"):
            self.base_url += "/v1"
        self.api_key = api_key
        self.model = model
        self.last = RemoteReply()
        self._cancelled = threading.Event()
        self._socket: socket.socket | None = None  # the open stream's socket, for cancel()

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _timeout(self) -> httpx2.Timeout:
        return httpx2.Timeout(self.read_timeout_s, connect=CONNECT_TIMEOUT_S)

    def list_models(self) -> list[RemoteModel]:
        """The models the server offers."""
        try:
            response = httpx2.get(f"{self.base_url}/models", headers=self._headers(), timeout=self._timeout())
        except httpx2.HTTPError as exc:
            raise RemoteError(_transport_message(self.base_url, exc)) from None
        _raise_for_status(response.status_code, response.text, self.base_url)
        try:
            data = response.json().get("data") or []
            return [RemoteModel(str(m["id"]), str(m.get("owned_by", "")), dict(m)) for m in data]
        except (ValueError, AttributeError, KeyError, TypeError):
            raise RemoteError(f"{self.base_url}/models did not answer with a model list") from None

    def resolve_model(self) -> str:
        """The model to ask for: the one given, else the server's first."""
        if self.model:
            return self.model
        models = self.list_models()
        if not models:
            raise RemoteError(f"{self.base_url} offers no models")
        self.model = models[0].id
        return self.model

    def cancel(self) -> None:
        """Stop the reply being streamed now, from any thread, even while the server sends nothing.

        ``should_stop`` is checked only when a chunk arrives; a server busy with a
        long prompt sends none for minutes, so the socket is shut down under the
        read, which then ends at once and the reply finishes as cancelled.
        """
        self._cancelled.set()
        sock = self._socket
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed: the stream is over anyway
                sock.shutdown(socket.SHUT_RDWR)

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace hook: keep the connection's socket, so cancel() can cut even a wait for headers."""
        if event.endswith("connect_tcp.complete"):
            stream = info.get("return_value")
            self._socket = stream.get_extra_info("socket") if stream is not None else None
            if self._cancelled.is_set() and self._socket is not None:
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
        body: dict[str, Any] = {
            "model": self.resolve_model(),
            "messages": [m.as_dict() for m in messages],
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
        self._cancelled.clear()
        stopping = lambda: self._cancelled.is_set() or should_stop()  # noqa: E731 - one short predicate
        stats = GenerationStats()
        text = ""
        steps = LlamaServerSteps()
        reason = FinishReason.MAX_TOKENS
        started = time.perf_counter()
        first_token_at: float | None = None
        try:
            with (
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
                    _raise_for_status(response.status_code, response.read().decode("utf-8", "replace"), self.base_url)
                stream = _EventStream(response.iter_lines())
                for chunk in stream:
                    if stopping():
                        reason = FinishReason.CANCELLED
                        break
                    if "error" in chunk:
                        raise RemoteError(f"the server reported an error: {_error_text(chunk)}", text, stats)
                    timings = chunk.get("timings")
                    if isinstance(timings, dict):
                        self.last.timings = timings
                        if "draft_n" in timings and self.last.kind is ServerKind.PLAIN:
                            self.last.kind = ServerKind.LLAMA_SERVER
                    metrics = chunk.get("metrics")
                    if isinstance(metrics, dict) and metrics.get("speculative_decoding"):
                        self.last.metrics = metrics
                        self.last.kind = ServerKind.VLLM
                    extension = chunk.get("tandem")
                    for choice in chunk.get("choices") or []:
                        piece = (choice.get("delta") or {}).get("content") or ""
                        if piece:
                            first_token_at = first_token_at or time.perf_counter()
                            text += piece
                            if isinstance(extension, dict) and extension.get("tokens"):
                                self.last.kind = ServerKind.TANDEM
                                events = [tandem_step(extension)]
                            elif isinstance(timings, dict) and timings:
                                events = steps.feed(piece, timings)
                            else:
                                events = [plain_step(piece)]
                            for event in events:
                                stats.record(event)
                                yield event
                        if choice.get("finish_reason"):
                            reason = FinishReason.EOG if choice["finish_reason"] == "stop" else FinishReason.MAX_TOKENS
                if not stream.done and reason is not FinishReason.CANCELLED:
                    raise RemoteError(
                        f"the stream from {self.base_url} ended before the reply did: the partial reply is kept",
                        text,
                        stats,
                    )
        except _CancelledError:
            pass
        except httpx2.HTTPError as exc:
            if not stopping():
                raise RemoteError(_transport_message(self.base_url, exc, bool(text)), text, stats) from None
            reason = FinishReason.CANCELLED  # cancel() shut the socket under the read
        except RemoteError as exc:
            if stopping():  # a stream cut by cancel() reads as broken: it was stopped
                reason = FinishReason.CANCELLED
            elif exc.partial or not text:
                raise
            else:
                raise RemoteError(str(exc), text, stats) from None  # the error, with what had arrived
        finally:
            self._socket = None
        for event in steps.finish():
            stats.record(event)
            yield event
        ended = time.perf_counter()
        stats.prefill_s = (first_token_at or ended) - started
        stats.total_s = ended - (first_token_at or started)
        self._fold_server_stats(stats)
        yield FinishedEvent(reason, text, stats)

    def _fold_server_stats(self, stats: GenerationStats) -> None:
        """Prefer the server's own totals where it sent them; say what it could not tell."""
        timings = self.last.timings
        if timings.get("prompt_n") is not None:
            stats.prompt_tokens = int(timings["prompt_n"])
        if self.last.kind in (ServerKind.LLAMA_SERVER, ServerKind.TANDEM):
            stats.drafted = int(timings.get("draft_n", stats.drafted))
            stats.accepted = int(timings.get("draft_n_accepted", stats.accepted))
            stats.emitted = int(timings.get("predicted_n", stats.emitted))
        elif self.last.kind is ServerKind.VLLM:
            stats_from_vllm(self.last.metrics, stats)
            self.last.note = VLLM_NOTE
        else:
            self.last.note = NO_STATS_NOTE


class _CancelledError(Exception):
    """Internal: the reply was cancelled before its stream began."""


class _EventStream:
    """The JSON objects of an event stream, until ``data: [DONE]`` (``done`` says whether it came)."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self.done = False

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for line in self._lines:
            if not line.startswith("data:"):
                continue  # comments, event names, keep-alives
            data = line[5:].strip()
            if data == "[DONE]":
                self.done = True
                return
            try:
                chunk = json.loads(data)
            except json.JSONDecodeError:
                raise RemoteError(f"the server sent a malformed event: {data[:80]!r}") from None
            if not isinstance(chunk, dict):
                raise RemoteError(f"the server sent an event that is not an object: {data[:80]!r}")
            yield chunk


def _error_text(payload: Any) -> str:
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error or payload)


def _raise_for_status(status: int, text: str, base_url: str) -> None:
    if status < 400:
        return
    try:
        detail = _error_text(json.loads(text))
    except ValueError:
        detail = text.strip()[:200]
    if status in (401, 403):
        raise RemoteError(f"{base_url} refused the API key ({status}): {detail}")
    if status == 404:
        raise RemoteError(f"{base_url} has no such model or route (404): {detail}")
    raise RemoteError(f"{base_url} answered {status}: {detail}")


def _transport_message(base_url: str, exc: httpx2.HTTPError, mid_stream: bool = False) -> str:
    if isinstance(exc, httpx2.ConnectError):
        text = str(exc).lower()
        if "name or service" in text or "nodename" in text or "resolve" in text:
            return f"cannot resolve the server's name in {base_url}"
        return f"cannot connect to {base_url}: is the server running? ({exc})"
    if isinstance(exc, httpx2.TimeoutException):
        return f"{base_url} did not answer in time ({type(exc).__name__})"
    if mid_stream:
        return f"the connection to {base_url} broke off mid-reply ({type(exc).__name__}): the partial reply is kept"
    return f"talking to {base_url} failed: {type(exc).__name__}: {exc}"
