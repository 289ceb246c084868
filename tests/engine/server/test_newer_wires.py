"""The Responses and Messages APIs without a model: request bodies read, replies written in the documented shapes.

Every event and object the wires write is validated against the official
clients' own types (``openai.types.responses``, ``anthropic.types``), which
are generated from each API's published specification.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic.types as claude_types
import openai.types.responses as oai_types
import pytest
from pydantic import TypeAdapter

from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent, StepTimings, TokenOrigin
from app.core.decoding.stats import GenerationStats
from app.core.reply.token_record import TokenRecord
from app.core.tools.call_stream import ToolFormat
from app.core.tools.dialects import dialect_for
from app.core.tools.records import ToolChoiceKind
from app.engine.server.messages_api import MessagesWire, messages_error, parse_messages_request
from app.engine.server.protocol import RequestError
from app.engine.server.responses_api import ResponsesWire, parse_responses_request
from app.engine.server.wire import ServerEvent

FUNCTION = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}, "strict": False}
CUSTOM = {"name": "get_weather", "description": "Weather now.", "input_schema": {"type": "object"}}
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
STATS = GenerationStats(steps=3, emitted=3, prompt_tokens=11)
RESPONSE_EVENT: TypeAdapter[Any] = TypeAdapter(oai_types.ResponseStreamEvent)
MESSAGE_EVENT: TypeAdapter[Any] = TypeAdapter(claude_types.RawMessageStreamEvent)


def _step(text: str) -> StepEvent:
    tokens = (TokenRecord(id=1, text=text, origin=TokenOrigin.TARGET, p_target=0.9),)
    return StepEvent(tokens=tokens, drafted=0, accepted=0, draft_length=0, timings=StepTimings(0, 0, 0))


def _run(wire: ResponsesWire | MessagesWire, pieces: list[str], reason: FinishReason) -> list[ServerEvent]:
    events = wire.accepted(11, False)
    for piece in pieces:
        events += wire.step(_step(piece))
    return events + wire.closing(FinishedEvent(reason, "".join(pieces), STATS))


# -- reading /v1/responses --------------------------------------------------------------------


def test_responses_input_items_become_the_chat_turns() -> None:
    request = parse_responses_request(
        {
            "instructions": "Be brief.",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}'},
                {"type": "function_call", "call_id": "call_2", "name": "get_weather", "arguments": '{"city": "Lyon"}'},
                {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
                {
                    "type": "function_call_output",
                    "call_id": "call_2",
                    "output": [{"type": "input_text", "text": "rain"}],
                },
            ],
            "tools": [FUNCTION],
            "tool_choice": {"type": "function", "name": "get_weather"},
            "max_output_tokens": 7,
            "temperature": 0.2,
        }
    )
    assert [m.role for m in request.messages] == ["system", "user", "assistant", "tool", "tool"]
    assert request.messages[0].content == "Be brief."
    assert [c.id for c in request.messages[2].tool_calls] == ["call_1", "call_2"]  # one turn, two calls
    assert [(m.tool_call_id, m.content) for m in request.messages[3:]] == [("call_1", "sunny"), ("call_2", "rain")]
    assert request.tools is not None and request.tools.choice.kind is ToolChoiceKind.NAMED
    assert request.max_tokens == 7 and request.params.temperature == 0.2 and request.chat


def test_responses_text_format_is_the_schema_the_grammar_holds() -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    text = {"format": {"type": "json_schema", "name": "verdict", "schema": schema, "strict": True}}
    request = parse_responses_request({"input": "Is it?", "text": text})
    assert request.output_format is not None and request.output_format.schema == schema
    assert parse_responses_request({"input": "hi", "text": {"format": {"type": "text"}}}).output_format is None


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"input": "hi", "previous_response_id": "resp_1"}, "previous_response_id"),
        ({"input": "hi", "conversation": "conv_1"}, "conversation"),
        ({"input": ""}, "input"),
        ({"input": [{"type": "web_search_call"}]}, "input[0].type"),
        ({"input": [{"role": "tool", "content": "x"}]}, "input[0].role"),
        ({"input": "hi", "tools": [{"type": "file_search"}]}, "tools[0].type"),
        ({"input": "hi", "top_logprobs": 21}, "top_logprobs"),
        ({"input": "hi", "include": "message.output_text.logprobs"}, "include"),
        ({"input": "hi", "instructions": 3}, "instructions"),
    ],
)
def test_responses_refusals_name_the_field(body: dict[str, Any], named: str) -> None:
    with pytest.raises(RequestError) as refused:
        parse_responses_request(body)
    assert refused.value.param == named and refused.value.status == 400


# -- reading /v1/messages ---------------------------------------------------------------------


def test_messages_blocks_become_the_chat_turns() -> None:
    request = parse_messages_request(
        {
            "system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Use tools."}],
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "call it", "signature": "s"},
                        {"type": "text", "text": "Checking."},
                        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "down", "is_error": True},
                        {"type": "text", "text": "Try again?"},
                    ],
                },
            ],
            "tools": [CUSTOM],
            "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
            "stop_sequences": ["a", "b", "c", "d", "e"],  # more than OpenAI's four
            "max_tokens": 9,
        }
    )
    assert [m.role for m in request.messages] == ["system", "user", "assistant", "tool", "user"]
    assert request.messages[0].content == "Be brief.\n\nUse tools."
    assistant = request.messages[2]
    assert assistant.content == "Checking." and json.loads(assistant.tool_calls[0].arguments) == {"city": "Paris"}
    assert request.messages[3].tool_call_id == "toolu_1" and request.messages[3].content == "Error: down"
    assert request.tools is not None and request.tools.choice.kind is ToolChoiceKind.REQUIRED
    assert not request.tools.parallel and request.tools.tools[0].description == "Weather now."
    assert request.stop == ("a", "b", "c", "d", "e") and request.max_tokens == 9 and not request.count_only


def test_messages_output_config_is_the_schema_the_grammar_holds() -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    body = {"max_tokens": 9, "messages": [{"role": "user", "content": "Is it?"}]}
    request = parse_messages_request({**body, "output_config": {"format": {"type": "json_schema", "schema": schema}}})
    assert request.output_format is not None and request.output_format.schema == schema
    with pytest.raises(RequestError, match="mcp_servers"):
        parse_messages_request({**body, "mcp_servers": [{"type": "url", "url": "https://example.invalid"}]})


def test_count_tokens_needs_no_max_tokens_and_generates_nothing() -> None:
    request = parse_messages_request({"messages": [{"role": "user", "content": "hi"}]}, counting=True)
    assert request.count_only and not request.stream


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"messages": [{"role": "user", "content": "hi"}]}, "'max_tokens' is required"),
        ({"max_tokens": 4, "messages": []}, "'messages' must be a non-empty list"),
        ({"max_tokens": 4, "messages": [{"role": "system", "content": "x"}]}, "role' user or assistant"),
        ({"max_tokens": 4, "messages": [{"role": "user", "content": [{"type": "image"}]}]}, "text only"),
        ({"max_tokens": 4, "messages": [{"role": "user", "content": "x"}], "thinking": {"type": "on"}}, "thinking"),
        (
            {"max_tokens": 4, "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "bash_20250124"}]},
            "custom",
        ),
        ({"max_tokens": 4, "messages": [{"role": "user", "content": "x"}], "stop_sequences": [" "]}, "stop_sequences"),
    ],
)
def test_messages_refusals_say_what_is_wrong(body: dict[str, Any], words: str) -> None:
    with pytest.raises(RequestError, match=words):
        parse_messages_request(body)


def test_a_refusal_in_anthropics_shape() -> None:
    assert messages_error(RequestError("no", 429)) == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "no"},
    }
    assert messages_error(RequestError("bug", 500))["error"]["type"] == "api_error"


# -- writing /v1/responses --------------------------------------------------------------------


def test_a_streamed_response_is_typed_events_in_order_with_every_token() -> None:
    request = parse_responses_request({"input": "hi", "tools": [FUNCTION], "stream": True})
    wire = ResponsesWire(request, "m", "model")
    events = _run(wire, ["<think>hmm", "</think>", "Let me check. ", CALL], FinishReason.EOG)
    for event in events:
        typed = RESPONSE_EVENT.validate_python(event.data)
        assert typed.type == event.name
    kinds = [e.name for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert [e.data["sequence_number"] for e in events] == list(range(len(events)))
    assert "".join(e.data["delta"] for e in events if e.name == "response.reasoning_text.delta") == "hmm"
    text = "".join(e.data["delta"] for e in events if e.name == "response.output_text.delta")
    assert text == "Let me check."  # the space before a call is layout, as chat completions leave it out
    final = oai_types.Response.model_validate(events[-1].data["response"])
    assert [item.type for item in final.output] == ["reasoning", "message", "function_call"]
    added = [e.data["output_index"] for e in events if e.name == "response.output_item.added"]
    assert added == [0, 1, 2]
    call = final.output[2]
    assert isinstance(call, oai_types.ResponseFunctionToolCall)
    assert call.name == "get_weather" and json.loads(call.arguments) == {"city": "Paris"}
    carried = [t for e in events for t in e.data.get("tandem", {}).get("tokens", [])]
    assert len(carried) == 4  # each step's token once, held text's tokens on a later event


def test_a_response_cut_by_the_limit_is_incomplete() -> None:
    wire = ResponsesWire(parse_responses_request({"input": "hi"}), "m", "model")
    events = _run(wire, ["Once", " upon"], FinishReason.MAX_TOKENS)
    assert events[-1].name == "response.incomplete"
    final = oai_types.Response.model_validate(events[-1].data["response"])
    assert final.status == "incomplete" and final.incomplete_details is not None
    assert final.output_text == "Once upon"


def test_a_whole_response_is_a_response_object() -> None:
    wire = ResponsesWire(parse_responses_request({"input": "hi", "tools": [FUNCTION]}), "m", "model")
    wire.accepted(11, False)
    tokens = [_step("x").tokens[0]]
    whole = wire.whole(FinishedEvent(FinishReason.EOG, "<think>hm</think>Sure. " + CALL, STATS), tokens)
    response = oai_types.Response.model_validate(whole)
    assert [item.type for item in response.output] == ["reasoning", "message", "function_call"]
    assert response.output_text == "Sure." and response.usage is not None and response.usage.input_tokens == 11
    assert whole["tandem"]["tokens"][0]["origin"] == "target"


# -- writing /v1/messages ---------------------------------------------------------------------


def test_a_streamed_message_is_typed_events_with_blocks_in_order() -> None:
    request = parse_messages_request(
        {"max_tokens": 9, "messages": [{"role": "user", "content": "hi"}], "tools": [CUSTOM]}
    )
    wire = MessagesWire(request, "m", "model")
    events = _run(wire, ["<think>hmm", "</think>", "Let me check. ", CALL], FinishReason.EOG)
    for event in events:
        assert MESSAGE_EVENT.validate_python(event.data).type == event.name
    kinds = [e.name for e in events]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    starts = [e.data for e in events if e.name == "content_block_start"]
    assert [(s["index"], s["content_block"]["type"]) for s in starts] == [(0, "thinking"), (1, "text"), (2, "tool_use")]
    assert kinds.count("content_block_stop") == 3
    partial = [
        e.data["delta"]["partial_json"] for e in events if e.data.get("delta", {}).get("type") == "input_json_delta"
    ]
    assert json.loads("".join(partial)) == {"city": "Paris"}
    assert events[-2].data["delta"]["stop_reason"] == "tool_use"
    assert events[0].data["message"]["usage"]["input_tokens"] == 11


def test_a_whole_message_with_a_stop_sequence() -> None:
    body = {"max_tokens": 9, "messages": [{"role": "user", "content": "hi"}], "stop_sequences": ["END"]}
    wire = MessagesWire(parse_messages_request(body), "m", "model")
    wire.accepted(11, False)
    whole = wire.whole(FinishedEvent(FinishReason.STOP_STRING, "All done", STATS), [])
    message = claude_types.Message.model_validate(whole)
    assert message.stop_reason == "stop_sequence" and message.stop_sequence == "END"
    assert [b.type for b in message.content] == ["text"] and message.usage.output_tokens == 3


def test_both_newer_wires_read_calls_in_the_templates_dialect() -> None:
    # gpt-oss's harmony: the call is a commentary message to functions.get_weather, ended by the reply.
    harmony = '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}'
    dialect = dialect_for(ToolFormat.HARMONY)
    responses = ResponsesWire(parse_responses_request({"input": "hi", "tools": [FUNCTION]}), "m", "model")
    responses.accepted(11, False, dialect)
    whole = oai_types.Response.model_validate(responses.whole(FinishedEvent(FinishReason.EOG, harmony, STATS), []))
    (call,) = whole.output
    assert call.type == "function_call" and json.loads(call.arguments) == {"city": "Paris"}
    messages = MessagesWire(
        parse_messages_request(
            {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}], "tools": [CUSTOM]}
        ),
        "m",
        "model",
    )
    events = messages.accepted(11, False, dialect)
    for piece in (harmony[:20], harmony[20:45], harmony[45:]):
        events += messages.step(_step(piece))
    events += messages.closing(FinishedEvent(FinishReason.EOG, harmony, STATS))
    starts = [e.data["content_block"] for e in events if e.name == "content_block_start"]
    assert [b["type"] for b in starts] == ["tool_use"] and starts[0]["name"] == "get_weather"
    assert not any(e.name == "content_block_delta" and e.data["delta"].get("type") == "text_delta" for e in events)


HARMONY_REPLY = [
    "<|channel|>analysis<|mess",
    "age|>Weather first.<|end|><|start|>assist",
    "ant<|channel|>commentary to=functions.get_weather json<|message|>",
    '{"city": "Paris"}',
]


def test_a_harmony_analysis_is_reasoning_on_both_newer_wires_and_its_markers_never_show() -> None:
    dialect = dialect_for(ToolFormat.HARMONY)
    responses = ResponsesWire(parse_responses_request({"input": "hi", "tools": [FUNCTION], "stream": True}), "m", "x")
    events = responses.accepted(11, False, dialect)
    for piece in HARMONY_REPLY:
        events += responses.step(_step(piece))
    events += responses.closing(FinishedEvent(FinishReason.EOG, "".join(HARMONY_REPLY), STATS))
    reasoning = "".join(e.data["delta"] for e in events if e.name == "response.reasoning_text.delta")
    assert reasoning == "Weather first."
    assert not [e for e in events if e.name == "response.output_text.delta"]
    final = oai_types.Response.model_validate(events[-1].data["response"])
    assert [item.type for item in final.output] == ["reasoning", "function_call"]
    request = {"max_tokens": 9, "messages": [{"role": "user", "content": "hi"}], "tools": [CUSTOM]}
    messages = MessagesWire(parse_messages_request(request), "m", "model")
    answer = "<|end|><|start|>assistant<|channel|>final<|message|>Sunny."
    whole = messages.whole(
        FinishedEvent(FinishReason.EOG, HARMONY_REPLY[0] + "age|>Weather first." + answer, STATS), []
    )
    message = claude_types.Message.model_validate(whole)
    assert [(b.type, getattr(b, "thinking", None) or getattr(b, "text", None)) for b in message.content] == [
        ("thinking", "Weather first."),
        ("text", "Sunny."),
    ]
