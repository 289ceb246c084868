"""The OpenAI wire format, both ways: request bodies to generation jobs, step events to response objects.

Parsing is strict where a silent guess would surprise a client (a negative
temperature, a ``logit_bias`` value past 100, an unknown role) and lenient where OpenAI itself is
(unknown fields are ignored, ``model`` may name anything: one pair is loaded).
A known field that would change what the reply means and that the engine
does not implement (``functions``, penalties OpenAI's way, ...) is a 400 naming
it: a client that relies on it must not get a plain reply as if it had worked.
``n`` choices are generated one after another; a conversation whose last
message is the assistant's is continued (a prefill: the reply holds only what
follows it); ``logprobs`` are the target's own (:mod:`app.core.decoding.logprobs`).
Every response carries llama-server-shaped ``timings`` (``predicted_n``,
``predicted_per_second``, ``draft_n``, ``draft_n_accepted``...) so dashboards
that read llama-server read Tandem, and a ``tandem`` object with each token's
origin and probabilities, so any client can colour tokens as the window does.
A user message may carry documents as content parts
(:mod:`app.engine.server.content_parts`); they become the message's attachments.
Tools, tool calls and tool results are read by :mod:`app.engine.server.tool_calls`.
"""

from __future__ import annotations

import dataclasses
import math
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.attachments.record import Attachment
from app.core.conversation.chat import Message
from app.core.conversation.images import ImageInput
from app.core.conversation.output_format import OutputFormat, OutputFormatError
from app.core.decoding.events import FinishReason, StepEvent
from app.core.decoding.logprobs import MAX_TOP_LOGPROBS, TokenLogprobs
from app.core.decoding.sampling import (
    LOGIT_BIAS_LIMIT,
    MAX_TOKENS,
    MIN_P,
    REPEAT_PENALTY,
    SEED,
    TEMPERATURE,
    TOP_K,
    TOP_P,
    SamplingField,
    SamplingParams,
    seed_from_setting,
)
from app.core.decoding.stats import GenerationStats
from app.core.reply.token_record import TokenRecord
from app.core.tools.records import ToolError
from app.engine.server.content_parts import PartError, read_parts
from app.engine.server.reasoning_wire import ReasoningStream, message_fields, wants_split
from app.engine.server.response_format import parse_response_format
from app.engine.server.tool_calls import ToolRequest, message_tool_fields, parse_tool_request

ROLES = ("system", "user", "assistant", "tool")
MAX_STOP_STRINGS = 4  # OpenAI's own limit
MAX_CHOICES = 128  # OpenAI's bound on n
MAX_LEGACY_LOGPROBS = 5  # /v1/completions' integer logprobs, as OpenAI bounds it
CONTEXT_LENGTH_EXCEEDED = "context_length_exceeded"  # OpenAI's error code for a prompt past the context

# Fields whose value changes the reply's meaning, with the value that asks for nothing (the
# OpenAI default) and why the engine cannot honour another one. Anything else is a 400 naming it.
_NOT_IMPLEMENTED: dict[str, tuple[tuple[Any, ...], str]] = {
    "functions": ((None, []), "function calls are not implemented by this server yet"),
    "function_call": ((None, "none", "auto"), "function calls are not implemented by this server yet"),
    "presence_penalty": ((None, 0, 0.0), "use 'repeat_penalty' (llama.cpp's) instead"),
    "frequency_penalty": ((None, 0, 0.0), "use 'repeat_penalty' (llama.cpp's) instead"),
    "best_of": ((None, 1), "the engine generates one reply per request"),
    "echo": ((None, False), "the prompt is not echoed"),
    "suffix": ((None, ""), "insertion (a suffix after the completion) is not implemented"),
    "audio": ((None,), "this server makes text only"),
    "modalities": ((None, ["text"]), "this server makes text only"),
}


