"""Anthropic's Messages API (``POST /v1/messages`` and ``/v1/messages/count_tokens``), both ways.

A request's ``system`` (a string or text blocks) and ``messages`` (text,
``tool_use`` and ``tool_result`` blocks) are read into the chat messages
chat completions take: an assistant's ``tool_use`` blocks become its
calls, and a user turn's ``tool_result`` blocks become tool messages before
the rest of that turn. ``tools`` (``input_schema``), ``tool_choice``
(``auto``, ``any``, ``tool``, ``none``), ``stop_sequences``, ``max_tokens``
(required, as Anthropic requires it), ``output_config.format`` (a JSON
schema) and the sampling fields go the same way, so one parser checks them
(:func:`app.engine.server.protocol.parse_chat_request`).
``thinking`` is checked for its shape; the model's reasoning block is split
off as chat completions split it and comes back as ``thinking`` blocks
whenever the model writes one (a local model thinks or not by its template,
not by a budget). Images and documents are refused with a 400 naming them.

:class:`MessagesWire` owns the response's JSON: the ``message`` object, or
its stream (``message_start``, ``content_block_start`` / ``_delta`` /
``_stop`` per block, ``message_delta``, ``message_stop``); each step's tokens
ride on its deltas as ``tandem``. :func:`messages_error` is the error shape
these routes answer with.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.reply.token_record import TokenRecord
from app.core.tools.call_stream import ToolDialect
from app.core.tools.records import ToolCall
from app.engine.server.protocol import (
    CompletionRequest,
    RequestError,
    parse_chat_request,
    tandem_summary,
    timings,
    token_origins,
)
from app.engine.server.wire import Call, PieceReader, ReplyPiece, ServerEvent, Thinking, TokenCarrier, merged

_PASSED = ("model", "temperature", "top_p", "top_k", "min_p", "repeat_penalty", "seed", "stream")
MAX_STOP_SEQUENCES = 16
_THINKING = ("enabled", "disabled", "adaptive", "between_tools")

# Anthropic's error types by HTTP status (its documented table); anything else reads as api_error.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    503: "overloaded_error",
}


def messages_error(error: RequestError) -> dict[str, Any]:
    """``error`` in Anthropic's shape: ``{"type": "error", "error": {"type", "message"}}``."""
    kind = _ERROR_TYPES.get(error.status, "invalid_request_error" if 400 <= error.status < 500 else "api_error")
    return {"type": "error", "error": {"type": kind, "message": error.message}}


# -- requests --------------------------------------------------------------------------------


def parse_messages_request(
    body: Mapping[str, Any], cancelled: Callable[[], bool] | None = None, *, counting: bool = False
) -> CompletionRequest:
    """``/v1/messages`` (``counting``: ``/v1/messages/count_tokens``, which needs no ``max_tokens``)."""
    chat: dict[str, Any] = {name: body[name] for name in _PASSED if name in body}
    max_tokens = body.get("max_tokens")
    if counting:
        chat.pop("stream", None)
    elif max_tokens is None:
        raise RequestError("'max_tokens' is required", param="max_tokens")
    else:
        chat["max_tokens"] = max_tokens
    _check_thinking(body.get("thinking"))
    chat["messages"] = _system(body.get("system")) + _messages(body.get("messages"))
    if body.get("tools"):
        chat["tools"] = _tools(body["tools"])
    choice = body.get("tool_choice")
    if choice is not None:
        chat["tool_choice"], parallel = _tool_choice(choice)
        if parallel is not None:
            chat["parallel_tool_calls"] = parallel
    output_format = _output_format(body.get("output_config"))
    if output_format is not None:
        chat["response_format"] = output_format
    if body.get("mcp_servers"):
        raise RequestError("'mcp_servers' is not supported: give the tools in 'tools'", param="mcp_servers")
    request = parse_chat_request(chat, cancelled)
    stops = _stops(body.get("stop_sequences"))
    return dataclasses.replace(request, stop=stops, count_only=counting)


