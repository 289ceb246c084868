"""Reading a reply for calls: the template's format, and a whole reply that is nothing but one call's JSON.

Small models given tools often answer with the call's JSON alone, bare or in
a Markdown fence (the demo pair's Qwen2.5-Coder 1.5B writes
````json {"name": "get_weather", "arguments": {...}}````), not in their
template's ``<tool_call>`` tags, some in the doubled-brace form
(``{{"name": ...}}}``). :class:`CallReader` takes such a reply as a
call, but only when the *whole* reply is that one object and its name is one
of the offered tools; anything else stays text. To stream, it holds the
start of a reply only while it can still become such an object (``{"name":``
after an optional fence); from the first character that rules it out, text
flows as usual through the dialect's :class:`app.core.tools.call_stream.CallStream`.
Llama 3.x templates ask for exactly such a reply, with ``"parameters"`` for
``"arguments"``; both keys are read.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from app.core.reply.token_record import TokenRecord
from app.core.tools.call_stream import (
    CallPiece,
    CallStream,
    ParsedReply,
    StreamPiece,
    TextPiece,
    ToolDialect,
)
from app.core.tools.hermes import HERMES, call_object
from app.core.tools.records import ToolCall, new_call_id

_FENCE = "```"
_LEAD = '{"name":'  # what a bare call starts with, whitespace left out
_FENCED = re.compile(r"\A```(?:json)?\s*(.*?)\s*```\Z", re.DOTALL)


class _Gate(enum.Enum):
    """Whether the reply so far may still be one bare call."""

    MAYBE = "maybe"  # too short to tell
    CALL = "call"  # it began like one: hold it to the end
    NO = "no"  # it cannot be one


def _gate(text: str) -> _Gate:
    rest = text.lstrip()
    if rest.startswith(_FENCE):
        rest = rest[len(_FENCE) :]
        if "json".startswith(rest):  # "", "j", ... "json": the fence's language may still be coming
            return _Gate.MAYBE
        rest = rest.removeprefix("json").lstrip()
    elif _FENCE.startswith(rest):
        return _Gate.MAYBE
    compact = "".join(rest.split())
    if compact.startswith("{{"):  # the doubled-brace form (see hermes.call_object)
        compact = compact[1:]
    compact = compact[: len(_LEAD)]
    if compact == _LEAD:
        return _Gate.CALL
    return _Gate.MAYBE if _LEAD.startswith(compact) else _Gate.NO


def read_bare_call(text: str, names: Collection[str], new_id: Callable[[], str] = new_call_id) -> ToolCall | None:
    """The call a whole reply spells as bare or fenced JSON, naming one of ``names``; None otherwise."""
    body = text.strip()
    fenced = _FENCED.match(body)
    if fenced:
        body = fenced.group(1)
    value = call_object(body)
    if value is None or set(value) not in ({"name", "arguments"}, {"name", "parameters"}):
        return None
    name, arguments = value["name"], value.get("arguments", value.get("parameters"))
    if name not in names or not isinstance(arguments, dict):
        return None
    return ToolCall(new_id(), name, json.dumps(arguments, ensure_ascii=False))


@dataclass
class CallReader:
    """Reply text in, content pieces and calls out: tagged calls anywhere, or a whole reply that is one call."""

    names: frozenset[str] = frozenset()  # the offered tools; none: no bare calls are read
    parallel: bool = True
    new_id: Callable[[], str] = new_call_id
    dialect: ToolDialect = HERMES
    _tagged: CallStream = field(init=False)
    _held: str = ""
    _gate: _Gate = _Gate.MAYBE

    def __post_init__(self) -> None:
        self._tagged = CallStream(self.dialect, self.parallel, self.new_id)
        if not self.names:
            self._gate = _Gate.NO

    @property
    def calls(self) -> int:
        """Calls read so far."""
        return self._tagged.calls

    @property
    def holding(self) -> bool:
        """Whether text is held back because it may still be a call (bare, or in the dialect's markup)."""
        return (self._gate is not _Gate.NO and bool(self._held)) or self._tagged.holding

    def feed(self, text: str) -> list[StreamPiece]:
        """The pieces ``text`` completes."""
        if self._gate is _Gate.NO:
            return self._tagged.feed(text)
        self._held += text
        if self._gate is _Gate.MAYBE:
            self._gate = _gate(self._held)
        if self._gate is _Gate.NO:
            held, self._held = self._held, ""
            return self._tagged.feed(held)
        return []

    def finish(self) -> list[StreamPiece]:
        """The rest, when the reply ends."""
        if self._gate is not _Gate.NO:
            self._gate = _Gate.NO
            call = read_bare_call(self._held, self.names, self.new_id)
            if call is not None:
                self._tagged.calls = 1
                return [CallPiece(0, call)]
            held, self._held = self._held, ""
            return self._tagged.feed(held) + self._tagged.finish()
        return self._tagged.finish()


def read_reply(
    text: str,
    names: Collection[str] = (),
    parallel: bool = True,
    new_id: Callable[[], str] = new_call_id,
    dialect: ToolDialect = HERMES,
) -> ParsedReply:
    """A whole reply read by :class:`CallReader`, so a streamed reply and a plain one agree."""
    reader = CallReader(frozenset(names), parallel, new_id, dialect)
    pieces = reader.feed(text) + reader.finish()
    content = "".join(p.text for p in pieces if isinstance(p, TextPiece))
    return ParsedReply(content, tuple(p.call for p in pieces if isinstance(p, CallPiece)))


_ATTEMPT_SHOWN = 80  # characters of a broken call quoted in the line that replaces it


def call_attempt(text: str, dialect: ToolDialect = HERMES) -> bool:
    """True when a reply reads as an attempt at a call (markup, or call JSON bare or fenced), whatever it became."""
    if dialect.attempted(text):
        return True
    return _gate(text) is _Gate.CALL


def attempt_excerpt(text: str) -> str:
    """A broken call's start on one line, cut short, for the line said in its place."""
    line = " ".join(text.split())
    return line if len(line) <= _ATTEMPT_SHOWN else line[:_ATTEMPT_SHOWN] + "…"


@dataclass
class ShownTokens:
    """A streamed reply's tokens in, the tokens to show out: a call's are never shown.

    Tokens wait while the reader holds text back (it may still become a call);
    once the reader lets that text through they are shown. When it reads a call,
    the held tokens that spell the text it let through before the call are shown
    and the rest dropped: a token that carries both plain text and the start of a
    call's markup goes with the call, so the live view may miss those few
    characters but never shows markup (the finished reply is drawn from what the
    reader kept).
    """

    reader: CallReader
    _held: list[TokenRecord] = field(default_factory=list)
    _said: str = ""  # what the reader let through as text since the first held token

    def add(self, tokens: Sequence[TokenRecord]) -> list[TokenRecord]:
        """The tokens to show now, of those held and ``tokens``."""
        shown: list[TokenRecord] = []
        for token in tokens:
            self._held.append(token)
            shown += self._after(self.reader.feed(token.text), self.reader.holding)
        return shown

    def finish(self) -> list[TokenRecord]:
        """The held tokens to show when the reply ends (none of a call's)."""
        return self._after(self.reader.finish(), False)

    def _after(self, pieces: Sequence[StreamPiece], holding: bool) -> list[TokenRecord]:
        self._said += "".join(p.text for p in pieces if isinstance(p, TextPiece))
        if any(isinstance(p, CallPiece) for p in pieces):
            shown = _within(self._held, self._said)
        elif not holding:
            shown = self._held
        else:
            return []
        self._held, self._said = [], ""
        return shown


def _within(held: Sequence[TokenRecord], text_through: str) -> list[TokenRecord]:
    """The first of ``held`` whose text is no more than ``text_through`` (spaces aside)."""
    said = len(text_through.strip())
    shown: list[TokenRecord] = []
    text = ""
    for token in held:
        text += token.text
        if len(text.strip()) > said:
            break
        shown.append(token)
    return shown
