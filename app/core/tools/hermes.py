"""Reading tool calls out of a model's reply in the Qwen/Hermes format, whole or as it streams.

Templates of this family tell the model to answer a call as
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (Qwen 2.5 writes
newlines inside the tags). :func:`tool_format` finds the format in a
template's text; :class:`ToolStreamParser` reads a reply piece by piece,
passing text through at once but holding back anything that may be the start
of a call, and :func:`parse_reply` is the same parser over a whole reply, so a
streamed reply and a plain one always agree.

Decided here, on purpose:

- A body in the doubled-brace form (``{{"name": ...}}}``, which Qwen 2.5
  copies from its own template) is read as the object it means.
- A block whose body is not a JSON object with a valid ``name`` and an
  object of ``arguments`` (``"arguments"`` as the text of one is read too) is
  not a call: the whole block, tags included, stays in the reply as plain
  content. Nothing the model wrote is dropped, and a client never receives a
  call whose arguments are not JSON.
- A block the reply ends inside (no closing tag) is a call when its body is
  complete JSON, and plain text otherwise.
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
from typing import Any

from app.core.tools.records import NAME_PATTERN, ToolCall, new_call_id

OPEN = "<tool_call>"
CLOSE = "</tool_call>"


class ToolFormat(enum.StrEnum):
    """How a chat template asks the model to write a call."""

    HERMES = "hermes"  # <tool_call>{"name": ..., "arguments": ...}</tool_call> (Qwen 2.5, Hermes 2/3)


def tool_format(template: str | None) -> ToolFormat | None:
    """The tool format ``template``'s text describes, or None when it has none (it never renders ``tools``)."""
    if template and OPEN in template and "tools" in template:
        return ToolFormat.HERMES
    return None


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


def call_object(body: str) -> dict[str, Any] | None:
    """The JSON object ``body`` spells, read also in the doubled-brace form; None when it spells none.

    Qwen 2.5's template shows the call format with Jinja's doubled braces, and the
    model imitates them: ``{{"name": ..., "arguments": {...}}}`` (the outer pair
    doubled) or every brace doubled. Both are read as the object they mean; the
    plain form is tried first, so a valid object is never re-read.
    """
    text = body.strip()
    spellings = [text]
    if text.startswith("{{") and text.endswith("}}"):
        spellings += [text[1:-1], text.replace("{{", "{").replace("}}", "}")]
    for spelling in spellings:
        try:
            value: Any = json.loads(spelling)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def read_call(body: str, new_id: Callable[[], str] = new_call_id) -> ToolCall | None:
    """The call a block's body spells, or None when it is not one (see the module's rules)."""
    value = call_object(body)
    if value is None:
        return None
    name = value.get("name")
    arguments = value.get("arguments", {})
    if isinstance(arguments, str):  # some models write the arguments as JSON text
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name) or not isinstance(arguments, dict):
        return None
    return ToolCall(new_id(), name, json.dumps(arguments, ensure_ascii=False))


def _held_prefix(text: str) -> int:
    """How many characters at the end of ``text`` may begin the opening tag."""
    for size in range(min(len(text), len(OPEN) - 1), 0, -1):
        if OPEN.startswith(text[-size:]):
            return size
    return 0


@dataclass
class ToolStreamParser:
    """Turns reply text, fed piece by piece, into content pieces and complete calls."""

    parallel: bool = True
    new_id: Callable[[], str] = new_call_id
    calls: int = 0
    _buffer: str = ""
    _in_block: bool = False
    _space: str = ""  # whitespace held until it is known to sit between words rather than between calls
    _out: list[StreamPiece] = field(default_factory=list)

    def feed(self, text: str) -> list[StreamPiece]:
        """The pieces that ``text`` completes (possibly none: a call's start is held until it closes)."""
        self._buffer += text
        while True:
            if self._in_block:
                end = self._buffer.find(CLOSE)
                if end < 0:
                    break
                body, self._buffer = self._buffer[:end], self._buffer[end + len(CLOSE) :]
                self._in_block = False
                self._block(body, OPEN + body + CLOSE)
                continue
            start = self._buffer.find(OPEN)
            if start >= 0:
                self._text(self._buffer[:start])
                self._buffer = self._buffer[start + len(OPEN) :]
                self._in_block = True
                continue
            keep = _held_prefix(self._buffer)
            self._text(self._buffer[: len(self._buffer) - keep])
            self._buffer = self._buffer[len(self._buffer) - keep :]
            break
        return self._take()

    def finish(self) -> list[StreamPiece]:
        """What is left when the reply ends: an unclosed block, a held tag start, held whitespace."""
        if self._in_block:
            self._in_block = False
            self._block(self._buffer, OPEN + self._buffer)
        else:
            self._text(self._buffer)
        self._buffer = ""
        if self._space and not self.calls:
            self._out.append(TextPiece(self._space))
        self._space = ""
        return self._take()

    def _text(self, text: str) -> None:
        if not text:
            return
        # Trailing whitespace always waits for what follows, so the cut between pieces never matters.
        words = text.rstrip()
        if words:
            self._out.append(TextPiece(self._space + words))
            self._space = ""
        self._space += text[len(words) :]

    def _block(self, body: str, raw: str) -> None:
        call = read_call(body, self.new_id)
        if call is None:
            self._text(raw)
            return
        self._space = ""
        if self.parallel or self.calls == 0:
            self._out.append(CallPiece(self.calls, call))
            self.calls += 1

    def _take(self) -> list[StreamPiece]:
        out, self._out = self._out, []
        return out


def parse_reply(text: str, parallel: bool = True, new_id: Callable[[], str] = new_call_id) -> ParsedReply:
    """A whole reply read with the streaming parser (so both ways agree)."""
    parser = ToolStreamParser(parallel, new_id)
    pieces = parser.feed(text) + parser.finish()
    content = "".join(p.text for p in pieces if isinstance(p, TextPiece))
    return ParsedReply(content, tuple(p.call for p in pieces if isinstance(p, CallPiece)))
