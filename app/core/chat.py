"""Chat messages and fitting a conversation into the context window."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of a conversation."""

    role: str  # "system", "user" or "assistant"
    content: str

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
    system = [m for m in messages[:1] if m.role == "system"]
    turns = list(messages[len(system) :])
    dropped = 0
    tokens = render([*system, *turns])
    while len(tokens) > budget and len(turns) > 1:
        # Drop a user turn together with the assistant reply that followed it.
        cut = 2 if len(turns) > 2 and turns[0].role == "user" and turns[1].role == "assistant" else 1
        turns = turns[cut:]
        dropped += cut
        tokens = render([*system, *turns])
    return FittedPrompt(tokens, dropped)
