"""Tool calls in ``serve``: the request's tool fields, the steering of a required call, and the reply's calls.

OpenAI's ``tools``, ``tool_choice`` and ``parallel_tool_calls`` become a
:class:`ToolRequest`; assistant messages' ``tool_calls`` and ``tool``
messages' ``tool_call_id`` become fields of the core :class:`Message`. The
model's own chat template renders them (:mod:`app.engine.llama.chat_template`);
a template without a tool format is a 400 before anything runs, never a
reply that silently ignores the tools.

``tool_choice``: ``none`` renders no tools (earlier calls and results in the
conversation still render) and reads no calls out of the reply. ``auto`` reads
calls in the template's dialect (:mod:`app.core.tools.call_stream`), and a whole
reply that is one bare or fenced JSON call of an offered tool
(:mod:`app.core.tools.reader`: what small models write instead). ``required``
and a named function are steered rather than retried: the assistant's turn is
started inside a call in the dialect's own markup (:meth:`ToolDialect.steer`:
``<tool_call>`` and ``{"name":`` for Hermes, and for a named function the name
too), as template text after the generation prompt, so the model's first tokens
are already inside a call. The steering counts as reply text for parsing; if the
model still writes something that is not a call, it comes back as plain content
with the finish reason the generation had.

:class:`ToolRelay` turns the reply into OpenAI's shape: content with the
calls cut out, ``tool_calls`` with the arguments as JSON text, finish reason
``tool_calls``; streamed, each call comes as a delta with its index, id, type
and name, then a delta with its arguments, the way the official client
assembles them. Content that may begin a call is held back until it is known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.core.decoding.events import FinishReason, StepEvent
from app.core.decoding.stats import GenerationStats
from app.core.reply.token_record import TokenRecord
from app.core.tools.call_stream import CallPiece, StreamPiece, TextPiece, ToolDialect, ToolFormat
from app.core.tools.reader import CallReader, read_reply
from app.core.tools.records import ToolCall, ToolChoice, ToolChoiceKind, ToolError, ToolSpec, check_call_id

if TYPE_CHECKING:
    from app.engine.server.protocol import ResponseShape

NO_TOOL_FORMAT = "this model's chat template has no tool format, so it cannot be given tools or tool messages"


@dataclass(frozen=True, slots=True)
class ToolRequest:
    """The tools a request offers and how the model may use them."""

    tools: tuple[ToolSpec, ...]
    choice: ToolChoice = field(default_factory=ToolChoice)
    parallel: bool = True

    @property
    def rendered(self) -> tuple[ToolSpec, ...]:
        """The tools the prompt shows the model (none for ``tool_choice: none``)."""
        return () if self.choice.kind is ToolChoiceKind.NONE else self.tools

    @property
    def reads_calls(self) -> bool:
        """Whether the reply is read for calls (not for ``tool_choice: none``: OpenAI then never returns any)."""
        return self.choice.kind is not ToolChoiceKind.NONE

    @property
    def bare_names(self) -> frozenset[str]:
        """The names a whole reply of bare call JSON may call (:mod:`app.core.tools.reader`); only for ``auto``."""
        return frozenset(t.name for t in self.tools) if self.choice.kind is ToolChoiceKind.AUTO else frozenset()

    def reply_prefix(self, dialect: ToolDialect | None) -> str:
        """The start of the reply that steers a required or named call ("" when the model may choose)."""
        if dialect is None:
            return ""
        if self.choice.kind is ToolChoiceKind.REQUIRED:
            return dialect.steer(None)
        if self.choice.kind is ToolChoiceKind.NAMED:
            return dialect.steer(self.choice.name)
        return ""


def parse_tool_request(body: Mapping[str, Any]) -> ToolRequest | None:
    """The request's tool fields (None: it offers no tools); :class:`ToolError` naming a bad one."""
    raw = body.get("tools")
    choice = ToolChoice.from_openai(body.get("tool_choice"))
    parallel = body.get("parallel_tool_calls")
    if parallel is not None and not isinstance(parallel, bool):
        raise ToolError("'parallel_tool_calls' must be true or false", "parallel_tool_calls")
    if raw is None or raw == []:
        if choice.forces_call:
            raise ToolError("'tool_choice' asks for a tool call but 'tools' offers none", "tool_choice")
        return None
    if not isinstance(raw, list):
        raise ToolError("'tools' must be a list of function tools", "tools")
    tools = tuple(ToolSpec.from_openai(t, f"tools[{i}]") for i, t in enumerate(raw))
    names = [t.name for t in tools]
    if len(set(names)) != len(names):
        raise ToolError("'tools' names a function twice", "tools")
    if choice.kind is ToolChoiceKind.NAMED and choice.name not in names:
        raise ToolError(f"'tool_choice' names {choice.name!r}, which is not in 'tools'", "tool_choice")
    return ToolRequest(tools, choice, True if parallel is None else parallel)


