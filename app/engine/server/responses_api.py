"""OpenAI's Responses API (``POST /v1/responses``), both ways.

A request's ``instructions`` and ``input`` (a string, or items: messages,
``function_call`` and ``function_call_output``) are read into the chat
messages chat completions take, and its ``tools``, ``tool_choice``,
``text.format``, ``max_output_tokens`` and sampling fields into theirs, so
one parser checks them all (:func:`app.engine.server.protocol.parse_chat_request`)
and the reply runs exactly as a chat completion would. The server keeps no
responses: ``previous_response_id`` and ``conversation`` are refused with a
400 saying to send the whole conversation, and ``store`` is read as false.

:class:`ResponsesWire` owns the response's JSON: the whole ``response``
object, or the typed events of its stream (``response.created``,
``response.output_item.added``, ``response.output_text.delta``, ...,
``response.completed`` or ``response.incomplete``). Each step's tokens ride
on its events as ``tandem`` (origin and probabilities per token), as chat
completions' chunks carry them.

Log-probabilities are the target's own, as chat completions give them: asked
with ``include: ["message.output_text.logprobs"]`` (``top_logprobs``, 0..20,
says how many alternatives per token; alone it is accepted and adds none, as
OpenAI answers it). They ride on ``response.output_text.delta`` and
``.done`` and on each ``output_text`` part. A verify step's tokens go with
the answer text that step completes; the tokens of a step that completes
only reasoning or a call go with neither.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.decoding.logprobs import MAX_TOP_LOGPROBS, TokenLogprobs
from app.core.reply.token_record import TokenRecord
from app.core.tools.call_stream import ToolDialect
from app.core.tools.records import ToolChoiceKind
from app.engine.server.protocol import (
    CompletionRequest,
    RequestError,
    logprob_entries,
    parse_chat_request,
    tandem_summary,
    timings,
    token_origins,
)
from app.engine.server.wire import (
    Answer,
    Call,
    PieceReader,
    ReplyPiece,
    ServerEvent,
    Thinking,
    TokenCarrier,
    merged,
)

# Fields copied to the chat request unchanged (llama.cpp's sampling extras as chat completions take them).
_PASSED = ("model", "temperature", "top_p", "top_k", "min_p", "repeat_penalty", "seed", "parallel_tool_calls")
_ROLES = ("user", "assistant", "system", "developer")
_TEXT_PARTS = ("input_text", "output_text", "text")
LOGPROBS_INCLUDE = "message.output_text.logprobs"  # the ``include`` value that asks for log-probabilities


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


# -- requests --------------------------------------------------------------------------------


def parse_responses_request(body: Mapping[str, Any], cancelled: Callable[[], bool] | None = None) -> CompletionRequest:
    """``/v1/responses``: the body read into the request chat completions would make of it."""
    for name, why in (
        ("previous_response_id", "this server keeps no responses; send the whole conversation in 'input'"),
        ("conversation", "this server keeps no conversations; send the whole conversation in 'input'"),
    ):
        if body.get(name) is not None:
            raise RequestError(f"'{name}' is not supported: {why}", param=name)
    if body.get("background") not in (None, False):
        raise RequestError("'background' is not supported: the reply comes on this connection", param="background")
    include = body.get("include")
    if include is not None and (not isinstance(include, list) or not all(isinstance(i, str) for i in include)):
        raise RequestError("'include' must be a list of strings", param="include")
    top = body.get("top_logprobs")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= MAX_TOP_LOGPROBS):
        raise RequestError(f"'top_logprobs' must be a whole number from 0 to {MAX_TOP_LOGPROBS}", param="top_logprobs")
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise RequestError("'stream' must be true or false", param="stream")
    chat: dict[str, Any] = {name: body[name] for name in _PASSED if name in body}
    chat["messages"] = _messages(body.get("instructions"), body.get("input"))
    chat["stream"] = stream
    if body.get("max_output_tokens") is not None:
        chat["max_tokens"] = body["max_output_tokens"]
    if body.get("tools") is not None:
        chat["tools"] = _tools(body["tools"])
    if body.get("tool_choice") is not None:
        chat["tool_choice"] = _tool_choice(body["tool_choice"])
    response_format = _text_format(body.get("text"))
    if response_format is not None:
        chat["response_format"] = response_format
    if include is not None and LOGPROBS_INCLUDE in include:
        chat["logprobs"] = True
        chat["top_logprobs"] = top or 0
    return parse_chat_request(chat, cancelled)


def _messages(instructions: Any, raw: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if instructions is not None:
        if not isinstance(instructions, str):
            raise RequestError("'instructions' must be a string", param="instructions")
        if instructions:
            out.append({"role": "system", "content": instructions})
    if isinstance(raw, str):
        if not raw.strip():
            raise RequestError("'input' is empty", param="input")
        return [*out, {"role": "user", "content": raw}]
    if not isinstance(raw, list) or not raw:
        raise RequestError("'input' must be a string or a non-empty list of items", param="input")
    for index, item in enumerate(raw):
        where = f"input[{index}]"
        if not isinstance(item, dict):
            raise RequestError(f"{where} must be an object", param=where)
        kind = item.get("type", "message")
        if kind == "message":
            out.append(_message(item, where))
        elif kind == "function_call":
            call = {
                "id": item.get("call_id"),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments")},
            }
            last = out[-1] if out else None
            if last is not None and last["role"] == "assistant" and "tool_calls" in last:
                last["tool_calls"].append(call)  # the calls of one turn come as neighbouring items
            else:
                out.append({"role": "assistant", "content": "", "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            if isinstance(output, list):
                output = _text_of(output, f"{where}.output")
            if not isinstance(output, str):
                raise RequestError(f"{where}.output must be a string", param=f"{where}.output")
            out.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": output})
        elif kind == "reasoning":
            continue  # earlier reasoning stays out of the prompt, as chat completions' history leaves it
        else:
            raise RequestError(
                f"{where}.type must be message, function_call, function_call_output or reasoning, not {kind!r}"[:300],
                param=f"{where}.type",
            )
    return out


def _message(item: Mapping[str, Any], where: str) -> dict[str, Any]:
    role = item.get("role")
    if role not in _ROLES:
        shown = f"{where}.role must be one of {', '.join(_ROLES)}, not {role!r}"[:300]
        raise RequestError(shown, param=f"{where}.role")
    content = item.get("content")
    if isinstance(content, list):
        parts: list[Any] = []
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind in _TEXT_PARTS and isinstance(part.get("text"), str):
                parts.append({"type": "text", "text": part["text"]})
            elif kind == "refusal" and isinstance(part.get("refusal"), str):
                parts.append({"type": "text", "text": part["refusal"]})
            elif kind == "input_file":
                parts.append({"type": "file", "file": {k: part.get(k) for k in ("file_data", "filename")}})
            else:
                parts.append(part)  # read (and refused with its reason) by the chat parser's content parts
        content = parts
    elif not isinstance(content, str):
        raise RequestError(f"{where}.content must be a string or a list of parts", param=f"{where}.content")
    return {"role": role, "content": content}


def _text_of(parts: list[Any], where: str) -> str:
    texts = []
    for index, part in enumerate(parts):
        if not isinstance(part, dict) or part.get("type") not in _TEXT_PARTS or not isinstance(part.get("text"), str):
            raise RequestError(f"{where}[{index}] must be a text part", param=f"{where}[{index}]")
        texts.append(part["text"])
    return "".join(texts)


def _tools(raw: Any) -> list[Any]:
    if not isinstance(raw, list):
        raise RequestError("'tools' must be a list of function tools", param="tools")
    out: list[Any] = []
    for index, tool in enumerate(raw):
        where = f"tools[{index}]"
        if not isinstance(tool, dict) or tool.get("type") != "function":
            kind = tool.get("type") if isinstance(tool, dict) else None
            raise RequestError(
                f"{where}: only function tools are served here, not {kind!r}"[:300], param=f"{where}.type"
            )
        function = {k: tool[k] for k in ("name", "description", "parameters") if tool.get(k) is not None}
        out.append({"type": "function", "function": function})
    return out


def _tool_choice(raw: Any) -> Any:
    if isinstance(raw, dict) and raw.get("type") == "function":
        return {"type": "function", "function": {"name": raw.get("name")}}
    if isinstance(raw, str):
        return raw
    raise RequestError(
        'tool_choice must be "auto", "none", "required" or {"type": "function", "name": ...}', param="tool_choice"
    )


def _text_format(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise RequestError("'text' must be an object with a 'format'", param="text")
    fmt = raw.get("format")
    if fmt is None:
        return None
    if not isinstance(fmt, dict):
        raise RequestError("'text.format' must be an object", param="text.format")
    if fmt.get("type") == "json_schema":
        schema = {k: fmt[k] for k in ("name", "schema", "strict") if k in fmt}
        return {"type": "json_schema", "json_schema": schema}
    return dict(fmt)


# -- responses -------------------------------------------------------------------------------


def _tool_json(request: CompletionRequest) -> tuple[list[dict[str, Any]], Any]:
    """The request's tools and tool choice as a response object echoes them."""
    if request.tools is None:
        return [], "auto"
    tools = [
        {
            "type": "function",
            "name": t.name,
            "description": t.description or None,
            "parameters": t.parameters,
            "strict": False,
        }
        for t in request.tools.tools
    ]
    choice = request.tools.choice
    shown: Any = {"type": "function", "name": choice.name} if choice.kind is ToolChoiceKind.NAMED else choice.kind.value
    return tools, shown


