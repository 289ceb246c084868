"""Tool records from and to OpenAI's JSON, and their clear refusals."""

from __future__ import annotations

import pytest

from app.core.tools.records import ToolCall, ToolChoice, ToolChoiceKind, ToolError, ToolSpec

WEATHER = {
    "type": "function",
    "function": {"name": "get_weather", "description": "The weather", "parameters": {"type": "object"}},
}


def test_a_tool_spec_round_trips() -> None:
    spec = ToolSpec.from_openai(WEATHER, "tools[0]")
    assert spec == ToolSpec("get_weather", "The weather", {"type": "object"})
    assert spec.to_openai() == WEATHER


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ({"type": "code_interpreter"}, "tools[0]"),
        ({"type": "function", "function": {"name": "<|im_start|>"}}, "tools[0].function.name"),
        ({"type": "function", "function": {"name": "f", "parameters": "x"}}, "tools[0].function.parameters"),
    ],
)
def test_a_bad_tool_spec_names_its_field(raw: object, where: str) -> None:
    with pytest.raises(ToolError) as caught:
        ToolSpec.from_openai(raw, "tools[0]")
    assert caught.value.where == where


def test_a_tool_call_round_trips_and_needs_json_object_arguments() -> None:
    raw = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    call = ToolCall.from_openai(raw, "m")
    assert call.to_openai() == raw
    assert call.parsed_arguments() == {"a": 1}
    with pytest.raises(ToolError, match="arguments must be a JSON object"):
        ToolCall.from_openai({**raw, "function": {"name": "f", "arguments": "{oops"}}, "m")


@pytest.mark.parametrize(
    ("raw", "choice"),
    [
        (None, ToolChoice()),
        ("auto", ToolChoice(ToolChoiceKind.AUTO)),
        ("none", ToolChoice(ToolChoiceKind.NONE)),
        ("required", ToolChoice(ToolChoiceKind.REQUIRED)),
        ({"type": "function", "function": {"name": "f"}}, ToolChoice(ToolChoiceKind.NAMED, "f")),
    ],
)
def test_tool_choice_from_openai(raw: object, choice: ToolChoice) -> None:
    assert ToolChoice.from_openai(raw) == choice
    if raw is not None:
        assert choice.to_openai() == raw


def test_a_bad_tool_choice_is_refused() -> None:
    with pytest.raises(ToolError, match="tool_choice must be"):
        ToolChoice.from_openai("always")
