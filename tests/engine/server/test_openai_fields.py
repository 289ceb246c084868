"""OpenAI's n, logit_bias, logprobs, an assistant prefill, the overflow's code and the un-prefixed routes; no model."""

from __future__ import annotations

from typing import Any

import pytest

from app.core.decoding.events import FinishReason
from app.core.decoding.logprobs import TokenChoice, TokenLogprobs
from app.core.decoding.stats import GenerationStats
from app.engine.server.http import api_path
from app.engine.server.protocol import (
    CONTEXT_LENGTH_EXCEEDED,
    RequestError,
    ResponseShape,
    merged_choices,
    parse_chat_request,
    parse_completion_request,
)

ASK = {"messages": [{"role": "user", "content": "hi"}]}


def _refused(body: dict[str, Any], chat: bool = True) -> RequestError:
    with pytest.raises(RequestError) as caught:
        parse_chat_request(body) if chat else parse_completion_request(body)
    return caught.value


def test_n_choices_each_with_its_own_seed() -> None:
    assert parse_chat_request(ASK).n == 1
    request = parse_chat_request({**ASK, "n": 3, "seed": 7})
    assert request.n == 3
    assert [request.for_choice(i).params.seed for i in range(3)] == [7, 8, 9]
    assert parse_chat_request({**ASK, "n": 2}).for_choice(1).params.seed is None  # random stays random
    assert parse_chat_request({**ASK, "n": 2, "seed": 2**63 - 1}).for_choice(1).params.seed == 0
    for bad in (0, 129, True, "2", 1.5):
        error = _refused({**ASK, "n": bad})
        assert error.param == "n" and "from 1 to 128" in error.message


def test_logit_bias_reads_token_ids_and_bounded_values() -> None:
    params = parse_chat_request({**ASK, "logit_bias": {"50": -100, "7": 2.5, " 3": 100}}).params
    assert params.logit_bias == ((3, 100.0), (7, 2.5), (50, -100.0))
    assert parse_completion_request({"prompt": "x", "logit_bias": {"1": 1}}).params.logit_bias == ((1, 1.0),)
    assert parse_chat_request({**ASK, "logit_bias": None}).params.logit_bias == ()
    for bad in (
        {"a": 1},
        {"-1": 1},
        {"1.5": 1},
        {"1": 100.5},
        {"1": "1"},
        {"1": True},
        {"1": None},
        [1],
        {"01": 1, "1": 2},
    ):
        error = _refused({**ASK, "logit_bias": bad})
        assert error.param == "logit_bias" and error.message.startswith("'logit_bias'")


def test_chat_logprobs_and_top_logprobs() -> None:
    assert parse_chat_request(ASK).top_logprobs is None
    assert parse_chat_request({**ASK, "logprobs": False}).top_logprobs is None
    assert parse_chat_request({**ASK, "logprobs": True}).top_logprobs == 0
    assert parse_chat_request({**ASK, "logprobs": True, "top_logprobs": 20}).top_logprobs == 20
    assert _refused({**ASK, "logprobs": 1}).param == "logprobs"  # 1 is not true on this endpoint
    for bad in (21, -1, 2.0, True):
        assert _refused({**ASK, "logprobs": True, "top_logprobs": bad}).param == "top_logprobs"
    error = _refused({**ASK, "top_logprobs": 2})
    assert error.param == "top_logprobs" and "needs 'logprobs': true" in error.message


def test_completions_logprobs_is_the_legacy_count() -> None:
    assert parse_completion_request({"prompt": "x", "logprobs": 5}).top_logprobs == 5
    assert parse_completion_request({"prompt": "x", "logprobs": 0}).top_logprobs == 0
    assert parse_completion_request({"prompt": "x"}).top_logprobs is None
    for bad in (6, True, "2"):
        assert _refused({"prompt": "x", "logprobs": bad}, chat=False).param == "logprobs"


