"""Reading tool calls out of a reply, whole or as it streams, for any dialect.

A :class:`ToolDialect` knows how one family of chat templates asks the model to
write a call: the strings that may open a call (``openers``), the texts of its
markup's tokens (``markers``) and how to read one call block from the text
that starts with an opener (``read_block``).
:class:`CallStream` does the rest the same way for every dialect: it passes
text through at once, holds back anything that may be the start of an
opener, hands a block to the dialect until the dialect can say what it is,
and turns it into a call or back into plain text. :func:`parse_reply` is the
same stream over a whole reply, so a streamed reply and a plain one always agree.

Decided here, on purpose:

- A block the dialect does not read as a call stays in the reply as plain
  content, markup included. Nothing the model wrote is dropped, and a client
  never receives a call whose arguments are not a JSON object.
- Whitespace right before a call, between calls, or at the end of a reply with
  calls, is not content.
- With ``parallel`` off only the first call is kept; later calls are dropped
  (the client asked for at most one).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.core.tools.records import NAME_PATTERN, ToolCall, new_call_id


class ToolFormat(enum.StrEnum):
    """How a chat template asks the model to write a call (the dialect's name in settings and options)."""

    HERMES = "hermes"  # <tool_call>{"name": ..., "arguments": ...}</tool_call> (Qwen 2.5, Qwen3, Hermes 2/3)
    XML = "xml"  # <tool_call><function=name><parameter=x>v</parameter></function></tool_call> (Qwen3-Coder)
    LLAMA3 = "llama3"  # {"name": ..., "parameters": {...}}, maybe after <|python_tag|> (Llama 3.1-3.3)
    MISTRAL = "mistral"  # [TOOL_CALLS][{...}] or [TOOL_CALLS]name[ARGS]{...} (Mistral, Mistral Small 3.2)
    HARMONY = "harmony"  # <|channel|>commentary to=functions.name ...<|message|>{...}<|call|> (gpt-oss)


@dataclass(frozen=True, slots=True)
class CallBody:
    """A call as a dialect reads it, before it has an id: the tool's name and its arguments as an object."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Block:
    """What a dialect read at the start of a text: ``size`` characters, and their calls (None: plain text)."""

    size: int
    calls: tuple[CallBody, ...] | None


class ToolDialect(Protocol):
    """One family's way of writing calls (see the module docstring)."""

    @property
    def format(self) -> ToolFormat:
        """The dialect's name."""
        ...

    @property
    def openers(self) -> tuple[str, ...]:
        """Every string that may open a call block."""
        ...

    @property
    def markers(self) -> tuple[str, ...]:
        """The texts of the call markup's own tokens, which a vocabulary may hold as control tokens.

        A control token's piece is empty in plain detokenising; the engine renders
        these (and no other control token) as their text, so the reader sees a call.
        """
        ...

    def read_block(self, text: str, at_end: bool) -> Block | None:
        """The block ``text`` starts with (it starts with an opener); None while more text is needed.

        With ``at_end`` the reply is over: the answer is never None, and
        ``size`` is at least one character.
        """
        ...

    def steer(self, name: str | None) -> str:
        """The start of a reply that is already inside a call (of tool ``name`` when given), for a forced call."""
        ...

    def attempted(self, text: str) -> bool:
        """Whether ``text`` holds this dialect's call markup, read as a call or not."""
        ...


@dataclass(frozen=True, slots=True)
class TextPiece:
    """Reply text that is plain content."""

    text: str


@dataclass(frozen=True, slots=True)
class CallPiece:
    """One complete call, the ``index``-th of the reply."""

    index: int
    call: ToolCall


StreamPiece = TextPiece | CallPiece


@dataclass(frozen=True, slots=True)
class ParsedReply:
    """A whole reply read: its plain content and its calls."""

    content: str
    calls: tuple[ToolCall, ...] = ()


def call_body(name: Any, arguments: Any) -> CallBody | None:
    """A call from a name and arguments as a model wrote them (arguments maybe as JSON text); None if not one."""
    if isinstance(arguments, str):  # some models write the arguments as JSON text
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name) or not isinstance(arguments, dict):
        return None
    return CallBody(name, arguments)