class RequestError(Exception):
    """A request the server refuses, with the HTTP status and OpenAI-style error fields."""

    def __init__(
        self,
        message: str,
        status: int = 400,
        param: str | None = None,
        kind: str = "invalid_request_error",
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.param = param
        self.kind = kind
        self.code = code  # OpenAI's machine-readable reason (context_length_exceeded), where it names one

    def body(self) -> dict[str, Any]:
        """The error object OpenAI clients parse."""
        return {"error": {"message": self.message, "type": self.kind, "param": self.param, "code": self.code}}


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    """One request as the engine will run it: chat messages or a raw prompt, and how to sample."""

    chat: bool
    messages: tuple[Message, ...] = ()
    prompt: str = ""
    params: SamplingParams = field(default_factory=SamplingParams)
    max_tokens: int | None = None  # None: up to the context's end, as OpenAI reads a request without a limit
    stop: tuple[str, ...] = ()
    stream: bool = False
    include_usage: bool = False
    timings_per_token: bool = False
    model: str = ""
    output_format: OutputFormat | None = None  # response_format: JSON mode or a schema (None: free text)
    tools: ToolRequest | None = None  # None: the request offers no tools
    reasoning: bool = True  # split a reasoning block into reasoning_content (reasoning_format "none": keep it)
    count_only: bool = False  # count the prompt's tokens and generate nothing (/v1/messages/count_tokens)
    n: int = 1  # choices, generated one after another
    top_logprobs: int | None = None  # log-probabilities with this many alternatives per token (None: not asked)

    @property
    def continues_reply(self) -> bool:
        """The conversation ends with the assistant's message: the reply goes on from its text (a prefill)."""
        return self.chat and bool(self.messages) and self.messages[-1].role == "assistant"

    def for_choice(self, index: int) -> CompletionRequest:
        """The request that generates choice ``index``: a fixed seed moves on by the index, so choices differ."""
        seed = self.params.seed
        if index == 0 or seed is None:
            return self
        moved = (seed + index) % (SEED.maximum + 1)
        return dataclasses.replace(self, params=dataclasses.replace(self.params, seed=moved))


def parse_chat_request(body: Mapping[str, Any], cancelled: Callable[[], bool] | None = None) -> CompletionRequest:
    """``/v1/chat/completions``: messages plus the common fields.

    ``cancelled`` is asked inside each document's reader: true ends the read
    (the client left), and the request is refused.
    """
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list", param="messages")
    parsed = tuple(_message(m, i, cancelled) for i, m in enumerate(messages))
    last = parsed[-1]
    if last.role == "assistant" and (last.tool_calls or last.attachments):
        raise RequestError(
            f"messages[{len(parsed) - 1}] is the assistant's to continue, so it must be text only "
            "(send the results of its tool calls as 'tool' messages after it)",
            param="messages",
        )
    try:
        tools = parse_tool_request(body)
    except ToolError as exc:
        raise RequestError(exc.message, param=exc.where) from exc
    request = _common(body, chat=True, messages=parsed, tools=tools, top_logprobs=_chat_logprobs(body))
    if tools is not None and request.output_format is not None and request.output_format.constrained:
        # The grammar would hold every token to the JSON format, so the model could never write a tool call.
        raise RequestError(
            f"'tools' and 'response_format' ({request.output_format.kind.value}) cannot be combined: "
            "a reply under the format cannot call a tool; send one or the other",
            param="response_format",
        )
    return request


def parse_completion_request(body: Mapping[str, Any]) -> CompletionRequest:
    """``/v1/completions``: one prompt string plus the common fields."""
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
        prompt = prompt[0]
    if not isinstance(prompt, str):
        raise RequestError("'prompt' must be one string", param="prompt")
    if not prompt.strip():
        raise RequestError("'prompt' is empty", param="prompt")
    return _common(body, chat=False, prompt=prompt, top_logprobs=_legacy_logprobs(body))


def _chat_logprobs(body: Mapping[str, Any]) -> int | None:
    """Chat's ``logprobs`` (true or false) and ``top_logprobs`` (0..20, only with ``logprobs``) as one number."""
    asked = body.get("logprobs")
    if asked is not None and not isinstance(asked, bool):
        raise RequestError(f"'logprobs' must be true or false, not {asked!r}", param="logprobs")
    top = body.get("top_logprobs")
    if top is None:
        return 0 if asked else None
    if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= MAX_TOP_LOGPROBS:
        raise RequestError(f"'top_logprobs' must be a whole number from 0 to {MAX_TOP_LOGPROBS}", param="top_logprobs")
    if not asked:
        raise RequestError("'top_logprobs' needs 'logprobs': true", param="top_logprobs")
    return top


def _legacy_logprobs(body: Mapping[str, Any]) -> int | None:
    """``/v1/completions``' ``logprobs``: how many alternatives per token (0..5); absent or null: none."""
    asked = body.get("logprobs")
    if asked is None:
        return None
    if isinstance(asked, bool) or not isinstance(asked, int) or not 0 <= asked <= MAX_LEGACY_LOGPROBS:
        raise RequestError(
            f"'logprobs' must be a whole number from 0 to {MAX_LEGACY_LOGPROBS} on /v1/completions", param="logprobs"
        )
    return asked


def _logit_bias(body: Mapping[str, Any]) -> tuple[tuple[int, float], ...]:
    """``logit_bias``: token ids (as strings, JSON's keys) to values from -100 to 100, sorted by id."""
    raw = body.get("logit_bias")
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise RequestError("'logit_bias' must be an object from token ids to numbers", param="logit_bias")
    found: dict[int, float] = {}
    for key, value in raw.items():
        token = key.strip() if isinstance(key, str) else ""
        if not (token.isascii() and token.isdigit() and len(token) <= 12):
            raise RequestError(f"'logit_bias' keys must be token ids, not {str(key)[:40]!r}", param="logit_bias")
        number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan
        if not (math.isfinite(number) and abs(number) <= LOGIT_BIAS_LIMIT):
            raise RequestError(
                f"'logit_bias' values must be numbers from {-LOGIT_BIAS_LIMIT:g} to {LOGIT_BIAS_LIMIT:g} "
                f"(token {token}: {value!r})",
                param="logit_bias",
            )
        if int(token) in found:
            raise RequestError(f"'logit_bias' names token {int(token)} twice", param="logit_bias")
        found[int(token)] = number
    return tuple(sorted(found.items()))


def _choices(body: Mapping[str, Any]) -> int:
    n = body.get("n")
    if n is None:
        return 1
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_CHOICES:
        raise RequestError(f"'n' must be a whole number from 1 to {MAX_CHOICES}, not {n!r}", param="n")
    return n


def _message(raw: Any, index: int, cancelled: Callable[[], bool] | None = None) -> Message:
    where = f"messages[{index}]"
    if not isinstance(raw, dict):
        raise RequestError(f"{where} must be an object with 'role' and 'content'", param=where)
    role = raw.get("role")
    if role == "developer":  # OpenAI's newer name for the system role
        role = "system"
    if role not in ROLES:
        raise RequestError(f"{where}.role must be one of {', '.join(ROLES)}, not {role!r}", param=f"{where}.role")
    try:
        tool_calls, tool_call_id = message_tool_fields(raw, where, role)
    except ToolError as exc:
        raise RequestError(exc.message, param=exc.where) from exc
    content = raw.get("content")
    if content is None and tool_calls:  # OpenAI's assistant turn that only calls
        content = ""
    attachments: tuple[Attachment, ...] = ()
    images: tuple[ImageInput, ...] = ()
    if isinstance(content, list):  # content parts: text, documents read as attachments, images
        try:
            parts = read_parts(content, where, role, cancelled)
        except PartError as exc:
            raise RequestError(exc.message, param=exc.where) from exc
        content, attachments, images = parts.text, parts.attachments, parts.images
    if not isinstance(content, str):
        raise RequestError(f"{where}.content must be a string", param=f"{where}.content")
    return Message(role, content, attachments, tool_calls, tool_call_id, images)


def _field(body: Mapping[str, Any], spec: SamplingField[Any], name: str | None = None) -> Any:
    """The request's value of one sampling field (absent or null: the field's default); 400 naming it otherwise.

    ``name`` is the wire name when it differs from the field's (``max_completion_tokens``).
    """
    wire = name or spec.name
    value = body.get(wire)
    if value is None:
        return spec.default
    number = spec.coerce(value)
    if number is None:
        raise RequestError(f"'{wire}' must be {spec.range_text()} ({spec.help}), not {value!r}", param=wire)
    return number


def _common(body: Mapping[str, Any], **fields: Any) -> CompletionRequest:
    n = _choices(body)
    for name, (inert, why) in _NOT_IMPLEMENTED.items():
        value = body.get(name)
        # Compared by type as well: True == 1 in Python, and 'logprobs': 1 is not 'logprobs': false.
        if not any(type(value) is type(ok) and value == ok for ok in inert):
            raise RequestError(f"'{name}' is not supported: {why}", param=name)
    stop = body.get("stop")
    stops: tuple[str, ...]
    if stop is None:
        stops = ()
    elif isinstance(stop, str):
        stops = (stop,) if stop else ()
    elif isinstance(stop, list) and all(isinstance(s, str) and s for s in stop) and len(stop) <= MAX_STOP_STRINGS:
        stops = tuple(stop)
    else:
        raise RequestError(f"'stop' must be a string or a list of up to {MAX_STOP_STRINGS} strings", param="stop")
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise RequestError("'stream' must be true or false", param="stream")
    options = body.get("stream_options") or {}
    if not isinstance(options, dict):
        raise RequestError("'stream_options' must be an object", param="stream_options")
    # OpenAI's newer name wins over the older one when both are given; neither: the reply may fill the context.
    max_tokens: int | None = None
    if body.get("max_completion_tokens") is not None:
        max_tokens = _field(body, MAX_TOKENS, "max_completion_tokens")
    elif body.get("max_tokens") is not None:
        max_tokens = _field(body, MAX_TOKENS)
    # Each value was checked against the same SamplingField that SamplingParams checks, so this cannot raise.
    params = SamplingParams(
        temperature=_field(body, TEMPERATURE),
        top_k=_field(body, TOP_K),
        top_p=_field(body, TOP_P),
        min_p=_field(body, MIN_P),
        repeat_penalty=_field(body, REPEAT_PENALTY),
        seed=seed_from_setting(_field(body, SEED)),  # -1, as llama-server reads it: a fresh random seed
        logit_bias=_logit_bias(body),
    )
    model = body.get("model", "")
    try:
        output_format = parse_response_format(body.get("response_format"))
    except OutputFormatError as exc:
        raise RequestError(str(exc), param="response_format") from None
    return CompletionRequest(
        params=params,
        max_tokens=max_tokens,
        stop=stops,
        stream=stream,
        include_usage=bool(options.get("include_usage", False)),
        timings_per_token=bool(body.get("timings_per_token", False)),
        model=model if isinstance(model, str) else "",
        output_format=output_format,
        reasoning=_reasoning(body),
        n=n,
        **fields,
    )


def _reasoning(body: Mapping[str, Any]) -> bool:
    try:
        return wants_split(body.get("reasoning_format"))
    except ValueError as exc:
        raise RequestError(str(exc), param="reasoning_format") from None


# -- responses -------------------------------------------------------------------------------


def new_id(chat: bool) -> str:
    """A response id in OpenAI's style."""
    return f"{'chatcmpl' if chat else 'cmpl'}-{uuid.uuid4().hex[:24]}"


def finish_reason(reason: FinishReason) -> str:
    """Our reason in OpenAI's words (:meth:`FinishReason.to_openai`)."""
    return reason.to_openai()


def timings(stats: GenerationStats) -> dict[str, Any]:
    """llama-server's ``timings`` object, from our statistics (``draft_n`` only when something was drafted)."""
    generation_s = max(stats.total_s - stats.prefill_s, 0.0)
    # As llama-server counts: prompt_n is what this request read, cache_n what a cache held (the pair's own
    # or the prefix cache on disk), so a client adds them for the whole prompt.
    cached = stats.prompt_reused or 0
    read = max(stats.prompt_tokens - cached, 0)
    out: dict[str, Any] = {
        "prompt_n": read,
        "prompt_ms": 1000 * stats.prefill_s,
        "prompt_per_second": read / stats.prefill_s if stats.prefill_s > 0 else 0.0,
        "cache_n": cached,
        "predicted_n": stats.emitted,
        "predicted_ms": 1000 * generation_s,
        "predicted_per_second": stats.emitted / generation_s if generation_s > 0 else 0.0,
    }
    if stats.drafted:
        out["draft_n"] = stats.drafted
        out["draft_n_accepted"] = stats.accepted
    return out


def usage(stats: GenerationStats, *more: GenerationStats) -> dict[str, Any]:
    """OpenAI's token counts, with the prompt tokens that came from a cache (this pair's or the one on disk).

    With ``more`` (the other choices of ``n`` > 1) the completion tokens are
    summed and the prompt counts once, as OpenAI counts it.
    """
    emitted = stats.emitted + sum(s.emitted for s in more)
    return {
        "prompt_tokens": stats.prompt_tokens,
        "completion_tokens": emitted,
        "total_tokens": stats.prompt_tokens + emitted,
        "prompt_tokens_details": {"cached_tokens": stats.prompt_reused or 0},
    }


def merged_choices(replies: Sequence[dict[str, Any]], runs: Sequence[GenerationStats]) -> dict[str, Any]:
    """One response from the whole replies of its choices (in order): every choice, the usage of all.

    ``timings`` and ``tandem`` stay the first choice's; the others' token
    records ride in their own choice's ``tandem``.
    """
    out = dict(replies[0])
    if len(replies) > 1:
        out["choices"] = [c for r in replies for c in r["choices"]]
        for reply, choice in zip(replies[1:], out["choices"][1:], strict=True):
            choice["tandem"] = reply["tandem"]
        out["usage"] = usage(runs[0], *runs[1:])
    return out


def token_origins(tokens: Sequence[TokenRecord]) -> list[dict[str, Any]]:
    """Each token with its origin, probabilities and drafter: ``tandem.tokens``, in the shared token record.

    Without the rejected proposals: the stream carries what the reply is made of.
    """
    return [t.to_json(with_rejected=False) for t in tokens]


def tandem_summary(stats: GenerationStats, drafter: str) -> dict[str, Any]:
    """The reply's speculative statistics in Tandem's own terms."""
    return {
        "drafter": drafter,
        "steps": stats.steps,
        "drafted": stats.drafted,
        "accepted": stats.accepted,
        "acceptance_rate": stats.acceptance_rate,
        "mean_accepted_length": stats.mean_accepted_length,
    }


def _token_text(piece: bytes) -> str:
    return piece.decode("utf-8", errors="replace")


def logprob_entries(entries: Sequence[TokenLogprobs]) -> list[dict[str, Any]]:
    """One object per token (``token``, ``logprob``, ``bytes``, ``top_logprobs``), as chat and Responses write it."""
    return [
        {
            "token": _token_text(e.token.piece),
            "logprob": e.token.logprob,
            "bytes": list(e.token.piece),
            "top_logprobs": [
                {"token": _token_text(t.piece), "logprob": t.logprob, "bytes": list(t.piece)} for t in e.top
            ],
        }
        for e in entries
    ]


def chat_logprobs(entries: Sequence[TokenLogprobs]) -> dict[str, Any]:
    """Chat's ``logprobs`` object: ``content``, one entry per token with its ``top_logprobs``."""
    return {"content": logprob_entries(entries), "refusal": None}


@dataclass(slots=True)
class ResponseShape:
    """What every object of one response shares: id, creation time, model, endpoint; and one choice's own state."""

    chat: bool
    model: str
    id: str = ""
    created: int = 0
    reasoning: ReasoningStream | None = None  # chat replies split into reasoning_content (see reasoning_wire)
    index: int = 0  # the choice this shape writes (``n`` > 1 has several)
    top_logprobs: int | None = None  # each token's log-probability is sent, with this many alternatives
    # /v1/completions' logprobs count characters from the start of the completion
    _text_offset: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        self.id = self.id or new_id(self.chat)
        self.created = self.created or int(time.time())

    def for_choice(self, index: int) -> ResponseShape:
        """The shape of choice ``index`` of the same response (same id and time, its own reasoning split)."""
        return ResponseShape(self.chat, self.model, self.id, self.created, None, index, self.top_logprobs)

    def logprobs(self, entries: Sequence[TokenLogprobs]) -> dict[str, Any] | None:
        """The choice's ``logprobs`` for ``entries`` in this endpoint's shape; None when the request asked none."""
        if self.top_logprobs is None:
            return None
        if self.chat:
            return chat_logprobs(entries)
        offsets = []
        for entry in entries:
            offsets.append(self._text_offset)
            self._text_offset += len(_token_text(entry.token.piece))
        return {
            "tokens": [_token_text(e.token.piece) for e in entries],
            "token_logprobs": [e.token.logprob for e in entries],
            "top_logprobs": [{_token_text(t.piece): t.logprob for t in e.top} for e in entries],
            "text_offset": offsets,
        }

    def _base(self, obj: str) -> dict[str, Any]:
        return {"id": self.id, "object": obj, "created": self.created, "model": self.model}

    def chunk(self, step: StepEvent, *, first: bool = False) -> dict[str, Any]:
        """One streamed piece: the text of one verify step, with its tokens' origins and draft counts."""
        text = step.text
        if self.chat:
            delta: dict[str, Any] = self.reasoning.delta(step) if self.reasoning else {"content": text}
            if first:
                delta = {"role": "assistant", **delta}
            choice: dict[str, Any] = {"index": self.index, "delta": delta, "finish_reason": None}
            out = self._base("chat.completion.chunk")
        else:
            choice = {"index": self.index, "text": text, "finish_reason": None}
            out = self._base("text_completion")
        if self.top_logprobs is not None:
            choice["logprobs"] = self.logprobs(step.logprobs)
        out["choices"] = [choice]
        out["tandem"] = {"tokens": token_origins(step.tokens), "drafted": step.drafted, "accepted": step.accepted}
        return out

    def final_chunk(self, reason: FinishReason, stats: GenerationStats, drafter: str) -> dict[str, Any]:
        """The streamed chunk that says why generation ended, with the reply's timings."""
        if self.chat:
            held = self.reasoning.flush() if self.reasoning else {}  # text held back as a possible marker
            choice: dict[str, Any] = {"index": self.index, "delta": held, "finish_reason": finish_reason(reason)}
            out = self._base("chat.completion.chunk")
        else:
            choice = {"index": self.index, "text": "", "finish_reason": finish_reason(reason)}
            out = self._base("text_completion")
        out["choices"] = [choice]
        out["timings"] = timings(stats)
        out["tandem"] = {"tokens": [], **tandem_summary(stats, drafter)}
        return out

    def usage_chunk(self, runs: Sequence[GenerationStats]) -> dict[str, Any]:
        """The extra last chunk ``stream_options.include_usage`` asks for (the last choice's timings)."""
        out = self._base("chat.completion.chunk" if self.chat else "text_completion")
        out["choices"] = []
        out["usage"] = usage(runs[0], *runs[1:])
        out["timings"] = timings(runs[-1])
        return out

    def _message_text(self, text: str) -> dict[str, Any]:
        return message_fields(text, self.reasoning.inside) if self.reasoning else {"content": text}

    def complete(
        self, text: str, tokens: Sequence[TokenRecord], reason: FinishReason, stats: GenerationStats, drafter: str
    ) -> dict[str, Any]:
        """The whole reply as one object (``stream: false``)."""
        if self.chat:
            choice: dict[str, Any] = {
                "index": self.index,
                "message": {
                    "role": "assistant",
                    **(message_fields(text, self.reasoning.inside) if self.reasoning else {"content": text}),
                },
                "finish_reason": finish_reason(reason),
                "logprobs": None,  # filled by the caller, who holds the reply's steps (see logprobs)
            }
            out = self._base("chat.completion")
        else:
            choice = {"index": self.index, "text": text, "finish_reason": finish_reason(reason), "logprobs": None}
            out = self._base("text_completion")
        out["choices"] = [choice]
        out["usage"] = usage(stats)
        out["timings"] = timings(stats)
        out["tandem"] = {"tokens": token_origins(tokens), **tandem_summary(stats, drafter)}
        return out
