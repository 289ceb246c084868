"""Fitting a conversation into the context: which oldest turns go, found near the cut rather than one drop at a time."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from app.core.conversation.chat import FittedPrompt, Message, first_fitting, fit_conversation, turn_cuts

# A ChatML-like template over one token per word: each turn costs its words plus three of the template's.
_OPENER = ["<s>", "assistant", "\n"]


class _Render:
    """A render function that counts how many messages it was given in all."""

    def __init__(self) -> None:
        self.messages_rendered = 0
        self.calls = 0

    def __call__(self, messages: Sequence[Message]) -> list[str]:
        self.calls += 1
        self.messages_rendered += len(messages)
        tokens: list[str] = []
        for m in messages:
            tokens += ["<s>", m.role, *m.content.split(), "</s>"]
        return [*tokens, *_OPENER]


def _ids(render: _Render) -> Callable[[Sequence[Message]], list[int]]:
    return lambda messages: [len(t) for t in render(messages)]


def _words(message: Message) -> int:
    return len(message.content.split())


def _dropping_one_pair_at_a_time(
    messages: Sequence[Message], render: Callable[[Sequence[Message]], list[int]], budget: int
) -> FittedPrompt:
    """The fitting as it was: the whole chat rendered again after every drop (the reference for small chats)."""
    system = [m for m in messages[:1] if m.role == "system"]
    turns = list(messages[len(system) :])
    dropped = 0
    tokens = render([*system, *turns])
    while len(tokens) > budget and len(turns) > 1:
        cut = 2 if len(turns) > 2 and turns[0].role == "user" and turns[1].role == "assistant" else 1
        turns = turns[cut:]
        dropped += cut
        tokens = render([*system, *turns])
    return FittedPrompt(tokens, dropped)


def _random_chat(rng: random.Random, n: int, system: bool) -> list[Message]:
    roles = ["user", "assistant"]
    chat = [Message("system", "be " * rng.randint(1, 5))] if system else []
    for i in range(n):
        # Mostly alternating, with a tool result or a doubled turn now and then (a lone turn is dropped alone).
        role = rng.choice(["tool", "user"]) if rng.random() < 0.15 else roles[i % 2]
        chat.append(Message(role, "word " * rng.randint(0, 12)))
    return chat


def test_turn_cuts_drop_a_user_turn_with_its_reply_and_a_lone_turn_alone() -> None:
    turns = [Message(r, "") for r in ("user", "assistant", "tool", "user", "assistant", "user")]
    assert turn_cuts(turns) == [0, 2, 3, 5]
    assert turn_cuts([Message("user", "")]) == [0]
    assert turn_cuts([]) == [0]
    assert turn_cuts([Message("user", ""), Message("assistant", "")]) == [0, 1]  # the newest stays


@pytest.mark.parametrize("answer", range(9))
def test_first_fitting_finds_the_first_true_from_any_guess(answer: int) -> None:
    asked: list[int] = []

    def fits(i: int) -> bool:
        asked.append(i)
        return i >= answer

    for guess in range(-1, 11):
        asked.clear()
        assert first_fitting(9, fits, guess) == min(answer, 8)
        assert 8 not in asked  # the last try is kept without asking


def test_first_fitting_asks_about_the_guess_and_its_neighbour_when_the_guess_is_right() -> None:
    asked: list[int] = []

    def fits(i: int) -> bool:
        asked.append(i)
        return i >= 5000

    assert first_fitting(10_000, fits, 5000) == 5000
    assert asked == [5000, 4999]


@pytest.mark.parametrize("seed", range(40))
def test_fitting_chooses_what_dropping_one_pair_at_a_time_chose(seed: int) -> None:
    rng = random.Random(seed)
    chat = _random_chat(rng, rng.randint(0, 30), system=rng.random() < 0.6)
    for budget in (0, 5, 20, 40, 80, 160, 1000):
        expected = _dropping_one_pair_at_a_time(chat, _ids(_Render()), budget)
        assert fit_conversation(chat, _ids(_Render()), budget) == expected
        assert fit_conversation(chat, _ids(_Render()), budget, count=_words) == expected
        # A count that is far off only slows the search down, it never changes the answer.
        assert fit_conversation(chat, _ids(_Render()), budget, count=lambda m: 7 * _words(m) + 50) == expected
        assert fit_conversation(chat, _ids(_Render()), budget, count=lambda m: 0) == expected


def test_a_long_chat_is_rendered_near_its_cut_only() -> None:
    chat = _random_chat(random.Random(7), 10_000, system=True)
    render = _Render()
    fitted = fit_conversation(chat, _ids(render), 400, count=_words)
    # Less than one render of the whole chat in all (dropping a pair at a time rendered it about 5,000 times).
    assert render.messages_rendered < len(chat)
    # And it is the first try that fits: one more turn or pair of turns would not.
    system, turns = chat[:1], chat[1:]
    cuts = turn_cuts(turns)
    kept = cuts.index(fitted.dropped_messages)
    assert fitted.tokens == _ids(_Render())([*system, *turns[cuts[kept] :]])
    assert 0 < len(fitted.tokens) <= 400 < len(_Render()([*system, *turns[cuts[kept - 1] :]]))
