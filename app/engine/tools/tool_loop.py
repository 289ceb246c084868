"""The tool loop every front end shares: reply, read the reply for calls, ask, run, feed the results back, reply again.

A front end gives :class:`ToolLoop` three things: how to produce one reply
from messages and the tools on offer (``generate``: the CLI holds the events,
``chat --chat`` stores them, the window streams them), how to ask the user
about a call (``approve``, returning an :class:`~app.core.tools.turns.Approval`),
and what to do with each turn as it happens (``on_calls`` for a reply that
called tools, ``on_outcome`` for each call's end: print it, store it, show it).
The loop itself is the policy: a reply with no call ends it; a tool the user
allowed "always in this chat" is not asked about again; a refused call goes
back to the model as an error line; after ``max_calls`` calls, or when the
model only repeats calls already answered, the next reply is made without
tools, so it must answer. The results are data: they go back as ``tool``
messages, which the chat template writes as text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from app.core.chat import Message, Role
from app.core.tools.reader import read_reply
from app.core.tools.records import ToolCall, ToolResult, ToolSpec
from app.core.tools.turns import DENIED_TEXT, Approval, ToolOutcome

DEFAULT_MAX_TOOL_CALLS = 4


class ToolRunner(Protocol):
    """What runs a call: :class:`~app.engine.tools.mcp_client.McpClient`, or anything that answers alike."""

    def call(self, call: ToolCall) -> ToolResult:
        """Run ``call``; every failure is an error result with one line."""
        ...


@dataclass(frozen=True, slots=True)
class LoopEnd:
    """How the loop ended: the final reply's text and every call made on the way, in order."""

    text: str
    outcomes: tuple[ToolOutcome, ...]


def _nothing(*_args: object) -> None:
    return None


@dataclass(frozen=True, slots=True)
class ReplyCalls:
    """What a reply asked for: its text outside the calls, and the calls to run (empty: only repeats, reply again)."""

    content: str
    calls: tuple[ToolCall, ...]


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
    _answered: set[tuple[str, str]] = field(default_factory=set, init=False)
    _count: int = field(default=0, init=False)
    _offer: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        self._offer = bool(self.tools) and self.max_calls > 0

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
        reply = read_reply(text, frozenset(t.name for t in self.tools))
        if not reply.calls:
            return None
        if all((c.name, canonical(c.arguments)) in self._answered for c in reply.calls):
            self._offer = False
            return ReplyCalls(reply.content, ())
        return ReplyCalls(reply.content, reply.calls)

    def preset(self, call: ToolCall) -> Approval | None:
        """The answer already given for this call's tool in this chat, or None: the user must be asked."""
        return Approval.ALWAYS_IN_CHAT if call.name in self.always else None

    def outcome(self, call: ToolCall, approval: Approval) -> ToolOutcome:
        """Run the call the user allowed (a refusal goes back as an error line); blocks for at most the time-out."""
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
        while True:
            text = generate(tuple(turns), self.offered())
            asked = self.calls_in(text)
            if asked is None:
                return LoopEnd(text, tuple(outcomes))
            if not asked.calls:
                continue
            self.on_calls(asked.content, asked.calls)
            turns.append(Message(Role.ASSISTANT, asked.content, tool_calls=asked.calls))
            for call in asked.calls:
                outcome = self.outcome(call, self.preset(call) or self.approve(call))
                outcomes.append(outcome)
                self.on_outcome(outcome)
                turns.append(Message(Role.TOOL, outcome.result.text, tool_call_id=call.id))


def enabled_tools(tools: Sequence[ToolSpec], off: Collection[str]) -> tuple[ToolSpec, ...]:
    """The tools on offer once those a chat switched off are left out."""
    return tuple(t for t in tools if t.name not in off)


def canonical(arguments: str) -> str:
    """The arguments in one spelling, so a repeated call is known whatever its spacing or key order."""
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except ValueError:
        return arguments