def _check_thinking(raw: Any) -> None:
    if raw is None:
        return
    if not isinstance(raw, dict) or raw.get("type") not in _THINKING:
        raise RequestError(f"'thinking.type' must be one of {', '.join(_THINKING)}", param="thinking")
    budget = raw.get("budget_tokens")
    if raw["type"] == "enabled" and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 1):
        raise RequestError("'thinking.budget_tokens' must be a positive whole number", param="thinking")


def _output_format(raw: Any) -> dict[str, Any] | None:
    """``output_config.format`` (a JSON schema the reply must follow) as chat completions' ``response_format``."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise RequestError("'output_config' must be an object", param="output_config")
    fmt = raw.get("format")
    if fmt is None:
        return None
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        raise RequestError(
            '\'output_config.format\' must be {"type": "json_schema", "schema": {...}}', param="output_config"
        )
    return {"type": "json_schema", "json_schema": {"name": "output", "schema": fmt.get("schema"), "strict": True}}


def _stops(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if (
        not isinstance(raw, list)
        or len(raw) > MAX_STOP_SEQUENCES
        or not all(isinstance(s, str) and s.strip() for s in raw)
    ):
        raise RequestError(
            f"'stop_sequences' must be a list of up to {MAX_STOP_SEQUENCES} non-blank strings", param="stop_sequences"
        )
    return tuple(raw)


def _system(raw: Any) -> list[dict[str, Any]]:
    if raw is None or raw == "":
        return []
    if isinstance(raw, str):
        return [{"role": "system", "content": raw}]
    if isinstance(raw, list):
        return [{"role": "system", "content": _texts(raw, "system")}]
    raise RequestError("'system' must be a string or a list of text blocks", param="system")


def _texts(blocks: list[Any], where: str) -> str:
    out = []
    for index, block in enumerate(blocks):
        if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            raise RequestError(f"{where}[{index}] must be a text block", param=f"{where}[{index}]")
        out.append(block["text"])
    return "\n\n".join(out) if where == "system" else "".join(out)


def _messages(raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or not raw:
        raise RequestError("'messages' must be a non-empty list", param="messages")
    out: list[dict[str, Any]] = []
    for index, message in enumerate(raw):
        where = f"messages[{index}]"
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise RequestError(f"{where} must be an object with 'role' user or assistant", param=f"{where}.role")
        role, content = message["role"], message.get("content")
        if isinstance(content, str):
            out.append({"role": role, "content": content})
        elif isinstance(content, list):
            out.extend(_blocks(role, content, where))
        else:
            raise RequestError(f"{where}.content must be a string or a list of blocks", param=f"{where}.content")
    return out


def _blocks(role: str, blocks: list[Any], where: str) -> list[dict[str, Any]]:
    """One turn's blocks as chat messages: tool results first (each its own message), then the turn."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for index, block in enumerate(blocks):
        at = f"{where}.content[{index}]"
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind in ("thinking", "redacted_thinking") and role == "assistant":
            continue  # earlier reasoning stays out of the prompt, as chat completions' history leaves it
        elif kind == "tool_use" and role == "assistant":
            arguments = block.get("input")
            if not isinstance(arguments, dict):
                raise RequestError(f"{at}.input must be an object", param=f"{at}.input")
            function = {"name": block.get("name"), "arguments": json.dumps(arguments, ensure_ascii=False)}
            calls.append({"id": block.get("id"), "type": "function", "function": function})
        elif kind == "tool_result" and role == "user":
            results.append({"role": "tool", "tool_call_id": block.get("tool_use_id"), "content": _result(block, at)})
        elif kind in ("image", "document"):
            raise RequestError(f"{at}: this server reads text only; send the {kind} as text", param=at)
        else:
            raise RequestError(f"{at}: a {role} turn cannot hold a block of type {kind!r}"[:300], param=at)
    turn: list[dict[str, Any]] = []
    if texts or calls or not results:
        message: dict[str, Any] = {"role": role, "content": "".join(texts)}
        if calls:
            message["tool_calls"] = calls
        turn.append(message)
    return results + turn


