"""The server's request parsing against the one sampling-field table, and its finish reasons; no model needed."""

from __future__ import annotations

from typing import Any

import pytest

from app.core.decoding.events import FinishReason
from app.core.decoding.sampling import MAX_TOKENS, MIN_P, REPEAT_PENALTY, SEED, TEMPERATURE, TOP_K, TOP_P
from app.core.decoding.stats import GenerationStats
from app.engine.server.protocol import (
    RequestError,
    ResponseShape,
    finish_reason,
    parse_chat_request,
    parse_completion_request,
)

ASK = {"messages": [{"role": "user", "content": "hi"}]}
FIELDS = [TEMPERATURE, TOP_K, TOP_P, MIN_P, REPEAT_PENALTY, SEED, MAX_TOKENS]


def test_an_empty_request_takes_every_fields_default() -> None:
    request = parse_chat_request(ASK)
    params = request.params
    assert request.max_tokens is None  # no limit: the reply may fill the context, as OpenAI reads it
    assert params.temperature == 0.8 and not params.greedy  # sampled, as llama-server by default
    assert (params.temperature, params.top_k, params.top_p, params.min_p, params.repeat_penalty) == (
        TEMPERATURE.default,
        TOP_K.default,
        TOP_P.default,
        MIN_P.default,
        REPEAT_PENALTY.default,
    )
    assert params.seed is None  # SEED's default, -1, is a fresh random seed
    nulls = parse_completion_request({"prompt": "x", **dict.fromkeys(f.name for f in FIELDS)})
    assert nulls.params == params and nulls.max_tokens is None  # null means "not given", as in OpenAI's clients


@pytest.mark.parametrize("spec", FIELDS, ids=lambda s: s.name)
def test_each_fields_range_is_the_tables(spec: Any) -> None:
    for edge in (spec.minimum, spec.maximum):
        parse_chat_request({**ASK, spec.name: edge})
    step = 1 if spec.kind == "int" else 0.001
    for bad in (spec.minimum - step, spec.maximum + step, "1", True):
        with pytest.raises(RequestError) as info:
            parse_chat_request({**ASK, spec.name: bad})
        error = info.value
        assert error.status == 400 and error.param == spec.name
        assert error.message.startswith(f"'{spec.name}' must be {spec.range_text()}")
        assert error.body()["error"]["param"] == spec.name


def test_values_arrive_in_sampling_params() -> None:
    body = {**ASK, "temperature": 2, "top_k": 5, "top_p": 0, "min_p": 1, "repeat_penalty": 1.5, "seed": 7}
    params = parse_chat_request(body).params
    assert (params.temperature, params.top_k, params.top_p, params.min_p, params.repeat_penalty, params.seed) == (
        2.0,
        5,
        0.0,
        1.0,
        1.5,
        7,
    )
    assert isinstance(params.temperature, float)
    assert parse_chat_request({**ASK, "seed": -1}).params.seed is None  # llama-server's "random"


def test_max_completion_tokens_wins_and_is_named_when_wrong() -> None:
    assert parse_chat_request({**ASK, "max_tokens": 10, "max_completion_tokens": 20}).max_tokens == 20
    assert parse_chat_request({**ASK, "max_tokens": 10, "max_completion_tokens": None}).max_tokens == 10
    with pytest.raises(RequestError) as info:
        parse_chat_request({**ASK, "max_completion_tokens": 0})
    assert info.value.param == "max_completion_tokens" and "'max_completion_tokens' must be" in info.value.message


@pytest.mark.parametrize(
    ("reason", "word"),
    [(FinishReason.EOG, "stop"), (FinishReason.CONTEXT_FULL, "length"), (FinishReason.MAX_TOKENS, "length")],
)
def test_responses_carry_the_enums_own_finish_reason(reason: FinishReason, word: str) -> None:
    stats = GenerationStats()
    assert finish_reason(reason) == word
    for chat in (True, False):
        shape = ResponseShape(chat=chat, model="m")
        assert shape.complete("x", [], reason, stats, "model")["choices"][0]["finish_reason"] == word
        assert shape.final_chunk(reason, stats, "model")["choices"][0]["finish_reason"] == word


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("functions", [{"name": "f"}]),  # the deprecated form of tools
        ("function_call", {"name": "f"}),
        ("presence_penalty", 0.3),
        ("best_of", 2),
        ("echo", True),
        ("suffix", "end"),
    ],
)
def test_a_field_that_changes_the_replys_meaning_is_refused_by_name(field: str, value: Any) -> None:
    with pytest.raises(RequestError) as caught:
        parse_chat_request({**ASK, field: value})
    assert caught.value.param == field and "not supported" in str(caught.value)


def test_the_inert_values_of_those_fields_are_accepted() -> None:
    inert = {
        "tools": [],
        "tool_choice": "none",
        "response_format": {"type": "text"},
        "logprobs": False,
        "logit_bias": {},
        "presence_penalty": 0,
        "frequency_penalty": 0.0,
        "echo": False,
    }
    assert parse_chat_request({**ASK, **inert}).messages[0].content == "hi"
