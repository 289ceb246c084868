"""What `serve` does with the fields a client leaves out, seen through the official `openai` client.

A request without ``temperature`` samples at the default (0.8, as llama-server),
and one without ``max_tokens`` or ``max_completion_tokens`` may fill the context
(OpenAI's meaning), not a fixed 512. The real SmolLM2 pair, a context of 768 (a
multiple of 256, which llama.cpp keeps as asked) so that the context's end lies past 512.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine

N_CTX = 768
PROMPT = [{"role": "user", "content": "Write a short poem about the sea."}]
# A raw prompt the small target continues greedily for as long as it may: it counts on.
COUNTING = "1, 2, 3, 4, 5, 6, 7, 8,"


@pytest.fixture(scope="module")
def server(small_pair: tuple[Path, Path]) -> Iterator[RunningServer]:
    target, draft = small_pair
    engine = ServerEngine(PairConfig(target, draft, DrafterKind.MODEL, n_ctx=N_CTX, n_threads=1), draft_length=3)
    engine.start()
    running = RunningServer(engine).start()
    yield running
    running.stop()


@pytest.fixture
def client(server: RunningServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=600)


def _p_targets(reply: object) -> list[float]:
    extra = getattr(reply, "model_extra", None) or {}
    return [float(t["p_target"]) for t in extra["tandem"]["tokens"]]


def test_a_request_without_temperature_is_sampled_and_temperature_0_is_greedy(client: openai.OpenAI) -> None:
    sampled = client.chat.completions.create(model="m", messages=PROMPT, max_tokens=24, seed=7)
    greedy = client.chat.completions.create(model="m", messages=PROMPT, max_tokens=24, seed=7, temperature=0)
    # Greedy: every distribution is one token, so each token the reply holds had p_target 1.
    assert _p_targets(greedy) and all(p == 1.0 for p in _p_targets(greedy))
    # Sampled at 0.8 with top-k 40, top-p 0.95, min-p 0.05: some token was one of several candidates.
    assert any(p < 0.99 for p in _p_targets(sampled))


def test_a_request_without_a_token_limit_runs_to_the_context_end(client: openai.OpenAI) -> None:
    reply = client.completions.create(model="m", prompt=COUNTING, temperature=0)
    usage = reply.usage
    assert usage is not None
    assert usage.completion_tokens == N_CTX - usage.prompt_tokens > 512  # the room left, not 512
    assert reply.choices[0].finish_reason == "length"
    limited = client.completions.create(model="m", prompt=COUNTING, temperature=0, max_tokens=20)
    assert limited.usage is not None and limited.usage.completion_tokens == 20
    assert limited.choices[0].finish_reason == "length"
