"""Chat messages, who speaks and how far a reply got, and fitting a conversation into the context window."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.core.attachments.record import Attachment
from app.core.tools.records import ToolCall


class Role(enum.StrEnum):
    """Who speaks a turn: a StrEnum, so a member equals the text kept in the database and in exports."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"  # a tool call's result (its call is in the assistant turn before it)


class MessageState(enum.StrEnum):
    """How far a stored message got (the store's ``state`` column, and an export's)."""

    DONE = "done"  # complete: every user or system turn, and a reply that ended by itself
    STREAMING = "streaming"  # a reply this process is generating now
    CANCELLED = "cancelled"  # a reply the user stopped
    INTERRUPTED = "interrupted"  # a reply cut short by a crash (found still streaming when the store opened)
    FAILED = "failed"  # a reply ended by an error (the model's, the server's or the store's)


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of a conversation, with the files attached to it (how they enter the prompt is decided later)."""

    role: str  # a Role
    content: str
    attachments: tuple[Attachment, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()  # an assistant turn's calls
    tool_call_id: str = ""  # a tool result's call

    def as_dict(self) -> dict[str, str]:
        """The shape chat templates expect."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class FittedPrompt:
    """The prompt tokens and how many of the oldest turns were left out to fit."""

    tokens: list[int]
    dropped_messages: int


def fit_conversation(
    messages: Sequence[Message],
    render: Callable[[Sequence[Message]], list[int]],
    budget: int,
) -> FittedPrompt:
    """Drop the oldest non-system turns until the rendered prompt fits ``budget`` tokens.

    The system message and the newest message always stay; if those alone do
    not fit, the caller gets the oversized prompt and reports it.
    """
    system = [m for m in messages[:1] if m.role == Role.SYSTEM]
    turns = list(messages[len(system) :])
    dropped = 0
    tokens = render([*system, *turns])
    while len(tokens) > budget and len(turns) > 1:
        # Drop a user turn together with the assistant reply that followed it.
        cut = 2 if len(turns) > 2 and turns[0].role == Role.USER and turns[1].role == Role.ASSISTANT else 1
        turns = turns[cut:]
        dropped += cut
        tokens = render([*system, *turns])
    return FittedPrompt(tokens, dropped)
