"""`tandem serve` on the real SmolLM2 pair, driven by the official `openai` client (and raw HTTP for bad input)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
PROMPT = [{"role": "user", "content": "Name three colours."}]
# A reply that goes on for hundreds of tokens, so a request is still generating when the test acts.
LONG = [{"role": "user", "content": "Write a long story about a dragon who learns to cook. Use at least 500 words."}]


def _server(small_pair: tuple[Path, Path], queue_limit: int = 8, api_key: str | None = None) -> RunningServer:
    target, draft = small_pair
    engine = ServerEngine(
        PairConfig(target, draft, DrafterKind.MODEL, n_ctx=512, n_threads=1),
        draft_length=3,  # fixed, so drafts happen on the small pair (adaptive would switch them off)
        queue_limit=queue_limit,
    )
    engine.start()
    return RunningServer(engine, api_key=api_key).start()


@pytest.fixture(scope="module")
def server(small_pair: tuple[Path, Path]) -> Iterator[RunningServer]:
    running = _server(small_pair)
    yield running
    running.stop()


@pytest.fixture
def client(server: RunningServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=600)


def test_models_lists_the_loaded_pair(client: openai.OpenAI, small_pair: tuple[Path, Path]) -> None:
    models = client.models.list().data
    assert [m.id for m in models] == [small_pair[0].stem]
    assert models[0].model_extra["tandem"]["drafter"] == "model"


def test_chat_without_streaming_has_usage_timings_and_origins(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(model="any", messages=PROMPT, max_tokens=24, temperature=0)
    text = reply.choices[0].message.content
    extra = reply.model_extra
    assert text and reply.choices[0].finish_reason in ("stop", "length")
    assert reply.usage is not None and reply.usage.completion_tokens == extra["timings"]["predicted_n"]
    tokens = extra["tandem"]["tokens"]
    assert "".join(t["text"] for t in tokens) == text
    assert len(tokens) == reply.usage.completion_tokens
    assert {t["origin"] for t in tokens} <= {"draft", "corrected", "bonus", "target"}
    assert not [t for t in tokens if "rejected" in t]  # serve sends what the reply is made of, no proposals
    assert extra["timings"]["draft_n"] == extra["tandem"]["drafted"] > 0  # a fixed K=3 drafts every step
    assert extra["timings"]["draft_n_accepted"] == extra["tandem"]["accepted"]
    assert extra["timings"]["predicted_per_second"] > 0


def test_streaming_sends_one_chunk_per_step_then_usage(client: openai.OpenAI) -> None:
    chunks = list(
        client.chat.completions.create(
            model="any",
            messages=PROMPT,
            max_tokens=24,
            temperature=0,
            stream=True,
            stream_options={"include_usage": True},
            extra_body={"timings_per_token": True},
        )
    )
    content = [c for c in chunks if c.choices and c.choices[0].delta.content]
    assert content[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    origins = [t for c in content for t in c.model_extra["tandem"]["tokens"]]
    assert "".join(t["text"] for t in origins) == text
    finals = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert len(finals) == 1 and "timings" in finals[0].model_extra
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == len(origins) == finals[0].model_extra["timings"]["predicted_n"]
    # Running counts per chunk, as llama-server's timings_per_token sends them: they only grow.
    drafted = [c.model_extra["timings"]["draft_n"] for c in content]
    assert drafted == sorted(drafted) and drafted[-1] == finals[0].model_extra["timings"]["draft_n"]


def test_greedy_streaming_and_plain_replies_agree(client: openai.OpenAI) -> None:
    plain = client.chat.completions.create(model="m", messages=PROMPT, max_tokens=16, temperature=0)
    stream = client.chat.completions.create(model="m", messages=PROMPT, max_tokens=16, temperature=0, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == plain.choices[0].message.content


def test_completions_endpoint(client: openai.OpenAI) -> None:
    reply = client.completions.create(model="m", prompt="The capital of France is", max_tokens=8, temperature=0)
    assert reply.choices[0].text and reply.usage is not None and reply.usage.completion_tokens <= 8
    stop = client.completions.create(model="m", prompt="1, 2, 3, 4,", max_tokens=16, temperature=0, stop=[","])
    assert "," not in stop.choices[0].text and stop.choices[0].finish_reason == "stop"


def test_logprobs_are_the_targets_own_streamed_and_not(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(
        model="m", messages=PROMPT, max_tokens=12, temperature=0, logprobs=True, top_logprobs=3
    )
    choice = reply.choices[0]
    assert choice.logprobs is not None and choice.logprobs.content is not None
    content = choice.logprobs.content
    assert reply.usage is not None and len(content) == reply.usage.completion_tokens
    assert b"".join(bytes(e.bytes or []) for e in content).decode() == choice.message.content
    for entry in content:
        assert len(entry.top_logprobs) == 3 and entry.logprob <= 0
        # Greedy takes the most likely token, and the log-probabilities are that same distribution's.
        assert entry.token == entry.top_logprobs[0].token and entry.logprob == entry.top_logprobs[0].logprob
        assert [t.logprob for t in entry.top_logprobs] == sorted((t.logprob for t in entry.top_logprobs), reverse=True)
    stream = client.chat.completions.create(
        model="m", messages=PROMPT, max_tokens=12, temperature=0, logprobs=True, top_logprobs=3, stream=True
    )
    streamed = [e for c in stream if c.choices and c.choices[0].logprobs for e in c.choices[0].logprobs.content or []]
    assert [(e.token, round(e.logprob, 3)) for e in streamed] == [(e.token, round(e.logprob, 3)) for e in content]
    plain = client.chat.completions.create(model="m", messages=PROMPT, max_tokens=4, temperature=0)
    assert plain.choices[0].logprobs is None  # only when asked
    legacy = client.completions.create(
        model="m", prompt="The capital of France is", max_tokens=6, temperature=0, logprobs=2
    )
    assert legacy.choices[0].logprobs is not None and legacy.choices[0].logprobs.tokens is not None
    assert "".join(legacy.choices[0].logprobs.tokens) == legacy.choices[0].text
    assert all(len(top) == 2 for top in legacy.choices[0].logprobs.top_logprobs or [])


def test_logit_bias_changes_the_greedy_reply_as_asked(client: openai.OpenAI) -> None:
    ask = {"model": "m", "messages": PROMPT, "max_tokens": 12, "temperature": 0}
    plain = client.chat.completions.create(**ask)  # type: ignore[call-overload]
    first = plain.model_extra["tandem"]["tokens"][0]
    banned = client.chat.completions.create(**ask, logit_bias={str(first["id"]): -100})  # type: ignore[call-overload]
    ids = [t["id"] for t in banned.model_extra["tandem"]["tokens"]]
    assert first["id"] not in ids and banned.choices[0].message.content != plain.choices[0].message.content
    assert banned.model_extra["tandem"]["drafted"] > 0  # drafting went on under the bias


def test_n_choices_come_one_after_another_with_their_own_index(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(model="m", messages=PROMPT, max_tokens=8, n=3, seed=5)
    assert [c.index for c in reply.choices] == [0, 1, 2]
    assert all(c.message.content for c in reply.choices)
    tokens = len(reply.model_extra["tandem"]["tokens"]) + sum(
        len((c.model_extra or {})["tandem"]["tokens"]) for c in reply.choices[1:]
    )
    assert reply.usage is not None and reply.usage.completion_tokens == tokens
    chunks = list(
        client.chat.completions.create(
            model="m", messages=PROMPT, max_tokens=8, n=2, stream=True, stream_options={"include_usage": True}
        )
    )
    ends = [c.choices[0].index for c in chunks if c.choices and c.choices[0].finish_reason]
    assert ends == [0, 1] and len({c.id for c in chunks}) == 1
    texts = [
        "".join(c.choices[0].delta.content or "" for c in chunks if c.choices and c.choices[0].index == i)
        for i in (0, 1)
    ]
    assert all(texts)
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == sum(
        len(c.model_extra["tandem"]["tokens"]) for c in chunks if c.choices
    )


def test_a_reply_the_assistant_began_is_continued(client: openai.OpenAI) -> None:
    whole = client.chat.completions.create(model="m", messages=PROMPT, max_tokens=24, temperature=0)
    text = whole.choices[0].message.content or ""
    words = text.split(" ")
    begun = " ".join(words[:3])
    assert len(words) > 4 and begun
    messages: Any = [*PROMPT, {"role": "assistant", "content": begun}]
    rest = client.chat.completions.create(model="m", messages=messages, max_tokens=8, temperature=0)
    continuation = rest.choices[0].message.content or ""
    # Only what follows the prefill, and what the model wrote after those words when it wrote them itself.
    assert continuation and not continuation.startswith(begun)
    assert text.startswith(begun + continuation.rstrip()[:10])


def test_routes_answer_without_the_v1_prefix(server: RunningServer) -> None:
    bare = openai.OpenAI(base_url=server.url.removesuffix("/v1"), api_key="unused", max_retries=0, timeout=600)
    assert [m.id for m in bare.models.list().data] == [server.engine.model_name]
    assert bare.chat.completions.create(model="m", messages=PROMPT, max_tokens=4).choices[0].message.content
    assert bare.completions.create(model="m", prompt="One, two,", max_tokens=4).choices[0].text


def test_bad_requests_get_openai_error_objects(server: RunningServer, client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="m", messages=PROMPT, temperature=-1)
    assert "temperature" in str(info.value)
    # The one range of each sampling field (app.core.decoding.sampling), refused with the field named.
    for extra, name in (({"temperature": 2.5}, "temperature"), ({"extra_body": {"top_k": -1}}, "top_k")):
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(model="m", messages=PROMPT, **extra)
        assert info.value.param == name and "must be" in info.value.message
    with pytest.raises(openai.BadRequestError, match="messages"):
        client.chat.completions.create(model="m", messages=[])
    with pytest.raises(openai.BadRequestError, match="context holds 512") as info:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "word " * 2000}])
    assert info.value.code == "context_length_exceeded"  # OpenAI's code, which clients check before trimming
    # Fields that would change what the reply means are refused with their name, never dropped.
    weather = {"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}
    with pytest.raises(openai.BadRequestError) as info:  # SmolLM2's template has no tool format: never a silent drop
        client.chat.completions.create(model="m", messages=PROMPT, tools=[weather])  # type: ignore[list-item]
    assert info.value.param == "tools" and "chat template has no tool format" in info.value.message
    result: Any = [*PROMPT, {"role": "tool", "tool_call_id": "call_1", "content": "42"}]
    with pytest.raises(openai.BadRequestError) as info:  # a tool result alone needs the format too
        client.chat.completions.create(model="m", messages=result)
    assert info.value.param == "messages" and "no tool format" in info.value.message
    refused: tuple[tuple[dict[str, Any], str], ...] = (
        ({"frequency_penalty": 0.5}, "frequency_penalty"),
        ({"extra_body": {"best_of": 2}}, "best_of"),
    )
    for extra, name in refused:
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(model="m", messages=PROMPT, **extra)
        assert info.value.param == name and "not supported" in info.value.message
    json_type = {"Content-Type": "application/json"}
    raw = httpx2.post(server.url + "/chat/completions", content=b"{not json", headers=json_type, timeout=30)
    assert raw.status_code == 400 and raw.json()["error"]["type"] == "invalid_request_error"
    assert httpx2.get(server.url + "/nothing", timeout=30).status_code == 404
    with pytest.raises(openai.BadRequestError) as info:  # an id past the vocabulary: named, not ignored
        client.chat.completions.create(model="m", messages=PROMPT, max_tokens=4, logit_bias={"10000000": 5})
    assert info.value.param == "logit_bias" and "past this model's vocabulary" in info.value.message
    # The server keeps serving after all of that.
    assert client.chat.completions.create(model="m", messages=PROMPT, max_tokens=4).choices[0].message.content


def test_two_clients_are_served_one_after_the_other(server: RunningServer) -> None:
    served_before = len(server.engine.served)
    replies: dict[int, str] = {}

    def ask(i: int) -> None:
        c = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0, timeout=600)
        replies[i] = c.chat.completions.create(model="m", messages=PROMPT, max_tokens=32).choices[0].message.content

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(replies) == 2 and all(replies.values())
    first, second = server.engine.served[served_before:]
    assert second.started >= first.finished  # never two generations at once


def test_a_client_that_disconnects_cancels_its_generation(server: RunningServer) -> None:
    served_before = len(server.engine.served)
    body = {"model": "m", "messages": LONG, "max_tokens": 400, "stream": True, "temperature": 0}
    with socket.create_connection(("127.0.0.1", int(server.url.rsplit(":", 1)[1].split("/")[0]))) as sock:
        data = json.dumps(body).encode()
        head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(data)}\r\n"
        sock.sendall(head.encode() + b"Content-Type: application/json\r\n\r\n" + data)
        received = b""
        while received.count(b"data: ") < 2:
            received += sock.recv(4096)
    deadline = time.monotonic() + 60
    while len(server.engine.served) == served_before and time.monotonic() < deadline:
        time.sleep(0.05)
    record = server.engine.served[-1]
    # Cancelled within a step or two of the disconnect, not after the 400 tokens asked for.
    assert record.reason == "cancelled" and record.tokens < 100


def test_the_api_key_is_required_when_set(small_pair: tuple[Path, Path]) -> None:
    running = _server(small_pair, api_key="sesame")
    try:
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=running.url, api_key="wrong", max_retries=0).models.list()
        good = openai.OpenAI(base_url=running.url, api_key="sesame", max_retries=0, timeout=600)
        assert good.chat.completions.create(model="m", messages=PROMPT, max_tokens=4).choices
    finally:
        running.stop()


def test_a_full_queue_answers_429_with_retry_after(small_pair: tuple[Path, Path]) -> None:
    running = _server(small_pair, queue_limit=0)
    try:
        body = {"model": "m", "messages": LONG, "max_tokens": 400, "temperature": 0, "stream": True}
        with httpx2.stream("POST", running.url + "/chat/completions", json=body, timeout=600) as busy:
            assert busy.status_code == 200  # the engine is now generating this one
            refused = httpx2.post(running.url + "/chat/completions", json=body, timeout=30)
            assert refused.status_code == 429
            assert int(refused.headers["Retry-After"]) >= 1
            assert refused.json()["error"]["type"] == "rate_limit_error"
    finally:
        running.stop()


def test_the_cli_refuses_a_public_address_without_a_key() -> None:
    done = subprocess.run(
        [sys.executable, "main.py", "serve", "--host", "0.0.0.0", "--port", "0"],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "TANDEM_API_KEY"},  # a key there would let it listen
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: refusing to listen on 0.0.0.0 without --api-key")
    assert done.stdout == ""
