"""The OpenAI wire format, both ways: request bodies to generation jobs, step events to response objects.

Parsing is strict where a silent guess would surprise a client (a negative
temperature, ``n`` > 1, an unknown role) and lenient where OpenAI itself is
(unknown fields are ignored, ``model`` may name anything: one pair is loaded).
A known field that would change what the reply means and that the engine
does not implement (``functions``, ``logprobs``, ``logit_bias``, penalties OpenAI's way, ...) is a 400 naming
it: a client that relies on it must not get a plain reply as if it had worked.
Every response carries llama-server-shaped ``timings`` (``predicted_n``,
``predicted_per_second``, ``draft_n``, ``draft_n_accepted``...) so dashboards
that read llama-server read Tandem, and a ``tandem`` object with each token's
origin and probabilities, so any client can colour tokens as the window does.
A user message may carry documents as content parts
(:mod:`app.engine.server.content_parts`); they become the message's attachments.
Tools, tool calls and tool results are read by :mod:`app.engine.server.tool_calls`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.attachments.record import Attachment
from app.core.conversation.chat import Message
from app.core.conversation.output_format import OutputFormat, OutputFormatError
from app.core.decoding.events import FinishReason, StepEvent
from app.core.decoding.sampling import (
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

# Fields whose value changes the reply's meaning, with the value that asks for nothing (the
# OpenAI default) and why the engine cannot honour another one. Anything else is a 400 naming it.
_NOT_IMPLEMENTED: dict[str, tuple[tuple[Any, ...], str]] = {
    "functions": ((None, []), "function calls are not implemented by this server yet"),
    "function_call": ((None, "none", "auto"), "function calls are not implemented by this server yet"),
    "logprobs": ((None, False), "log probabilities are not returned (each token's p_target is in 'tandem')"),
    "top_logprobs": ((None, 0), "log probabilities are not returned (each token's p_target is in 'tandem')"),
    "logit_bias": ((None, {}), "logit bias is not implemented"),
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
        self, message: str, status: int = 400, param: str | None = None, kind: str = "invalid_request_error"
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.param = param
        self.kind = kind

    def body(self) -> dict[str, Any]:
        """The error object OpenAI clients parse."""
        return {"error": {"message": self.message, "type": self.kind, "param": self.param, "code": None}}


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


def parse_chat_request(body: Mapping[str, Any], cancelled: Callable[[], bool] | None = None) -> CompletionRequest:
    """``/v1/chat/completions``: messages plus the common fields.

    ``cancelled`` is asked inside each document's reader: true ends the read
    (the client left), and the request is refused.
    """
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list", param="messages")
    parsed = tuple(_message(m, i, cancelled) for i, m in enumerate(messages))
    if parsed[-1].role == "assistant":
        raise RequestError("the last message must come from the user or the system", param="messages")
    try:
        tools = parse_tool_request(body)
    except ToolError as exc:
        raise RequestError(exc.message, param=exc.where) from exc
    request = _common(body, chat=True, messages=parsed, tools=tools)
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
    return _common(body, chat=False, prompt=prompt)


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
    if isinstance(content, list):  # content parts: text, and documents read as attachments
        try:
            content, attachments = read_parts(content, where, role, cancelled)
        except PartError as exc:
            raise RequestError(exc.message, param=exc.where) from exc
    if not isinstance(content, str):
        raise RequestError(f"{where}.content must be a string", param=f"{where}.content")
    return Message(role, content, attachments, tool_calls, tool_call_id)


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
    if body.get("n", 1) not in (1, None):
        raise RequestError("'n' must be 1: the engine generates one reply per request", param="n")
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


def usage(stats: GenerationStats) -> dict[str, Any]:
    """OpenAI's token counts, with the prompt tokens that came from a cache (this pair's or the one on disk)."""
    return {
        "prompt_tokens": stats.prompt_tokens,
        "completion_tokens": stats.emitted,
        "total_tokens": stats.prompt_tokens + stats.emitted,
        "prompt_tokens_details": {"cached_tokens": stats.prompt_reused or 0},
    }


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


@dataclass(slots=True)
class ResponseShape:
    """What every object of one response shares: id, creation time, model, endpoint."""

    chat: bool
    model: str
    id: str = ""
    created: int = 0
    reasoning: ReasoningStream | None = None  # chat replies split into reasoning_content (see reasoning_wire)

    def __post_init__(self) -> None:
        self.id = self.id or new_id(self.chat)
        self.created = self.created or int(time.time())

    def _base(self, obj: str) -> dict[str, Any]:
        return {"id": self.id, "object": obj, "created": self.created, "model": self.model}

    def chunk(self, step: StepEvent, *, first: bool = False) -> dict[str, Any]:
        """One streamed piece: the text of one verify step, with its tokens' origins and draft counts."""
        text = step.text
        if self.chat:
            delta: dict[str, Any] = self.reasoning.delta(step) if self.reasoning else {"content": text}
            if first:
                delta = {"role": "assistant", **delta}
            choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": None}
            out = self._base("chat.completion.chunk")
        else:
            choice = {"index": 0, "text": text, "finish_reason": None}
            out = self._base("text_completion")
        out["choices"] = [choice]
        out["tandem"] = {"tokens": token_origins(step.tokens), "drafted": step.drafted, "accepted": step.accepted}
        return out

    def final_chunk(self, reason: FinishReason, stats: GenerationStats, drafter: str) -> dict[str, Any]:
        """The streamed chunk that says why generation ended, with the reply's timings."""
        if self.chat:
            held = self.reasoning.flush() if self.reasoning else {}  # text held back as a possible marker
            choice: dict[str, Any] = {"index": 0, "delta": held, "finish_reason": finish_reason(reason)}
            out = self._base("chat.completion.chunk")
        else:
            choice = {"index": 0, "text": "", "finish_reason": finish_reason(reason)}
            out = self._base("text_completion")
        out["choices"] = [choice]
        out["timings"] = timings(stats)
        out["tandem"] = {"tokens": [], **tandem_summary(stats, drafter)}
        return out

    def usage_chunk(self, stats: GenerationStats) -> dict[str, Any]:
        """The extra last chunk ``stream_options.include_usage`` asks for."""
        out = self._base("chat.completion.chunk" if self.chat else "text_completion")
        out["choices"] = []
        out["usage"] = usage(stats)
        out["timings"] = timings(stats)
        return out

    def _message_text(self, text: str) -> dict[str, Any]:
        return message_fields(text, self.reasoning.inside) if self.reasoning else {"content": text}

    def complete(
        self, text: str, tokens: Sequence[TokenRecord], reason: FinishReason, stats: GenerationStats, drafter: str
    ) -> dict[str, Any]:
        """The whole reply as one object (``stream: false``)."""
        if self.chat:
            choice: dict[str, Any] = {
                "index": 0,
                "message": {
                    "role": "assistant",
                    **(message_fields(text, self.reasoning.inside) if self.reasoning else {"content": text}),
                },
                "finish_reason": finish_reason(reason),
            }
            out = self._base("chat.completion")
        else:
            choice = {"index": 0, "text": text, "finish_reason": finish_reason(reason), "logprobs": None}
            out = self._base("text_completion")
        out["choices"] = [choice]
        out["usage"] = usage(stats)
        out["timings"] = timings(stats)
        out["tandem"] = {"tokens": token_origins(tokens), **tandem_summary(stats, drafter)}
        return out