class ResponsesWire:
    """One response's JSON: the whole object, or its stream of typed events (see :class:`.wire.Wire`)."""

    def __init__(self, request: CompletionRequest, model: str, drafter: str) -> None:
        self.request = request
        self.model = model
        self.drafter = drafter
        self.id = _new_id("resp")
        self.created = int(time.time())
        self._reader = PieceReader(request.reasoning, False, request.tools)
        self._carrier = TokenCarrier()
        self._sequence = 0
        self._output: list[dict[str, Any]] = []  # finished items, in order
        self._open: dict[str, Any] | None = None  # the item being streamed (a message or a reasoning item)
        self._text = ""  # the open item's text so far
        self._logprobs = request.top_logprobs is not None  # whether the request asked for them
        self._pending: list[TokenLogprobs] = []  # tokens not yet sent with answer text
        self._item_logprobs: list[dict[str, Any]] = []  # the open message's log-probabilities so far
        self._opening: tuple[bool, ToolDialect | None] = (False, None)  # what accepted() was told

    # -- the response object -----------------------------------------------------------------

    def _response(self, status: str, finished: FinishedEvent | None = None) -> dict[str, Any]:
        tools, choice = _tool_json(self.request)
        params = self.request.params
        out: dict[str, Any] = {
            "id": self.id,
            "object": "response",
            "created_at": self.created,
            "status": status,
            "model": self.model,
            "output": list(self._output),
            "parallel_tool_calls": self.request.tools.parallel if self.request.tools is not None else True,
            "tool_choice": choice,
            "tools": tools,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_output_tokens": self.request.max_tokens,
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "metadata": {},
            "store": False,
            "usage": None,
        }
        if self._logprobs:
            out["top_logprobs"] = self.request.top_logprobs
        if finished is not None:
            stats = finished.stats
            if status == "incomplete":
                out["incomplete_details"] = {"reason": "max_output_tokens"}
            out["completed_at"] = int(time.time())
            out["usage"] = {
                "input_tokens": stats.prompt_tokens,
                "input_tokens_details": {"cached_tokens": stats.prompt_reused or 0, "cache_write_tokens": 0},
                "output_tokens": stats.emitted,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": stats.prompt_tokens + stats.emitted,
            }
            out["timings"] = timings(stats)
        return out

    @staticmethod
    def _status(reason: FinishReason) -> str:
        return "incomplete" if reason in (FinishReason.MAX_TOKENS, FinishReason.CONTEXT_FULL) else "completed"

    def whole(
        self, finished: FinishedEvent, tokens: Sequence[TokenRecord], steps: Sequence[StepEvent] = ()
    ) -> dict[str, Any]:
        """The ``response`` object of a reply that was not streamed (``steps`` give its log-probabilities)."""
        for piece in merged(self._reader.whole(finished.text)):
            self._output.append(self._item(piece, "completed"))
        if self._logprobs:
            self._whole_logprobs(finished, steps)
        out = self._response(self._status(finished.reason), finished)
        out["tandem"] = {"tokens": token_origins(tokens), **tandem_summary(finished.stats, self.drafter)}
        return out

    def _whole_logprobs(self, finished: FinishedEvent, steps: Sequence[StepEvent]) -> None:
        """Each message's log-probabilities, shared out as its stream would have sent them."""
        replay = ResponsesWire(self.request, self.model, self.drafter)
        replay.accepted(0, *self._opening)
        for step in steps:
            replay.step(step)
        replay.closing(finished)
        streamed = [_message_logprobs(item) for item in replay._output if item["type"] == "message"]
        parts = [item["content"][0] for item in self._output if item["type"] == "message"]
        if len(streamed) != len(parts):  # read apart differently whole: every answer token on the first text
            streamed = [[entry for entries in streamed for entry in entries]] + [[] for _ in parts[1:]]
        for part, entries in zip(parts, streamed, strict=False):
            part["logprobs"] = entries

    def _item(self, piece: ReplyPiece, status: str) -> dict[str, Any]:
        if isinstance(piece, Call):
            call = piece.call
            return {
                "id": _new_id("fc"),
                "type": "function_call",
                "status": status,
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
            }
        if isinstance(piece, Thinking):
            return {
                "id": _new_id("rs"),
                "type": "reasoning",
                "status": status,
                "summary": [],
                "content": [{"type": "reasoning_text", "text": piece.text}],
            }
        return {
            "id": _new_id("msg"),
            "type": "message",
            "status": status,
            "role": "assistant",
            "content": [{"type": "output_text", "text": piece.text, "annotations": [], "logprobs": []}],
        }

    # -- the stream --------------------------------------------------------------------------

    def _event(self, kind: str, /, **data: Any) -> ServerEvent:
        event = ServerEvent(kind, {"type": kind, "sequence_number": self._sequence, **data})
        self._sequence += 1
        return event

    def accepted(
        self, prompt_tokens: int, reasoning_inside: bool, dialect: ToolDialect | None = None
    ) -> list[ServerEvent]:
        """``response.created`` and ``response.in_progress``."""
        self._reader = PieceReader(self.request.reasoning, reasoning_inside, self.request.tools, dialect)
        self._opening = (reasoning_inside, dialect)
        return [
            self._event("response.created", response=self._response("in_progress")),
            self._event("response.in_progress", response=self._response("in_progress")),
        ]

    def step(self, step: StepEvent) -> list[ServerEvent]:
        """The events of one verify step; its tokens ride on the last of them as ``tandem``."""
        self._carrier.add(step)
        self._pending.extend(step.logprobs)
        return self._carry(self._pieces(self._reader.step(step)))

    def _carry(self, events: list[ServerEvent]) -> list[ServerEvent]:
        if events:
            events[-1].data["tandem"] = self._carrier.take()
        return events

    def _take_logprobs(self) -> list[dict[str, Any]]:
        """The carried tokens' log-probabilities, now counted in the open message's."""
        entries = logprob_entries(self._pending) if self._logprobs else []
        self._pending = []
        self._item_logprobs += entries
        return entries

    def _pieces(self, pieces: Sequence[ReplyPiece]) -> list[ServerEvent]:
        out: list[ServerEvent] = []
        if pieces and not any(isinstance(p, Answer) for p in pieces):
            self._pending = []  # the step's tokens made reasoning or a call, not answer text
        for piece in pieces:
            if isinstance(piece, Call):
                out += self._close()
                out += self._call_events(piece)
                continue
            kind = "reasoning" if isinstance(piece, Thinking) else "message"
            if self._open is None or self._open["type"] != kind:
                out += self._close()
                out += self._open_item(piece)
            self._text += piece.text
            ids = {"item_id": self._open_id, "output_index": len(self._output), "content_index": 0}
            name = "response.reasoning_text.delta" if kind == "reasoning" else "response.output_text.delta"
            extra: dict[str, Any] = {} if kind == "reasoning" else {"logprobs": self._take_logprobs()}
            out.append(self._event(name, **ids, delta=piece.text, **extra))
        return out

    @property
    def _open_id(self) -> str:
        assert self._open is not None
        return str(self._open["id"])

    def _open_item(self, piece: Thinking | Answer) -> list[ServerEvent]:
        item = self._item(type(piece)(""), "in_progress")
        part = item["content"][0]
        item["content"] = []
        self._open, self._text, self._item_logprobs = item, "", []
        ids = {"item_id": item["id"], "output_index": len(self._output), "content_index": 0}
        return [
            self._event("response.output_item.added", output_index=len(self._output), item=dict(item)),
            self._event("response.content_part.added", **ids, part=part),
        ]

    def _close(self) -> list[ServerEvent]:
        if self._open is None:
            return []
        item, text = self._open, self._text
        index = len(self._output)
        ids = {"item_id": item["id"], "output_index": index, "content_index": 0}
        done = self._item(Thinking(text) if item["type"] == "reasoning" else Answer(text), "completed")
        done["id"] = item["id"]
        part = done["content"][0]
        if item["type"] == "reasoning":
            events = [self._event("response.reasoning_text.done", **ids, text=text)]
        else:
            part["logprobs"] = list(self._item_logprobs)
            events = [self._event("response.output_text.done", **ids, text=text, logprobs=self._item_logprobs)]
        events.append(self._event("response.content_part.done", **ids, part=part))
        events.append(self._event("response.output_item.done", output_index=index, item=done))
        self._output.append(done)
        self._open, self._text, self._item_logprobs = None, "", []
        return events

    def _call_events(self, piece: Call) -> list[ServerEvent]:
        done = self._item(piece, "completed")
        index = len(self._output)
        added = {**done, "status": "in_progress", "arguments": ""}
        ids = {"item_id": done["id"], "output_index": index}
        self._output.append(done)
        return [
            self._event("response.output_item.added", output_index=index, item=added),
            self._event("response.function_call_arguments.delta", **ids, delta=done["arguments"]),
            self._event("response.function_call_arguments.done", **ids, arguments=done["arguments"], name=done["name"]),
            self._event("response.output_item.done", output_index=index, item=done),
        ]

    def closing(self, finished: FinishedEvent) -> list[ServerEvent]:
        """What was held back, the open item's end, and ``response.completed`` (or ``.incomplete``)."""
        events = self._pieces(self._reader.finish()) + self._close()
        status = self._status(finished.reason)
        response = self._response(status, finished)
        response["tandem"] = {**self._carrier.take(), **tandem_summary(finished.stats, self.drafter)}
        name = "response.incomplete" if status == "incomplete" else "response.completed"
        return [*events, self._event(name, response=response)]

    def failed(self, error: RequestError) -> list[ServerEvent]:
        """``error`` and ``response.failed``: the stream broke after it started."""
        response = self._response("failed")
        response["error"] = {"code": error.kind, "message": error.message}
        return [
            self._event("error", code=error.kind, message=error.message, param=error.param),
            self._event("response.failed", response=response),
        ]

    def error_body(self, error: RequestError) -> dict[str, Any]:
        """OpenAI's error object, as every OpenAI route answers."""
        return error.body()


def _message_logprobs(item: Mapping[str, Any]) -> list[dict[str, Any]]:
    part = item["content"][0] if item["content"] else {}
    return list(part.get("logprobs") or [])
