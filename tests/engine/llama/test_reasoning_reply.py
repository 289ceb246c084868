"""A real reasoning block: Qwen2.5-Coder asked to think first, split by part, and left out of the next prompt.

No reasoning model is on disk, so the demo pair is asked by its system prompt to open
with ``<think>``; at temperature 0 it does so the same way every time.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli.chat.printing import run_json
from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.events import StepEvent
from app.core.reply.reasoning import Part, acceptance_by_part, split_reasoning, token_parts
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.reply import ReplyRequest, plan_reply, run_reply

THINK_FIRST = "Always begin your reply with <think>, write your reasoning, then </think>, then the answer."
GREEDY = ChatSettings(temperature=0, drafter=DrafterKind.MODEL, adaptive=False, draft_length=4, max_tokens=80, seed=1)


@pytest.fixture(scope="module")
def pair(demo_pair: tuple[Path, Path]) -> Iterator[LoadedPair]:
    target, draft = demo_pair
    with LoadedPair(PairConfig(target, draft, DrafterKind.MODEL, n_ctx=1024, n_threads=2)) as loaded:
        yield loaded


def _ask() -> tuple[Message, ...]:
    return (Message("system", THINK_FIRST), Message("user", "What is 2+3?"))


def _prompt_text(pair: LoadedPair, tokens: list[int]) -> str:
    return b"".join(pair.target.token_bytes(t) for t in tokens).decode("utf-8", errors="replace")


def test_a_real_reply_with_a_think_block_splits_by_token(pair: LoadedPair) -> None:
    plan = plan_reply(pair, ReplyRequest(GREEDY, _ask()))
    assert not plan.prompt.reasoning_inside  # Qwen2.5's template opens no block itself
    tokens = [t for e in run_reply(pair, plan) if isinstance(e, StepEvent) for t in e.tokens]
    text = "".join(t.text for t in tokens)
    reply = split_reasoning(text)
    assert reply.closed and reply.reasoning and "5" in reply.reasoning, text
    assert reply.answer and "</think>" not in reply.answer and "<think>" not in reply.reasoning
    parts = token_parts([t.text for t in tokens])
    first_answer = parts.index(Part.ANSWER)
    assert set(parts[:first_answer]) == {Part.THINKING} and set(parts[first_answer:]) == {Part.ANSWER}
    split = acceptance_by_part([str(t.origin) for t in tokens], parts)
    assert split[Part.THINKING].tokens + split[Part.ANSWER].tokens == len(tokens)
    assert split[Part.THINKING].from_draft > 0  # the draft model follows the thinking too


def test_the_next_prompt_leaves_the_earlier_thinking_out(pair: LoadedPair) -> None:
    earlier = "<think>\nThe secret scratch work is 2 plus 3.\n</think>\nThe answer is 5."
    turns = (*_ask(), Message("assistant", earlier), Message("user", "And 3+4?"))
    plan = plan_reply(pair, ReplyRequest(GREEDY, turns))
    prompt = _prompt_text(pair, plan.prompt.tokens)
    assert "secret scratch work" not in prompt and "<think>\nThe" not in prompt
    assert "The answer is 5." in prompt and THINK_FIRST in prompt  # the system prompt's own markers stay
    # continuing an unfinished reply keeps its own thinking: the model goes on inside it
    cont = (*_ask(), Message("assistant", "<think>\nThe secret scratch"))
    plan = plan_reply(pair, ReplyRequest(GREEDY, cont, continue_reply=True))
    assert _prompt_text(pair, plan.prompt.tokens).endswith("<think>\nThe secret scratch")


def test_chat_json_carries_the_thinking_apart(pair: LoadedPair) -> None:
    plan = plan_reply(pair, ReplyRequest(GREEDY, _ask()))
    out = io.StringIO()
    run_json(run_reply(pair, plan), plan, out)
    payload = json.loads(out.getvalue())
    reasoning = payload["reasoning"]
    assert payload["text"].startswith("<think>")  # the whole reply as written stays in "text"
    assert reasoning["closed"] and "5" in reasoning["text"] and "think>" not in reasoning["text"]
    assert payload["text"].endswith(reasoning["answer"])
    thinking, answer = reasoning["thinking"], reasoning["answer_part"]
    assert thinking["tokens"] + answer["tokens"] == len(payload["tokens"])
    drafted = sum(t["origin"] == "draft" for t in payload["tokens"])
    assert thinking["from_draft"] + answer["from_draft"] == drafted


def test_chat_json_without_a_block_says_null(pair: LoadedPair) -> None:
    plan = plan_reply(pair, ReplyRequest(GREEDY, (Message("user", "Say hello."),)))
    out = io.StringIO()
    run_json(run_reply(pair, plan), plan, out)
    assert json.loads(out.getvalue())["reasoning"] is None
