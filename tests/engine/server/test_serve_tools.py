"""Tool calls through ``tandem serve`` on the real Qwen2.5-Coder demo pair, driven by the official ``openai`` client.

The function is called with valid JSON arguments, its result goes back as a
``tool`` message, and the final answer uses it; streamed calls are assembled
by the client's own stream helper. Greedy sampling, so each run is the same.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from app.engine.server.http import RunningServer

WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
ASK: Any = [{"role": "user", "content": "What is the weather in Paris right now?"}]
# An unusual reading, so an answer that states it can only have come from the tool.
RESULT = '{"city": "Paris", "temperature_c": 37, "sky": "purple hail"}'


@pytest.fixture(scope="module")
def server(demo_server: RunningServer) -> RunningServer:
    return demo_server


@pytest.fixture
def client(server: RunningServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=900)


def test_a_function_is_called_its_result_sent_back_and_the_answer_uses_it(client: openai.OpenAI) -> None:
    # "auto": the demo pair's small coder model writes the call as a fenced JSON block rather than in its
    # template's tags, which is read as a call (app.core.tools.reader). Then "none": given the result, it answers
    # (left to choose, this model calls again).
    first = client.chat.completions.create(model="m", messages=ASK, tools=[WEATHER], temperature=0, max_tokens=80)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls or []
    assert len(calls) == 1 and calls[0].type == "function"
    call = calls[0]
    assert call.function.name == "get_weather"  # type: ignore[union-attr]
    assert json.loads(call.function.arguments)["city"].lower().startswith("paris")  # type: ignore[union-attr]
    assert call.id.startswith("call_")
    follow: Any = [
        *ASK,
        choice.message.model_dump(exclude_none=True),  # the assistant turn as the client sends it back
        {"role": "tool", "tool_call_id": call.id, "content": RESULT},
    ]
    final = client.chat.completions.create(
        model="m", messages=follow, tools=[WEATHER], tool_choice="none", temperature=0, max_tokens=80
    )
    answer = final.choices[0]
    assert answer.finish_reason == "stop" and not answer.message.tool_calls
    assert "37" in (answer.message.content or "")


def test_a_streamed_call_is_assembled_by_the_official_client(client: openai.OpenAI) -> None:
    with client.chat.completions.stream(
        model="m", messages=ASK, tools=[WEATHER], tool_choice="required", temperature=0, max_tokens=80
    ) as stream:
        deltas = [e for e in stream if e.type == "tool_calls.function.arguments.delta"]
        done = stream.get_final_completion()
    assert deltas  # the arguments came as their own deltas
    choice = done.choices[0]
    assert not choice.message.content  # nothing of the call leaked into the content
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls or []
    assert [c.function.name for c in calls] == ["get_weather"]  # type: ignore[union-attr]
    assert isinstance(json.loads(calls[0].function.arguments), dict)  # type: ignore[union-attr]


def test_a_named_choice_calls_that_function_and_none_calls_nothing(client: openai.OpenAI) -> None:
    clock: Any = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}}
    named: Any = {"type": "function", "function": {"name": "get_time"}}
    reply = client.chat.completions.create(
        model="m", messages=ASK, tools=[WEATHER, clock], tool_choice=named, temperature=0, max_tokens=60
    )
    calls = reply.choices[0].message.tool_calls or []
    assert [c.function.name for c in calls] == ["get_time"]  # type: ignore[union-attr]
    plain = client.chat.completions.create(
        model="m", messages=ASK, tools=[WEATHER], tool_choice="none", temperature=0, max_tokens=30
    )
    assert plain.choices[0].message.tool_calls is None and plain.choices[0].message.content


def test_bad_tool_fields_are_refused_by_name(client: openai.OpenAI) -> None:
    bad: tuple[tuple[dict[str, Any], str], ...] = (
        ({"tools": [{"type": "function", "function": {"name": "no spaces"}}]}, "tools[0].function.name"),
        ({"tools": [WEATHER], "tool_choice": {"type": "function", "function": {"name": "other"}}}, "tool_choice"),
        ({"tool_choice": "required"}, "tool_choice"),
        ({"tools": [WEATHER], "parallel_tool_calls": "yes"}, "parallel_tool_calls"),
    )
    for extra, name in bad:
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(model="m", messages=ASK, **extra)
        assert info.value.param == name
    broken: Any = [
        *ASK,
        {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{"}}]},
    ]
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="m", messages=broken)
    assert info.value.param == "messages[1].tool_calls[0].function.arguments"