def held_prefix(text: str, openers: tuple[str, ...]) -> int:
    """How many characters at the end of ``text`` may begin one of ``openers``."""
    longest = max((len(o) for o in openers), default=1)
    for size in range(min(len(text), longest - 1), 0, -1):
        tail = text[-size:]
        if any(o.startswith(tail) for o in openers):
            return size
    return 0


def first_opener(text: str, openers: tuple[str, ...]) -> int:
    """Where the first of ``openers`` starts in ``text`` (-1: none does)."""
    found = [i for i in (text.find(o) for o in openers) if i >= 0]
    return min(found, default=-1)


@dataclass
class CallStream:
    """Turns reply text, fed piece by piece, into content pieces and complete calls, in ``dialect``'s way."""

    dialect: ToolDialect
    parallel: bool = True
    new_id: Callable[[], str] = new_call_id
    calls: int = 0
    _buffer: str = ""
    _in_block: bool = False
    _space: str = ""  # whitespace held until it is known to sit between words rather than between calls
    _out: list[StreamPiece] = field(default_factory=list)

    @property
    def holding(self) -> bool:
        """Whether text is held back because it may still be a call's markup."""
        return self._in_block or bool(self._buffer)

    def feed(self, text: str) -> list[StreamPiece]:
        """The pieces that ``text`` completes (possibly none: a call's start is held until it is known)."""
        self._buffer += text
        self._run(at_end=False)
        return self._take()

    def finish(self) -> list[StreamPiece]:
        """What is left when the reply ends: an unclosed block, a held opener start, held whitespace."""
        self._run(at_end=True)
        if self._space and not self.calls:
            self._out.append(TextPiece(self._space))
        self._space = ""
        return self._take()

    def _run(self, at_end: bool) -> None:
        while self._buffer:
            if self._in_block:
                block = self.dialect.read_block(self._buffer, at_end)
                if block is None:
                    return
                raw, self._buffer = self._buffer[: block.size], self._buffer[block.size :]
                self._in_block = False
                self._block(block, raw)
                continue
            start = first_opener(self._buffer, self.dialect.openers)
            if start >= 0:
                self._text(self._buffer[:start])
                self._buffer = self._buffer[start:]
                self._in_block = True
                continue
            keep = 0 if at_end else held_prefix(self._buffer, self.dialect.openers)
            self._text(self._buffer[: len(self._buffer) - keep])
            self._buffer = self._buffer[len(self._buffer) - keep :]
            return

    def _text(self, text: str) -> None:
        if not text:
            return
        # Trailing whitespace always waits for what follows, so the cut between pieces never matters.
        words = text.rstrip()
        if words:
            self._out.append(TextPiece(self._space + words))
            self._space = ""
        self._space += text[len(words) :]

    def _block(self, block: Block, raw: str) -> None:
        if block.calls is None:
            self._text(raw)
            return
        self._space = ""
        for body in block.calls:
            if self.parallel or self.calls == 0:
                call = ToolCall(self.new_id(), body.name, json.dumps(body.arguments, ensure_ascii=False))
                self._out.append(CallPiece(self.calls, call))
                self.calls += 1

    def _take(self) -> list[StreamPiece]:
        out, self._out = self._out, []
        return out


def parse_reply(
    text: str, dialect: ToolDialect, parallel: bool = True, new_id: Callable[[], str] = new_call_id
) -> ParsedReply:
    """A whole reply read with the streaming reader (so both ways agree)."""
    stream = CallStream(dialect, parallel, new_id)
    pieces = stream.feed(text) + stream.finish()
    content = "".join(p.text for p in pieces if isinstance(p, TextPiece))
    return ParsedReply(content, tuple(p.call for p in pieces if isinstance(p, CallPiece)))
