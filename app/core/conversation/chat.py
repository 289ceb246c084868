"""Chat messages, who speaks and how far a reply got, and fitting a conversation into the context window."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.core.attachments.record import Attachment
from app.core.conversation.images import ImageInput
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
    images: tuple[ImageInput, ...] = ()  # read by the target's projector, placed before the text

    def as_dict(self) -> dict[str, str]:
        """The shape chat templates expect."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class FittedPrompt:
    """The prompt tokens and how many of the oldest turns were left out to fit."""

    tokens: list[int]
    dropped_messages: int


def turn_cuts(turns: Sequence[Message]) -> list[int]:
    """How many of the oldest ``turns`` each try leaves out, in the order fitting tries them.

    The first try keeps every turn; each next one drops a user turn together
    with the assistant reply that followed it (or a lone turn), until one turn
    is left.
    """
    cuts = [0]
    start = 0
    while len(turns) - start > 1:
        paired = len(turns) - start > 2 and turns[start].role == Role.USER and turns[start + 1].role == Role.ASSISTANT
        start += 2 if paired else 1
        cuts.append(start)
    return cuts


def first_fitting(n_tries: int, fits: Callable[[int], bool], guess: int = 0) -> int:
    """The first of ``n_tries`` tries that fits, searched from ``guess``; the last try when none does.

    ``fits`` must be monotone (once a try fits, every later one does), as
    dropping more turns never lengthens the prompt; the last try is taken
    without asking, as the one that is kept however long it is. The search
    steps away from ``guess`` in doubling strides and then halves the bracket,
    so a good guess costs a few calls near it rather than one per try.
    """
    last = n_tries - 1

    def ok(i: int) -> bool:
        return i >= last or fits(i)

    guess = min(max(guess, 0), last)
    if ok(guess):
        fitting, stride = guess, 1
        while fitting > 0:  # back towards more turns until a try does not fit
            probe = max(fitting - stride, 0)
            if not ok(probe):
                failing = probe
                break
            fitting, stride = probe, stride * 2
        else:
            return 0
    else:
        failing, stride = guess, 1
        while True:  # on towards fewer turns until one fits (the last always does)
            probe = min(failing + stride, last)
            if ok(probe):
                fitting = probe
                break
            failing, stride = probe, stride * 2
    while fitting - failing > 1:
        middle = (failing + fitting) // 2
        if ok(middle):
            fitting = middle
        else:
            failing = middle
    return fitting


def fit_conversation(
    messages: Sequence[Message],
    render: Callable[[Sequence[Message]], list[int]],
    budget: int,
    count: Callable[[Message], int] | None = None,
) -> FittedPrompt:
    """Drop the oldest non-system turns until the rendered prompt fits ``budget`` tokens.

    The system message and the newest message always stay; if those alone do
    not fit, the caller gets the oversized prompt and reports it. Turns go a
    user turn and its reply at a time (:func:`turn_cuts`); the result is the
    first of those tries that fits.

    ``count`` (a message's own tokens, about) lets the search start near the
    answer: only the newest turns that could fit are counted, and the prompt
    is rendered a few times near the cut, so a long chat costs about what the
    part of it that fits costs. Without it the search starts from the whole
    conversation.
    """
    system = list(messages[:1]) if messages and messages[0].role == Role.SYSTEM else []
    turns = messages[len(system) :]
    cuts = turn_cuts(turns)
    rendered: dict[int, list[int]] = {}

    def tokens(i: int) -> list[int]:
        if i not in rendered:
            rendered[i] = render([*system, *turns[cuts[i] :]])
        return rendered[i]

    guess = 0 if count is None else _guess_cut(cuts, turns, system, tokens, count, budget)
    chosen = first_fitting(len(cuts), lambda i: len(tokens(i)) <= budget, guess)
    return FittedPrompt(tokens(chosen), cuts[chosen])


def _guess_cut(
    cuts: Sequence[int],
    turns: Sequence[Message],
    system: Sequence[Message],
    tokens: Callable[[int], list[int]],
    count: Callable[[Message], int],
    budget: int,
) -> int:
    """The try whose counted turns come nearest to ``budget``, the template's share per turn measured once.

    Turns are counted from the newest back only as far as they could fit, so
    the turns a long chat drops are never counted.
    """
    fixed = sum(count(m) for m in system)
    # kept[j]: tokens counted for the turns from j on (filled from the newest back while within the budget).
    kept: dict[int, int] = {len(turns): 0}
    total = 0
    for j in range(len(turns) - 1, -1, -1):
        total += count(turns[j])
        kept[j] = total
        if fixed + total > budget:
            break

    def first_within(per_turn: float) -> int:
        """The first try whose counted size (``per_turn`` more for each turn) is within the budget."""
        for i, cut in enumerate(cuts):
            if cut in kept and fixed + kept[cut] + per_turn * (len(turns) - cut + len(system)) <= budget:
                return i
        return len(cuts) - 1

    first = first_within(0.0)  # contents alone: at or before the answer
    n_turns = len(turns) - cuts[first] + len(system)
    overhead = max(0.0, (len(tokens(first)) - fixed - kept.get(cuts[first], 0)) / max(n_turns, 1))
    return first_within(overhead)