def message_tool_fields(raw: Mapping[str, Any], where: str, role: str) -> tuple[tuple[ToolCall, ...], str]:
    """An assistant message's ``tool_calls`` and a tool message's ``tool_call_id``; :class:`ToolError` when bad."""
    calls: tuple[ToolCall, ...] = ()
    raw_calls = raw.get("tool_calls")
    if raw_calls is not None:
        if role != "assistant":
            raise ToolError(f"{where}.tool_calls is only for assistant messages", f"{where}.tool_calls")
        if not isinstance(raw_calls, list):
            raise ToolError(f"{where}.tool_calls must be a list", f"{where}.tool_calls")
        calls = tuple(ToolCall.from_openai(c, f"{where}.tool_calls[{i}]") for i, c in enumerate(raw_calls))
    call_id = raw.get("tool_call_id")
    if role == "tool":
        if not isinstance(call_id, str) or not call_id:
            raise ToolError(f"{where}.tool_call_id must name the call this result answers", f"{where}.tool_call_id")
        return calls, check_call_id(call_id, f"{where}.tool_call_id")
    return calls, ""


def needs_tool_format(tools: ToolRequest | None, has_tool_messages: bool) -> bool:
    """Whether the prompt will hold tools, calls or results, so the template must have a tool format."""
    return has_tool_messages or (tools is not None and bool(tools.rendered))


def template_refusal(fmt: ToolFormat | None, needed: bool) -> str | None:
    """The 400's message when the request needs a tool format the template lacks (None: fine)."""
    return NO_TOOL_FORMAT if needed and fmt is None else None


class ToolRelay:
    """A reply in OpenAI's tool-call shape, whole or as stream chunks."""

    def __init__(self, tools: ToolRequest, shape: ResponseShape, dialect: ToolDialect) -> None:
        self.tools = tools
        self.shape = shape
        self.dialect = dialect
        self.prefix = tools.reply_prefix(dialect)
        self.parser = CallReader(tools.bare_names, tools.parallel, dialect=dialect)
        self.parser.feed(self.prefix)  # inside a call already: nothing to show

    def step_chunks(self, step: StepEvent, first: bool) -> list[dict[str, Any]]:
        """The step's chunk, its content the text known not to be a call, then a chunk pair per finished call.

        Calls are read in the answer: with ``reasoning_content`` on, the reasoning block is split off first.
        """
        chunk = self.shape.chunk(step, first=first)
        delta = chunk["choices"][0]["delta"]
        pieces = self.parser.feed(delta.get("content") or "")
        delta["content"] = "".join(p.text for p in pieces if isinstance(p, TextPiece))
        return [chunk, *self._call_chunks(pieces)]

    def final_chunks(self, reason: FinishReason, stats: GenerationStats, drafter: str) -> list[dict[str, Any]]:
        """What the parser still held (text, or a call the reply ended in), then the finishing chunk."""
        final = self.shape.final_chunk(reason, stats, drafter)
        held = final["choices"][0]["delta"]  # the answer text the reasoning split still held, read for calls too
        pieces = self.parser.feed(held.pop("content", "") or "") + self.parser.finish()
        out: list[dict[str, Any]] = []
        text = "".join(p.text for p in pieces if isinstance(p, TextPiece))
        if text:
            out.append(self._delta({"content": text}))
        out.extend(self._call_chunks(pieces))
        if self.parser.calls:
            final["choices"][0]["finish_reason"] = "tool_calls"
        return [*out, final]

    def complete(
        self, text: str, tokens: Sequence[TokenRecord], reason: FinishReason, stats: GenerationStats, drafter: str
    ) -> dict[str, Any]:
        """The whole reply (``stream: false``) with its calls."""
        out = self.shape.complete(text, tokens, reason, stats, drafter)
        choice = out["choices"][0]
        message = choice["message"]
        answer = message.get("content") or ""  # the reply, or its answer where reasoning_content took the block
        reply = read_reply(self.prefix + answer, self.tools.bare_names, self.tools.parallel, dialect=self.dialect)
        if reply.calls:
            message["content"] = reply.content or None
            message["tool_calls"] = [c.to_openai() for c in reply.calls]
            choice["finish_reason"] = "tool_calls"
        else:
            message["content"] = reply.content
        return out

    def _call_chunks(self, pieces: Sequence[StreamPiece]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for piece in pieces:
            if isinstance(piece, CallPiece):
                call = piece.call
                name = {"name": call.name, "arguments": ""}
                head = {"index": piece.index, "id": call.id, "type": "function", "function": name}
                arguments = {"index": piece.index, "function": {"arguments": call.arguments}}
                out.append(self._delta({"tool_calls": [head]}))
                out.append(self._delta({"tool_calls": [arguments]}))
        return out

    def _delta(self, delta: dict[str, Any]) -> dict[str, Any]:
        shape = self.shape
        return {
            "id": shape.id,
            "object": "chat.completion.chunk",
            "created": shape.created,
            "model": shape.model,
            "choices": [{"index": shape.index, "delta": delta, "finish_reason": None}],
            "tandem": {"tokens": [], "drafted": 0, "accepted": 0},  # no tokens of its own: they came with a step
        }