def test_a_conversation_ending_with_the_assistant_is_continued() -> None:
    prefill = {"messages": [*ASK["messages"], {"role": "assistant", "content": "Hello! I"}]}
    request = parse_chat_request(prefill)
    assert request.continues_reply and request.messages[-1].content == "Hello! I"
    assert not parse_chat_request(ASK).continues_reply
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    calling = {"messages": [*ASK["messages"], {"role": "assistant", "content": None, "tool_calls": [call]}]}
    error = _refused(calling)
    assert error.param == "messages" and "text only" in error.message


def test_the_overflow_error_carries_openais_code() -> None:
    body = RequestError("too long", param="messages", code=CONTEXT_LENGTH_EXCEEDED).body()
    assert body["error"]["code"] == "context_length_exceeded" and body["error"]["param"] == "messages"
    assert RequestError("bad").body()["error"]["code"] is None


@pytest.mark.parametrize(
    ("raw", "route"),
    [
        ("/chat/completions", "/v1/chat/completions"),
        ("/completions?x=1", "/v1/completions"),
        ("/models/", "/v1/models"),
        ("/v1/models", "/v1/models"),
        ("/health", "/health"),
        ("/v1/health", "/v1/health"),
        ("/nothing", "/v1/nothing"),
    ],
)
def test_routes_without_the_v1_prefix_answer_as_the_v1_ones(raw: str, route: str) -> None:
    assert api_path(raw) == route


def _entry(token: int, piece: bytes, logprob: float, *top: tuple[int, bytes, float]) -> TokenLogprobs:
    return TokenLogprobs(TokenChoice(token, piece, logprob), tuple(TokenChoice(*t) for t in top))


def test_logprobs_in_openais_chat_and_legacy_shapes() -> None:
    entries = [_entry(1, b"Hi", -0.1, (1, b"Hi", -0.1), (2, b"Yo", -2.5)), _entry(3, b"\xe2\x80", -1.0)]
    chat = ResponseShape(chat=True, model="m", top_logprobs=2)
    assert chat.logprobs(entries) == {
        "content": [
            {
                "token": "Hi",
                "logprob": -0.1,
                "bytes": [72, 105],
                "top_logprobs": [
                    {"token": "Hi", "logprob": -0.1, "bytes": [72, 105]},
                    {"token": "Yo", "logprob": -2.5, "bytes": [89, 111]},
                ],
            },
            {"token": "\ufffd", "logprob": -1.0, "bytes": [226, 128], "top_logprobs": []},  # half a character
        ],
        "refusal": None,
    }
    assert ResponseShape(chat=True, model="m").logprobs(entries) is None  # not asked
    legacy = ResponseShape(chat=False, model="m", top_logprobs=2)
    first = legacy.logprobs(entries[:1])
    assert first == {
        "tokens": ["Hi"],
        "token_logprobs": [-0.1],
        "top_logprobs": [{"Hi": -0.1, "Yo": -2.5}],
        "text_offset": [0],
    }
    assert legacy.logprobs(entries[1:])["text_offset"] == [2]  # type: ignore[index]  # offsets run on over chunks


def test_n_choices_share_the_response_and_sum_the_completion_tokens() -> None:
    shape = ResponseShape(chat=True, model="m")
    runs = [GenerationStats(prompt_tokens=10), GenerationStats(prompt_tokens=10)]
    runs[0].emitted, runs[1].emitted = 4, 6
    replies = [shape.for_choice(i).complete(f"r{i}", [], FinishReason.EOG, runs[i], "model") for i in range(2)]
    merged = merged_choices(replies, runs)
    assert [c["index"] for c in merged["choices"]] == [0, 1]
    assert [c["message"]["content"] for c in merged["choices"]] == ["r0", "r1"]
    assert merged["id"] == shape.id and replies[1]["id"] == shape.id
    assert merged["usage"]["completion_tokens"] == 10 and merged["usage"]["prompt_tokens"] == 10
    assert merged["usage"]["total_tokens"] == 20
    assert "tandem" in merged["choices"][1]  # the other choices' token records ride with them
    usage = shape.usage_chunk(runs)["usage"]
    assert usage["completion_tokens"] == 10