def _result(block: Mapping[str, Any], at: str) -> str:
    content = block.get("content", "")
    if isinstance(content, list):
        content = _texts(content, f"{at}.content")
    if not isinstance(content, str):
        raise RequestError(f"{at}.content must be a string or text blocks", param=f"{at}.content")
    # The model sees that a call failed in the words a tool result can carry: its text.
    return f"Error: {content}" if block.get("is_error") is True else content


def _tools(raw: Any) -> list[Any]:
    if not isinstance(raw, list):
        raise RequestError("'tools' must be a list of tools", param="tools")
    out: list[Any] = []
    for index, tool in enumerate(raw):
        where = f"tools[{index}]"
        if not isinstance(tool, dict) or tool.get("type", "custom") != "custom":
            kind = tool.get("type") if isinstance(tool, dict) else None
            raise RequestError(f"{where}: only custom (client) tools are served here, not {kind!r}"[:300], param=where)
        function: dict[str, Any] = {"name": tool.get("name"), "parameters": tool.get("input_schema", {})}
        if tool.get("description") is not None:
            function["description"] = tool["description"]
        out.append({"type": "function", "function": function})
    return out


def _tool_choice(raw: Any) -> tuple[Any, bool | None]:
    if not isinstance(raw, dict) or raw.get("type") not in ("auto", "any", "tool", "none"):
        raise RequestError("'tool_choice.type' must be auto, any, tool or none", param="tool_choice")
    kind = raw["type"]
    disable = raw.get("disable_parallel_tool_use")
    parallel = None if disable is None else not disable
    if kind == "tool":
        return {"type": "function", "function": {"name": raw.get("name")}}, parallel
    return {"auto": "auto", "any": "required", "none": "none"}[kind], parallel


# -- responses -------------------------------------------------------------------------------


def stop_reason(reason: FinishReason, calls: int) -> str:
    """Anthropic's ``stop_reason`` for how the reply ended."""
    if calls:
        return "tool_use"
    return {
        FinishReason.MAX_TOKENS: "max_tokens",
        FinishReason.CONTEXT_FULL: "model_context_window_exceeded",
        FinishReason.STOP_STRING: "stop_sequence",
    }.get(reason, "end_turn")


def _block(piece: ReplyPiece) -> dict[str, Any]:
    if isinstance(piece, Call):
        return {"type": "tool_use", "id": piece.call.id, "name": piece.call.name, "input": _input(piece.call)}
    if isinstance(piece, Thinking):
        return {"type": "thinking", "thinking": piece.text, "signature": ""}
    return {"type": "text", "text": piece.text}


def _input(call: ToolCall) -> dict[str, Any]:
    return call.parsed_arguments()


