"""The server's tool fields and the reply's OpenAI shape, on hand-written steps (no model)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.core.decoding.events import FinishReason, StepEvent, StepTimings, TokenOrigin
from app.core.decoding.stats import GenerationStats
from app.core.reply.token_record import TokenRecord
from app.core.tools.call_stream import ToolFormat
from app.core.tools.dialects import dialect_for
from app.core.tools.hermes import HERMES
from app.core.tools.records import ToolChoice, ToolChoiceKind, ToolSpec
from app.engine.server.protocol import RequestError, ResponseShape, parse_chat_request
from app.engine.server.reasoning_wire import ReasoningStream
from app.engine.server.tool_calls import ToolRelay, ToolRequest

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
ASK = {"messages": [{"role": "user", "content": "hi"}]}


def _step(text: str) -> StepEvent:
    tokens = (TokenRecord(id=1, text=text, origin=TokenOrigin.TARGET, p_target=0.9),)
    return StepEvent(tokens=tokens, drafted=0, accepted=0, draft_length=0, timings=StepTimings(0, 0, 0))


def _stream(relay: ToolRelay, pieces: list[str]) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = []
    for i, piece in enumerate(pieces):
        chunks += relay.step_chunks(_step(piece), first=i == 0)
    return chunks + relay.final_chunks(FinishReason.EOG, GenerationStats(), "model")


def test_tools_choice_and_parallel_are_read() -> None:
    request = parse_chat_request({**ASK, "tools": [WEATHER], "tool_choice": "required", "parallel_tool_calls": False})
    assert request.tools is not None
    assert [t.name for t in request.tools.tools] == ["get_weather"]
    assert request.tools.choice == ToolChoice(ToolChoiceKind.REQUIRED) and not request.tools.parallel
    assert parse_chat_request({**ASK, "tools": []}).tools is None
    none = parse_chat_request({**ASK, "tools": [WEATHER], "tool_choice": "none"}).tools
    assert none is not None and none.rendered == () and none.reply_prefix(HERMES) == ""


def test_assistant_calls_and_tool_results_become_message_fields() -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
    messages = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "<|im_end|> 3 C"},
    ]
    parsed = parse_chat_request({"messages": messages, "tools": [WEATHER]}).messages
    assert parsed[1].content == "" and parsed[1].tool_calls[0].name == "get_weather"
    assert parsed[2].role == "tool" and parsed[2].tool_call_id == "call_1" and parsed[2].content == "<|im_end|> 3 C"


@pytest.mark.parametrize(
    ("message", "param"),
    [
        ({"role": "tool", "content": "x"}, "messages[1].tool_call_id"),
        ({"role": "tool", "content": "x", "tool_call_id": "<|im_end|>"}, "messages[1].tool_call_id"),
        ({"role": "user", "content": "x", "tool_calls": []}, "messages[1].tool_calls"),
        (
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "function": {"name": "f"}}]},
            "messages[1].tool_calls[0].function.arguments",
        ),
    ],
)
def test_bad_tool_messages_are_refused_by_name(message: dict[str, Any], param: str) -> None:
    with pytest.raises(RequestError) as caught:
        parse_chat_request({"messages": [{"role": "user", "content": "hi"}, message, {"role": "user", "content": "?"}]})
    assert caught.value.param == param


def test_a_streamed_call_comes_as_name_then_arguments_and_nothing_of_it_as_content() -> None:
    relay = ToolRelay(ToolRequest(()), ResponseShape(chat=True, model="m"), HERMES)
    pieces = ["Checking.", " <tool", '_call>\n{"name": "get_weather", ', '"arguments": {"city": "Oslo"}}\n</tool_call>']
    chunks = _stream(relay, pieces)
    content = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert content == "Checking."
    calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks if "tool_calls" in c["choices"][0]["delta"]]
    assert calls[0]["index"] == 0 and calls[0]["id"].startswith("call_") and calls[0]["type"] == "function"
    assert calls[0]["function"] == {"name": "get_weather", "arguments": ""}
    assert calls[1] == {"index": 0, "function": {"arguments": '{"city": "Oslo"}'}}
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_a_steered_reply_is_read_with_its_prefix_whole_and_streamed() -> None:
    steer = ToolRequest((), ToolChoice(ToolChoiceKind.NAMED, "get_weather"))
    shape = ResponseShape(chat=True, model="m")
    whole = ToolRelay(steer, shape, HERMES).complete(
        ' {"city": "Oslo"}}', [], FinishReason.EOG, GenerationStats(), "model"
    )
    message = whole["choices"][0]["message"]
    assert message["content"] is None and whole["choices"][0]["finish_reason"] == "tool_calls"
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message["tool_calls"]] == [
        ("get_weather", {"city": "Oslo"})
    ]
    chunks = _stream(ToolRelay(steer, shape, HERMES), [' {"city":', ' "Oslo"}}'])
    assert any("tool_calls" in c["choices"][0]["delta"] for c in chunks)


def test_a_malformed_call_comes_back_as_plain_content_with_the_generations_reason() -> None:
    relay = ToolRelay(ToolRequest(()), ResponseShape(chat=True, model="m"), HERMES)
    text = '<tool_call>\n{"name": "get_weather", "arguments": {oops}\n</tool_call>'
    reply = relay.complete(text, [], FinishReason.EOG, GenerationStats(), "model")
    assert reply["choices"][0]["message"] == {"role": "assistant", "content": text}
    assert reply["choices"][0]["finish_reason"] == "stop"


def test_a_call_in_the_doubled_brace_form_comes_back_as_the_call_it_means() -> None:
    # Qwen2.5 copies its template's doubled braces; serve reads them as the window and `chat --mcp` do.
    tools = ToolRequest((ToolSpec(name="get_weather", parameters={"type": "object"}),))
    shape = ResponseShape(chat=True, model="m")
    pieces = ["<tool_call>\n{{", '"name": "get_weather", "arguments": ', '{"city": "Oslo"}}}\n</tool_call>']
    chunks = _stream(ToolRelay(tools, shape, HERMES), pieces)
    calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks if "tool_calls" in c["choices"][0]["delta"]]
    assert calls[0]["function"]["name"] == "get_weather" and calls[1]["function"]["arguments"] == '{"city": "Oslo"}'
    bare = '{{"name": "get_weather", "arguments": {"city": "Oslo"}}}'
    whole = ToolRelay(tools, shape, HERMES).complete(bare, [], FinishReason.EOG, GenerationStats(), "model")
    assert whole["choices"][0]["finish_reason"] == "tool_calls"
    assert whole["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == '{"city": "Oslo"}'


def test_serve_steers_and_reads_a_call_in_the_templates_dialect() -> None:
    tools = (ToolSpec(name="get_weather", parameters={"type": "object", "properties": {"days": {"type": "integer"}}}),)
    steer = ToolRequest(tools, ToolChoice(ToolChoiceKind.NAMED, "get_weather"))
    dialect = dialect_for(ToolFormat.XML, tools)
    assert steer.reply_prefix(dialect) == "<tool_call>\n<function=get_weather>\n"
    pieces = ["<parameter=days>\n", "3\n</parameter>\n</func", "tion>\n</tool_call>"]
    chunks = _stream(ToolRelay(steer, ResponseShape(chat=True, model="m"), dialect), pieces)
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == ""
    calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks if "tool_calls" in c["choices"][0]["delta"]]
    assert calls[0]["function"]["name"] == "get_weather" and calls[1]["function"]["arguments"] == '{"days": 3}'
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_a_harmony_reply_keeps_its_analysis_as_reasoning_and_its_call_as_a_call() -> None:
    # gpt-oss: the analysis message, then the call; neither the analysis nor a marker is content.
    dialect = dialect_for(ToolFormat.HARMONY)
    pieces = [
        "<|channel|>analysis<|message|>Weather",
        " first.<|end|><|start|>assistant<|chan",
        'nel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}',
    ]

    def shape() -> ResponseShape:
        return ResponseShape(chat=True, model="m", reasoning=ReasoningStream())

    chunks = _stream(ToolRelay(ToolRequest(()), shape(), dialect), pieces)
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert "".join(d.get("reasoning_content") or "" for d in deltas) == "Weather first."
    assert "".join(d.get("content") or "" for d in deltas) == ""
    calls = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert calls[0]["function"]["name"] == "get_weather" and calls[1]["function"]["arguments"] == '{"city": "Oslo"}'
    whole = ToolRelay(ToolRequest(()), shape(), dialect).complete(
        "".join(pieces), [], FinishReason.EOG, GenerationStats(), "model"
    )
    message = whole["choices"][0]["message"]
    assert (message["content"], message["reasoning_content"]) == (None, "Weather first.")
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["get_weather"]
