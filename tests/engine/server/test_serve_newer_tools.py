"""Tool round trips through ``/v1/responses`` and ``/v1/messages`` on the real Qwen2.5-Coder demo pair.

The small pair's template has no tool format, so these take the demo pair,
as the chat-completions tool tests do. Each API's official client sends the
request, reads the call, sends the result back in that API's own words
(``function_call_output``; a ``tool_result`` block), and the answer uses it.
Greedy sampling, so each run is the same.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai
import pytest

from app.engine.server.http import RunningServer

ASK = "What is the weather in Paris right now?"
# An unusual reading, so an answer that states it can only have come from the tool.
RESULT = '{"city": "Paris", "temperature_c": 37, "sky": "purple hail"}'
SCHEMA: Any = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
GREEDY: Any = {"temperature": 0}  # Anthropic's client has no temperature field any more; the server reads one


@pytest.fixture(scope="module")
def server(demo_server: RunningServer) -> RunningServer:
    return demo_server


def test_a_responses_call_and_its_output_round_trip(server: RunningServer) -> None:
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=900)
    tool: Any = {
        "type": "function",
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": SCHEMA,
        "strict": False,
    }
    first = client.responses.create(model="m", input=ASK, tools=[tool], temperature=0, max_output_tokens=80)
    calls = [item for item in first.output if item.type == "function_call"]
    assert len(calls) == 1 and calls[0].name == "get_weather"
    assert json.loads(calls[0].arguments)["city"].lower().startswith("paris")
    follow: Any = [
        {"role": "user", "content": ASK},
        *[item.model_dump(exclude_none=True) for item in first.output],  # the output items as a client sends them back
        {"type": "function_call_output", "call_id": calls[0].call_id, "output": RESULT},
    ]
    final = client.responses.create(
        model="m", input=follow, tools=[tool], tool_choice="none", temperature=0, max_output_tokens=80
    )
    assert not [item for item in final.output if item.type == "function_call"]
    assert "37" in final.output_text


def test_a_messages_tool_use_streamed_and_its_result_round_trip(server: RunningServer) -> None:
    client = anthropic.Anthropic(base_url=server.url.removesuffix("/v1"), api_key="unused", max_retries=0, timeout=900)
    tool: Any = {"name": "get_weather", "description": "Get the current weather in a city.", "input_schema": SCHEMA}
    ask: Any = [{"role": "user", "content": ASK}]
    with client.messages.stream(
        model="m", messages=ask, tools=[tool], tool_choice={"type": "any"}, max_tokens=80, extra_body=GREEDY
    ) as stream:
        first = stream.get_final_message()  # assembled by the client from the content-block events
    assert first.stop_reason == "tool_use"
    uses = [block for block in first.content if block.type == "tool_use"]
    assert len(uses) == 1 and uses[0].name == "get_weather"
    assert str(uses[0].input["city"]).lower().startswith("paris")
    follow: Any = [
        *ask,
        {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in first.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uses[0].id, "content": RESULT}]},
    ]
    final = client.messages.create(
        model="m", messages=follow, tools=[tool], tool_choice={"type": "none"}, max_tokens=80, extra_body=GREEDY
    )
    assert final.stop_reason == "end_turn" and [b.type for b in final.content] == ["text"]
    assert "37" in final.content[0].text  # type: ignore[union-attr]


def test_response_logprobs_go_with_the_answer_text_never_with_a_call(server: RunningServer) -> None:
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=900)
    tool: Any = {"type": "function", "name": "get_weather", "parameters": SCHEMA, "strict": False}
    asked: Any = {"include": ["message.output_text.logprobs"], "top_logprobs": 1, "temperature": 0}
    # A reply that is one call: no text, so no token is sent as text.
    with client.responses.stream(model="m", input=ASK, tools=[tool], max_output_tokens=80, **asked) as stream:
        events = list(stream)
        final = stream.get_final_response()
    assert [item.type for item in final.output] == ["function_call"]
    assert not [e for e in events if e.type.startswith("response.output_text")]
    # With tools offered, a reply in words: each delta carries exactly its own tokens, and the whole reply all of them.
    words = "First say one short sentence about Paris, then check the weather in Paris with the tool."
    with client.responses.stream(model="m", input=words, tools=[tool], max_output_tokens=80, **asked) as stream:
        deltas = [e for e in stream if e.type == "response.output_text.delta"]
    assert deltas and all("".join(lp.token for lp in d.logprobs) == d.delta for d in deltas)
    whole = client.responses.create(model="m", input=words, tools=[tool], max_output_tokens=80, **asked)
    parts = [part for item in whole.output if item.type == "message" for part in item.content]
    assert parts and all(part.type == "output_text" for part in parts)
    assert "".join(lp.token for part in parts for lp in part.logprobs or []) == whole.output_text  # type: ignore[union-attr]
