"""What the newer wires share: a reply read into thinking, answer and calls, and named server-sent events.

OpenAI's Responses API (:mod:`app.engine.server.responses_api`) and
Anthropic's Messages API (:mod:`app.engine.server.messages_api`) both give
a reply as a list of typed blocks (a reasoning item or thinking block, a
text, a function call or tool use) and stream each block as it opens,
grows and closes, with the event's name on an ``event:`` line. Both read
the reply the same way, here: the reasoning block split off as chat
completions split it (:class:`.reasoning_wire.ReasoningStream`), and calls
read out of the answer by the same reader (:class:`app.core.tools.reader.CallReader`).
The HTTP side relays any :class:`Wire` (``http._Handler._relay``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.reply.token_record import TokenRecord
from app.core.tools.call_stream import CallPiece, TextPiece, ToolDialect
from app.core.tools.hermes import HERMES
from app.core.tools.reader import CallReader
from app.core.tools.records import ToolCall
from app.engine.server.protocol import RequestError, token_origins
from app.engine.server.reasoning_wire import ReasoningStream, message_fields
from app.engine.server.tool_calls import ToolRequest


@dataclass(frozen=True, slots=True)
class ServerEvent:
    """One server-sent event with its name (``event: name``) and its JSON (``data: {...}``)."""

    name: str
    data: dict[str, Any]

    def encode(self) -> bytes:
        """The event's bytes on the wire, blank line included."""
        payload = json.dumps(self.data, ensure_ascii=False)
        return f"event: {self.name}\ndata: {payload}\n\n".encode()


@dataclass(frozen=True, slots=True)
class Thinking:
    """Reasoning text (the model's block between its reasoning markers)."""

    text: str


@dataclass(frozen=True, slots=True)
class Answer:
    """Answer text known not to be part of a call."""

    text: str


@dataclass(frozen=True, slots=True)
class Call:
    """One whole tool call the reply made."""

    call: ToolCall


ReplyPiece = Thinking | Answer | Call


class PieceReader:
    """A reply's steps (or its whole text) in, :data:`ReplyPiece` s out, in the order the reply wrote them.

    ``reasoning`` false keeps a reasoning block in the answer as the model
    wrote it; ``tools`` None (or a choice of ``none``) reads no calls; ``dialect``
    is how the model writes them (its template's).
    """

    def __init__(
        self, reasoning: bool, inside: bool, tools: ToolRequest | None, dialect: ToolDialect | None = None
    ) -> None:
        self._split = ReasoningStream(inside) if reasoning else None
        self._inside = inside
        self._tools = tools if tools is not None and tools.reads_calls else None
        self._calls: CallReader | None = None
        if self._tools is not None:
            dialect = dialect or HERMES
            self._calls = CallReader(self._tools.bare_names, self._tools.parallel, dialect=dialect)
            self._calls.feed(self._tools.reply_prefix(dialect))  # a steered call: already inside it, nothing to show
        self.calls = 0

    def step(self, step: StepEvent) -> list[ReplyPiece]:
        """The pieces one verify step completes (text that may start a call or a marker waits)."""
        if self._split is None:
            return self._answer(step.text, final=False)
        return self._pieces(self._split.delta(step), final=False)

    def finish(self) -> list[ReplyPiece]:
        """What was still held when the reply ended."""
        held = self._split.flush() if self._split is not None else {}
        return self._pieces(held, final=True)

    def whole(self, text: str) -> list[ReplyPiece]:
        """A finished reply's pieces, read at once (``stream: false``)."""
        fields = message_fields(text, self._inside) if self._split is not None else {"content": text}
        return self._pieces(fields, final=True)

    def _pieces(self, fields: dict[str, Any], final: bool) -> list[ReplyPiece]:
        thinking = fields.get("reasoning_content") or ""
        out: list[ReplyPiece] = [Thinking(thinking)] if thinking else []
        return out + self._answer(fields.get("content") or "", final)

    def _answer(self, text: str, final: bool) -> list[ReplyPiece]:
        if self._calls is None:
            return [Answer(text)] if text else []
        pieces = self._calls.feed(text) if text else []
        if final:
            pieces += self._calls.finish()
        out: list[ReplyPiece] = []
        for piece in pieces:
            if isinstance(piece, TextPiece) and piece.text:
                out.append(Answer(piece.text))
            elif isinstance(piece, CallPiece):
                out.append(Call(piece.call))
        self.calls = self._calls.calls
        return out


def merged(pieces: Sequence[ReplyPiece]) -> list[ReplyPiece]:
    """Neighbouring texts of one kind joined (a whole reply's blocks)."""
    out: list[ReplyPiece] = []
    for piece in pieces:
        last = out[-1] if out else None
        if isinstance(piece, Thinking) and isinstance(last, Thinking):
            out[-1] = Thinking(last.text + piece.text)
        elif isinstance(piece, Answer) and isinstance(last, Answer):
            out[-1] = Answer(last.text + piece.text)
        else:
            out.append(piece)
    return out


class TokenCarrier:
    """Each step's tokens for the ``tandem`` extension, carried until an event can take them.

    A step whose text is held back (a possible marker or call) sends no
    event; its tokens ride on the next one, so every token arrives once.
    """

    def __init__(self) -> None:
        self._tokens: list[TokenRecord] = []
        self._drafted = 0
        self._accepted = 0

    def add(self, step: StepEvent) -> None:
        """Carry ``step``'s tokens and draft counts."""
        self._tokens.extend(step.tokens)
        self._drafted += step.drafted
        self._accepted += step.accepted

    def take(self) -> dict[str, Any]:
        """The carried record (``tokens``, ``drafted``, ``accepted``), and nothing carried after it."""
        out = {"tokens": token_origins(self._tokens), "drafted": self._drafted, "accepted": self._accepted}
        self._tokens, self._drafted, self._accepted = [], 0, 0
        return out


class Wire(Protocol):
    """One response in one API's words: the whole object, or its stream of events."""

    def whole(
        self, finished: FinishedEvent, tokens: Sequence[TokenRecord], steps: Sequence[StepEvent] = ()
    ) -> dict[str, Any]:
        """The reply as one JSON object (``stream: false``); ``steps`` hold its log-probabilities, if asked."""
        ...

    def accepted(
        self, prompt_tokens: int, reasoning_inside: bool, dialect: ToolDialect | None = None
    ) -> list[ServerEvent]:
        """The prompt (``prompt_tokens`` long) was accepted, streamed or not: the events that start a stream."""
        ...

    def step(self, step: StepEvent) -> list[ServerEvent]:
        """The events of one verify step (may be none: text held back, tokens carried to the next event)."""
        ...

    def closing(self, finished: FinishedEvent) -> list[ServerEvent]:
        """The events that end a stream."""
        ...

    def failed(self, error: RequestError) -> list[ServerEvent]:
        """The events that end a stream that broke after it started."""
        ...

    def error_body(self, error: RequestError) -> dict[str, Any]:
        """A refusal's JSON in this API's shape."""
        ...
