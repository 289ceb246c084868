"""Each held dialect's call grammar on llguidance's byte tokenizer: a call of an offered tool passes, others stop."""

from __future__ import annotations

import llguidance
import pytest

from app.core.tools.call_stream import ToolDialect
from app.core.tools.dialects import HarmonyDialect, Llama3Dialect, MistralDialect
from app.core.tools.hermes import HERMES, XML
from app.core.tools.records import ToolSpec
from app.engine.llama.tool_grammar import call_body_grammar

FORECAST = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
    "required": ["city", "days"],
    "additionalProperties": False,
}
TOOLS = (ToolSpec(name="get_forecast", parameters=FORECAST), ToolSpec(name="ping"))


def _takes(dialect: ToolDialect, text: str, whole: bool = True) -> bool:
    """Whether the call grammar takes ``text`` after the opener (``whole``: and may end there)."""
    body = call_body_grammar(dialect, TOOLS, {})
    assert body is not None
    tokenizer = llguidance.LLTokenizer("byte")
    matcher = llguidance.LLMatcher(tokenizer, llguidance.LLMatcher.grammar_from_lark(body[0]), log_level=0)
    for byte in text.encode("utf-8"):
        if not matcher.consume_token(byte) or matcher.is_error():
            return False
    return matcher.is_accepting() or not whole


@pytest.mark.parametrize(
    ("dialect", "good", "bad"),
    [
        (
            HERMES,
            '\n{"name": "get_forecast", "arguments": {"city": "Oslo", "days": 3}}\n</tool_call>',
            '\n{"name": "get_forecast", "arguments": {"city": "Oslo", "days": 9}}',  # days over the maximum
        ),
        (
            Llama3Dialect(),
            '{"name": "ping", "parameters": {}}; {"name": "get_forecast", "parameters": {"city": "Lima", "days": 1}}',
            '{"name": "get_forecast", "arguments": {',  # Llama 3 calls name their arguments "parameters"
        ),
        (
            MistralDialect(),
            ' [{"name": "get_forecast", "arguments": {"city": "Oslo", "days": 2}}, {"name": "ping", "arguments": {}}]',
            '[{"name": "delete_all", ',  # not an offered tool
        ),
        (
            MistralDialect(named=True),
            'get_forecast[ARGS]{"city": "Oslo", "days": 2}[TOOL_CALLS]ping[ARGS]{}',
            'get_forecast[ARGS]{"city": 3',  # not a string
        ),
    ],
    ids=["hermes", "llama3", "mistral", "mistral-named"],
)
def test_a_call_of_an_offered_tool_passes_and_anything_else_stops(dialect: ToolDialect, good: str, bad: str) -> None:
    assert _takes(dialect, good)
    assert not _takes(dialect, bad, whole=False)


def test_dialects_whose_values_are_not_json_are_read_but_not_held() -> None:
    assert call_body_grammar(XML, TOOLS, {}) is None
    assert call_body_grammar(HarmonyDialect(), TOOLS, {}) is None
