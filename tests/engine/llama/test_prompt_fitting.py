"""Fitting a chat into the real SmolLM2 context: the same turns dropped as one pair at a time, a long chat fitted near
its cut (the window, the CLI and ``serve`` all fit through :func:`app.engine.reply.fit_prompt`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from app.core.conversation.chat import FittedPrompt, Message
from app.core.conversation.chat_settings import ChatSettings
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.reply import ReplyRequest, fit_prompt

N_CTX = 512


@pytest.fixture(scope="module")
def pair(small_pair: tuple[Path, Path]) -> Iterator[LoadedPair]:
    target, _ = small_pair
    with LoadedPair(PairConfig(target, None, DrafterKind.NGRAM, n_ctx=N_CTX, n_threads=1)) as loaded:
        yield loaded


def _chat(n: int, system: bool = True) -> list[Message]:
    chat = [Message("system", "You are brief.")] if system else []
    for i in range(n):
        if i % 2:
            chat.append(Message("assistant", f"{i - 1} and {i - 1} make {2 * i - 2}; add them, carrying where needed."))
        else:
            chat.append(Message("user", f"Question {i}: what is {i} plus {i}? Say how, in a sentence."))
    return [*chat, Message("user", "And the last one?")]


def _dropping_one_pair_at_a_time(pair: LoadedPair, messages: Sequence[Message], reserve: int) -> FittedPrompt:
    """The fitting as it was: the whole chat rendered again after every dropped pair of turns."""
    budget = N_CTX - max(1, reserve)
    system = [m for m in messages[:1] if m.role == "system"]
    turns = list(messages[len(system) :])
    dropped = 0
    tokens = pair.template.render([*system, *turns])
    while len(tokens) > budget and len(turns) > 1:
        cut = 2 if len(turns) > 2 and turns[0].role == "user" and turns[1].role == "assistant" else 1
        turns = turns[cut:]
        dropped += cut
        tokens = pair.template.render([*system, *turns])
    return FittedPrompt(tokens, dropped)


@pytest.mark.parametrize("n", [0, 1, 6, 19, 40])
def test_a_small_chat_is_fitted_as_dropping_one_pair_at_a_time_fitted_it(pair: LoadedPair, n: int) -> None:
    for system in (True, False):
        chat = _chat(n, system)
        for reserve in (1, 128, 300, 470, 600):
            assert pair.prompt_tokens(chat, reserve=reserve) == _dropping_one_pair_at_a_time(pair, chat, reserve)


def test_a_long_chat_is_rendered_near_its_cut_only(pair: LoadedPair, monkeypatch: pytest.MonkeyPatch) -> None:
    chat = _chat(3000)
    rendered: list[int] = []
    render = pair.template.render

    def counting(messages: Sequence[Message], *args: object, **kwargs: object) -> list[int]:
        rendered.append(len(messages))
        return render(messages, *args, **kwargs)

    monkeypatch.setattr(pair.template, "render", counting)
    plan = fit_prompt(pair, ReplyRequest(ChatSettings(max_tokens=64), tuple(chat)))
    # Fewer messages rendered in all than the chat has (one pair at a time rendered it about 1,500 times over).
    assert sum(rendered) < len(chat)
    assert len(plan.tokens) <= N_CTX - 64 and plan.dropped_messages > 2900
    # The first try that fits: one more pair of turns would not.
    one_more = chat[1:][plan.dropped_messages - 2 :]
    assert one_more[0].role == "user" and one_more[1].role == "assistant"
    assert len(render([chat[0], *one_more])) > N_CTX - 64
