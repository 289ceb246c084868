"""``serve`` returns a reasoning block as ``reasoning_content``, streamed and whole, on the real Qwen demo pair.

No reasoning model is on disk: the system prompt asks Qwen2.5-Coder to open with
``<think>``, which it does the same way every time at temperature 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine

THINK_FIRST = "Always begin your reply with <think>, write your reasoning, then </think>, then the answer."
ASK = [{"role": "system", "content": THINK_FIRST}, {"role": "user", "content": "What is 2+3?"}]


@pytest.fixture(scope="module")
def client(demo_pair: tuple[Path, Path]) -> Iterator[openai.OpenAI]:
    target, draft = demo_pair
    engine = ServerEngine(PairConfig(target, draft, DrafterKind.MODEL, n_ctx=1024, n_threads=2), draft_length=4)
    engine.start()
    running = RunningServer(engine).start()
    yield openai.OpenAI(base_url=running.url, api_key="unused", max_retries=0, timeout=600)
    running.stop()


def _whole(client: openai.OpenAI, **extra: object) -> openai.types.chat.ChatCompletion:
    return client.chat.completions.create(
        model="any", messages=ASK, max_tokens=80, temperature=0, extra_body=extra or None
    )  # type: ignore[call-overload]


def test_the_block_comes_back_as_reasoning_content(client: openai.OpenAI) -> None:
    reply = _whole(client)
    message = reply.choices[0].message
    reasoning = message.model_extra["reasoning_content"]
    assert "5" in reasoning and "<think>" not in reasoning and "</think>" not in reasoning
    assert message.content and "think>" not in message.content and "5" in message.content
    tokens = reply.model_extra["tandem"]["tokens"]  # the tokens still spell the whole reply, markers included
    assert "".join(t["text"] for t in tokens).startswith("<think>")


def test_streamed_deltas_add_up_to_the_same_two_texts(client: openai.OpenAI) -> None:
    whole = _whole(client).choices[0].message
    chunks = list(client.chat.completions.create(model="any", messages=ASK, max_tokens=80, temperature=0, stream=True))
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    content = "".join(d.content or "" for d in deltas)
    reasoning = "".join((d.model_extra or {}).get("reasoning_content", "") for d in deltas)
    assert content == whole.content
    assert reasoning.strip() == whole.model_extra["reasoning_content"]
    # the thinking streams before the answer: no content while reasoning_content is still coming
    last_thinking = max(i for i, d in enumerate(deltas) if (d.model_extra or {}).get("reasoning_content"))
    assert not "".join(d.content or "" for d in deltas[:last_thinking]).strip()


def test_reasoning_format_none_keeps_the_block_in_content(client: openai.OpenAI) -> None:
    message = _whole(client, reasoning_format="none").choices[0].message
    assert message.content.startswith("<think>") and "</think>" in message.content
    assert "reasoning_content" not in (message.model_extra or {})


def test_an_unknown_reasoning_format_is_a_400_naming_it(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        _whole(client, reasoning_format="sideways")
    assert "'reasoning_format' must be one of deepseek, auto, none" in str(caught.value)
