"""The tool loop every front end shares: reply, read the reply for calls, ask, run, feed the results back, reply again.

A front end gives :class:`ToolLoop` three things: how to produce one reply
from messages and the tools on offer (``generate``: the CLI holds the events,
``chat --chat`` stores them, the window streams them), how to ask the user
about a call (``approve``, returning an :class:`~app.core.tools.turns.Approval`),
and what to do with each turn as it happens (``on_calls`` for a reply that
called tools, ``on_outcome`` for each call's end: print it, store it, show it).
The loop itself is the policy: a reply with no call ends it; a tool the user
allowed "always in this chat" is not asked about again, unless it may change
things (``ToolSpec.writes``): such a tool is asked about before every call; a refused call goes
back to the model as an error line; after ``max_calls`` calls, or when the
model only repeats calls already answered, the next reply is made without
tools, so it must answer. A call the loop does not run is said in words
(:class:`~app.core.tools.turns.ToolNote`, handed to ``on_note``): a repeat
of a call answered, a call made after the tools were withdrawn, or a reply
that tried to call and wrote no readable call. The results are data: they go
back as ``tool`` messages, which the chat template writes as text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from app.core.conversation.chat import Message, Role
from app.core.tools.call_stream import ToolDialect
from app.core.tools.dialects import for_tools
from app.core.tools.hermes import HERMES
from app.core.tools.reader import attempt_excerpt, call_attempt, read_reply
from app.core.tools.records import ToolCall, ToolResult, ToolSpec
from app.core.tools.turns import DENIED_TEXT, Approval, ChatTools, NoteKind, ToolNote, ToolOutcome

DEFAULT_MAX_TOOL_CALLS = 4


class ToolRunner(Protocol):
    """What runs a call: :class:`~app.engine.tools.mcp_client.McpClient`, or anything that answers alike."""

    def call(self, call: ToolCall) -> ToolResult:
        """Run ``call``; every failure is an error result with one line."""
        ...


@dataclass(frozen=True, slots=True)
class LoopEnd:
    """How the loop ended: the final reply's text, every call made on the way, in order, and the last reply's note."""

    text: str
    outcomes: tuple[ToolOutcome, ...]
    note: ToolNote | None = None  # the final reply tried a call the loop did not run


def _nothing(*_args: object) -> None:
    return None


@dataclass(frozen=True, slots=True)
class ReplyCalls:
    """What a reply asked for: its text outside the calls, and the calls to run (empty: only repeats, reply again)."""

    content: str
    calls: tuple[ToolCall, ...]
    note: ToolNote | None = None  # only repeats: what is said about them


@dataclass
class ToolLoop:
    """One answer to the messages given, through as many tool calls as the model makes and the user allows.

    :meth:`run` is the whole loop for a front end that may block (the CLI). A
    front end that may not (the window) drives the same steps itself:
    :meth:`offered` for each reply's tools, :meth:`calls_in` on its text,
    :meth:`preset` (or its own question) for each call's approval, and
    :meth:`outcome` off its GUI thread to run it.
    """

    runner: ToolRunner
    tools: tuple[ToolSpec, ...]
    approve: Callable[[ToolCall], Approval] = lambda _call: Approval.DENY
    max_calls: int = DEFAULT_MAX_TOOL_CALLS
    always: set[str] = field(default_factory=set)  # tools the user allowed for the rest of the chat
    on_calls: Callable[[str, tuple[ToolCall, ...]], None] = _nothing  # a reply that called: its text and calls
    on_outcome: Callable[[ToolOutcome], None] = _nothing
    on_note: Callable[[ToolNote], None] = _nothing  # a call not run, said in words
    dialect: ToolDialect = HERMES  # how the model writes calls: its template's (ChatTemplate.tool_dialect)
    _answered: set[tuple[str, str]] = field(default_factory=set, init=False)
    _count: int = field(default=0, init=False)
    _offer: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        self._offer = bool(self.tools) and self.max_calls > 0
        self.dialect = for_tools(self.dialect, self.tools)

    def offered(self) -> tuple[ToolSpec, ...]:
        """The tools the next reply is given: none after the call limit or a reply of repeats, so it must answer."""
        return self.tools if self._offer else ()

    def calls_in(self, text: str) -> ReplyCalls | None:
        """The calls a reply made with :meth:`offered`'s tools; None when the reply is the answer.

        A reply that only repeats calls already answered gives no calls to run and
        ends the offer: the model has what it asked for and is asked again, without tools.
        """
        if not self._offer:
            return None
        reply = read_reply(text, frozenset(t.name for t in self.tools), dialect=self.dialect)
        if not reply.calls:
            return None
        if all((c.name, canonical(c.arguments)) in self._answered for c in reply.calls):
            self._offer = False
            return ReplyCalls(reply.content, (), ToolNote(kind=NoteKind.REPEATED, names=_names(reply.calls)))
        return ReplyCalls(reply.content, reply.calls)

    def note_on(self, answer: str) -> ToolNote | None:
        """What to say of a final reply that tried a call the loop did not run; None for a plain answer.

        The reply is one :meth:`calls_in` gave no calls for: a call made once the
        tools were withdrawn (a repeat, or past the limit), or an attempt that did
        not read as a call (broken JSON, an unknown tool).
        """
        if not self.tools or not call_attempt(answer, self.dialect):
            return None
        calls = read_reply(answer, frozenset(t.name for t in self.tools), dialect=self.dialect).calls
        if not calls:
            return ToolNote(kind=NoteKind.MALFORMED, excerpt=attempt_excerpt(answer))
        repeats = all((c.name, canonical(c.arguments)) in self._answered for c in calls)
        return ToolNote(kind=NoteKind.REPEATED if repeats else NoteKind.AFTER_END, names=_names(calls))

    def writes(self, name: str) -> bool:
        """True when the tool ``name`` may change things: asked about before every call."""
        return any(t.writes for t in self.tools if t.name == name)

    def preset(self, call: ToolCall) -> Approval | None:
        """The answer already given for this call's tool in this chat, or None: the user must be asked."""
        if call.name in self.always and not self.writes(call.name):
            return Approval.ALWAYS_IN_CHAT
        return None

    def outcome(self, call: ToolCall, approval: Approval) -> ToolOutcome:
        """Run the call the user allowed (a refusal goes back as an error line); blocks for at most the time-out."""
        if approval is Approval.ALWAYS_IN_CHAT and self.writes(call.name):
            approval = Approval.ALLOW_ONCE  # a tool that changes things is never allowed beyond this call
        if approval is Approval.ALWAYS_IN_CHAT:
            self.always.add(call.name)
        denied = ToolResult(call.id, DENIED_TEXT, is_error=True)
        result = self.runner.call(call) if approval.allows else denied
        self._answered.add((call.name, canonical(call.arguments)))
        self._count += 1
        if self._count >= self.max_calls:
            self._offer = False
        return ToolOutcome(call, approval, result)

    def run(
        self, messages: Sequence[Message], generate: Callable[[tuple[Message, ...], tuple[ToolSpec, ...]], str]
    ) -> LoopEnd:
        """Reply to ``messages``; ``generate`` makes one reply with the tools given (maybe none), returns its text."""
        turns = list(messages)
        outcomes: list[ToolOutcome] = []
        said: ToolNote | None = None  # the last note handed out: a final reply that repeats it is not said twice
        while True:
            text = generate(tuple(turns), self.offered())
            asked = self.calls_in(text)
            if asked is None:
                note = self.note_on(text)
                if note is not None and note != said:
                    self.on_note(note)
                return LoopEnd(text, tuple(outcomes), note)
            if not asked.calls:
                if asked.note is not None:
                    self.on_note(asked.note)
                    said = asked.note
                continue
            self.on_calls(asked.content, asked.calls)
            turns.append(Message(Role.ASSISTANT, asked.content, tool_calls=asked.calls))
            for call in asked.calls:
                outcome = self.outcome(call, self.preset(call) or self.approve(call))
                outcomes.append(outcome)
                self.on_outcome(outcome)
                turns.append(Message(Role.TOOL, outcome.result.text, tool_call_id=call.id))


def enabled_tools(tools: Sequence[ToolSpec], choices: ChatTools) -> tuple[ToolSpec, ...]:
    """The tools a chat offers, of those the servers give."""
    return tuple(t for t in tools if choices.offers(t.name))


def _names(calls: Sequence[ToolCall]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c.name for c in calls))


def canonical(arguments: str) -> str:
    """The arguments in one spelling, so a repeated call is known whatever its spacing or key order."""
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except ValueError:
        return arguments