class MessagesWire:
    """One reply's JSON in Anthropic's shape: the ``message``, or its stream of events (see :class:`.wire.Wire`)."""

    def __init__(self, request: CompletionRequest, model: str, drafter: str) -> None:
        self.request = request
        self.model = model
        self.drafter = drafter
        self.id = f"msg_{uuid.uuid4().hex[:24]}"
        self._reader = PieceReader(request.reasoning, False, request.tools)
        self._carrier = TokenCarrier()
        self._index = -1  # the open block's index (-1: none yet)
        self._open: str | None = None  # the open block's type ("text" or "thinking"), None when closed
        self._prompt_tokens = 0

    def _stop_sequence(self, reason: FinishReason) -> str | None:
        # Which string matched is not reported by the decoder; with one given, it can only be that one.
        if reason is FinishReason.STOP_STRING and len(self.request.stop) == 1:
            return self.request.stop[0]
        return None

    def _message(self, content: list[dict[str, Any]], stop: str | None, stop_sequence: str | None) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": stop_sequence,
            "usage": {"input_tokens": self._prompt_tokens, "output_tokens": 0},
        }

    def whole(
        self, finished: FinishedEvent, tokens: Sequence[TokenRecord], steps: Sequence[StepEvent] = ()
    ) -> dict[str, Any]:
        """The ``message`` object of a reply that was not streamed (Anthropic's API has no log-probabilities)."""
        stats = finished.stats
        blocks = [_block(p) for p in merged(self._reader.whole(finished.text))]
        reason = stop_reason(finished.reason, self._reader.calls)
        out = self._message(blocks, reason, self._stop_sequence(finished.reason) if reason == "stop_sequence" else None)
        out["usage"] = {
            "input_tokens": stats.prompt_tokens,
            "output_tokens": stats.emitted,
            "cache_read_input_tokens": stats.prompt_reused or 0,
        }
        out["timings"] = timings(stats)
        out["tandem"] = {"tokens": token_origins(tokens), **tandem_summary(stats, self.drafter)}
        return out

    def accepted(
        self, prompt_tokens: int, reasoning_inside: bool, dialect: ToolDialect | None = None
    ) -> list[ServerEvent]:
        """``message_start``."""
        self._prompt_tokens = prompt_tokens
        self._reader = PieceReader(self.request.reasoning, reasoning_inside, self.request.tools, dialect)
        return [ServerEvent("message_start", {"type": "message_start", "message": self._message([], None, None)})]

    def step(self, step: StepEvent) -> list[ServerEvent]:
        """The block events of one verify step; its tokens ride on the last of them as ``tandem``."""
        self._carrier.add(step)
        events = self._pieces(self._reader.step(step))
        if events:
            events[-1].data["tandem"] = self._carrier.take()
        return events

    def _pieces(self, pieces: Sequence[ReplyPiece]) -> list[ServerEvent]:
        out: list[ServerEvent] = []
        for piece in pieces:
            if isinstance(piece, Call):
                out += self._close()
                self._index += 1
                start = {**_block(piece), "input": {}}
                arguments = json.dumps(_input(piece.call), ensure_ascii=False)
                out.append(self._event("content_block_start", content_block=start))
                delta = {"type": "input_json_delta", "partial_json": arguments}
                out.append(self._event("content_block_delta", delta=delta))
                out.append(self._event("content_block_stop"))
                continue
            kind = "thinking" if isinstance(piece, Thinking) else "text"
            if self._open != kind:
                out += self._close()
                self._index += 1
                self._open = kind
                out.append(self._event("content_block_start", content_block=_block(type(piece)(""))))
            delta = (
                {"type": "thinking_delta", "thinking": piece.text}
                if kind == "thinking"
                else {
                    "type": "text_delta",
                    "text": piece.text,
                }
            )
            out.append(self._event("content_block_delta", delta=delta))
        return out

    def _event(self, kind: str, /, **data: Any) -> ServerEvent:
        return ServerEvent(kind, {"type": kind, "index": self._index, **data})

    def _close(self) -> list[ServerEvent]:
        if self._open is None:
            return []
        events = []
        if self._open == "thinking":  # a thinking block ends with its signature; a local model signs nothing
            events.append(self._event("content_block_delta", delta={"type": "signature_delta", "signature": ""}))
        self._open = None
        return [*events, self._event("content_block_stop")]

    def closing(self, finished: FinishedEvent) -> list[ServerEvent]:
        """What was held back, the open block's end, ``message_delta`` and ``message_stop``."""
        events = self._pieces(self._reader.finish()) + self._close()
        stats = finished.stats
        reason = stop_reason(finished.reason, self._reader.calls)
        sequence = self._stop_sequence(finished.reason) if reason == "stop_sequence" else None
        delta = {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": sequence},
            "usage": {"input_tokens": stats.prompt_tokens, "output_tokens": stats.emitted},
            "timings": timings(stats),
            "tandem": {**self._carrier.take(), **tandem_summary(stats, self.drafter)},
        }
        return [*events, ServerEvent("message_delta", delta), ServerEvent("message_stop", {"type": "message_stop"})]

    def failed(self, error: RequestError) -> list[ServerEvent]:
        """The ``error`` event: the stream broke after it started."""
        return [ServerEvent("error", messages_error(error))]

    def error_body(self, error: RequestError) -> dict[str, Any]:
        """Anthropic's error shape."""
        return messages_error(error)
