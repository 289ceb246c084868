"""Each dialect's call grammar on llguidance's byte tokenizer: a call of an offered tool passes, others stop.

And the reply's call mask under each dialect's real grammar depends only on
the tokens kept, whatever was drafted and rolled back (what keeps speculation
exact: :mod:`app.core.decoding.call_mask`).
"""

from __future__ import annotations

import random

import llguidance
import numpy as np
import pytest

from app.core.decoding.call_mask import CallMask
from app.core.tools.call_stream import ToolDialect
from app.core.tools.dialects import HarmonyDialect, Llama3Dialect, MistralDialect
from app.core.tools.hermes import HERMES, XML
from app.core.tools.records import ToolSpec
from app.engine.llama.grammar import GrammarMask
from app.engine.llama.tool_grammar import call_body_grammar

FORECAST = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
    "required": ["city", "days"],
    "additionalProperties": False,
}
TOOLS = (ToolSpec(name="get_forecast", parameters=FORECAST), ToolSpec(name="ping"))
XML_FORECAST = (
    "\n<function=get_forecast>\n<parameter=city>\nOslo <b>\n</parameter>\n<parameter=days>\n3\n</parameter>\n"
)
HARMONY = HarmonyDialect()


def _takes(dialect: ToolDialect, text: str, whole: bool = True, tools: tuple[ToolSpec, ...] = TOOLS) -> bool:
    """Whether the call grammar takes ``text`` after the opener (``whole``: and may end there)."""
    body = call_body_grammar(dialect, tools, {})
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
        (
            XML,
            XML_FORECAST + "</function>\n</tool_call>",
            XML_FORECAST.replace("3", "9"),  # days over the maximum
        ),
        (
            XML,
            "\n<function=ping>\n<parameter=anything>\nat all </b> < \n</parameter>\n</function>\n</tool_call>",
            "\n<function=get_forecast>\n<parameter=days>\n3\n</parameter>\n</function>",  # the required city left out
        ),
        (
            HARMONY,
            'commentary to=functions.get_forecast <|constrain|>json<|message|>{"city": "Oslo", "days": 2}',
            'commentary to=functions.get_forecast json<|message|>{"city": "Oslo", "days": "2"',  # not an integer
        ),
        (
            HARMONY,  # after <|start|>: the role, then the recipient before the channel
            'assistant to=functions.get_forecast<|channel|>commentary json<|message|>{"city": "Oslo", "days": 2}',
            'assistant to=functions.get_forecast<|channel|>commentary json<|message|>{"city": "Oslo", "days": 9',
        ),
        (HARMONY, "assistant<|channel|>analysis<|message|>", "assistant to=functions.delete_all"),
        (HARMONY, "analysis<|message|>", "analysis to=functions.get_forecast"),  # calls go to commentary
        (HARMONY, "commentary json<|message|>", "commentary to=functions.delete_all"),  # not an offered tool
    ],
    ids=[
        "hermes",
        "llama3",
        "mistral",
        "mistral-named",
        "xml",
        "xml-free-object",
        "harmony-call",
        "harmony-role-then-recipient",
        "harmony-role-then-channel",
        "harmony-analysis",
        "harmony-no-recipient",
    ],
)
def test_a_call_of_an_offered_tool_passes_and_anything_else_stops(dialect: ToolDialect, good: str, bad: str) -> None:
    assert _takes(dialect, good)
    assert not _takes(dialect, bad, whole=False)


def _xml_call(*parameters: tuple[str, str]) -> str:
    inner = "".join(f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in parameters)
    return f"\n<function=get_forecast>\n{inner}</function>\n</tool_call>"


@pytest.mark.parametrize("extra", [None, True, {"type": "integer"}, False])
def test_xml_parameters_come_in_any_order_each_once_and_extras_as_the_schema_says(extra: object) -> None:
    schema = {k: v for k, v in FORECAST.items() if k != "additionalProperties"}
    if extra is not None:
        schema["additionalProperties"] = extra
    tools = (ToolSpec(name="get_forecast", parameters=schema),)
    assert _takes(XML, _xml_call(("days", "3"), ("city", "Oslo")), tools=tools)  # not the schema's order
    assert _takes(XML, _xml_call(("city", "Oslo"), ("days", "3")), tools=tools)
    assert not _takes(XML, _xml_call(("city", "Oslo"), ("city", "Lima"), ("days", "3")), tools=tools)  # twice
    assert not _takes(XML, _xml_call(("days", "3")), tools=tools)  # the required city left out
    assert not _takes(XML, _xml_call(("days", "9"), ("city", "Oslo")), tools=tools)  # over the maximum
    # A property the schema does not list: allowed unless additionalProperties is false (held to it when a schema).
    assert _takes(XML, _xml_call(("units", "7"), ("city", "Oslo"), ("days", "3")), tools=tools) is (extra is not False)
    assert _takes(XML, _xml_call(("units", "metric"), ("city", "Oslo"), ("days", "3")), tools=tools) is (
        extra is None or extra is True
    )


def test_xml_parameters_past_the_held_count_come_in_any_order() -> None:
    keys = [f"k{j}" for j in range(10)]
    schema = {"type": "object", "properties": {k: {"type": "integer"} for k in keys}, "required": ["k0", "k9"]}
    tools = (ToolSpec(name="get_forecast", parameters=schema),)
    assert _takes(XML, _xml_call(("k9", "1"), ("k3", "2"), ("k0", "3")), tools=tools)
    assert not _takes(XML, _xml_call(("k9", "x")), tools=tools, whole=False)  # still held to each value's schema


def test_a_harmony_header_without_a_recipient_ends_the_grammar_at_its_message() -> None:
    # The message after it is free text: the call mask closes where the grammar first accepts.
    for header in ("final<|message|>", "commentary<|message|>"):
        assert _takes(HARMONY, header)
        assert not _takes(HARMONY, header + "Hello", whole=False)


# Each dialect and a call it may write, which the walk mostly follows (random bytes alone seldom finish a call).
DIALECTS = {
    "hermes": (HERMES, '\n{"name": "ping", "arguments": {}}\n</tool_call>'),
    "xml": (XML, "<function=ping><parameter=a>x</parameter></function></tool_call>"),
    "llama3": (Llama3Dialect(), '{"name": "ping", "parameters": {}}; {"name": "ping", "parameters": {}}'),
    "mistral": (MistralDialect(), ' [{"name": "ping", "arguments": {}}]'),
    "mistral-named": (MistralDialect(named=True), "ping[ARGS]{}[TOOL_CALLS]ping[ARGS]{}"),
    "harmony": (HARMONY, "commentary to=functions.ping json<|message|>{}"),
    "harmony-role": (HARMONY, "assistant to=functions.ping<|channel|>commentary json<|message|>{}"),
}
OPENER = 1  # a byte none of the grammars writes stands for the dialect's one-token opener


@pytest.mark.parametrize("name", list(DIALECTS))
def test_the_call_mask_after_any_rollback_is_the_mask_of_the_tokens_kept(name: str) -> None:
    dialect, script = DIALECTS[name]
    body = call_body_grammar(dialect, TOOLS, {})
    assert body is not None
    grammar, _opener, closes = body
    tokenizer = llguidance.LLTokenizer("byte")
    n_vocab, end = tokenizer.vocab_size, tokenizer.eos_token

    def fresh() -> CallMask:
        return CallMask(n_vocab, frozenset({OPENER}), lambda: GrammarMask(tokenizer, grammar, n_vocab, (end,)), closes)

    rng = random.Random(55)
    mask, kept, closed = fresh(), list[int](), 0
    for _ in range(240):
        if kept and rng.random() < 0.15:
            n = rng.randint(1, min(len(kept), 4))
            mask.rollback(n)
            del kept[len(kept) - n :]
        else:
            allowed = np.flatnonzero(mask.allowed()).tolist()
            at = kept[::-1].index(OPENER) if OPENER in kept else 0  # tokens since the last opener
            follow = script.encode()[at] if mask.inside and at < len(script.encode()) else None
            if not mask.inside and rng.random() < 0.2:
                token = OPENER
            elif follow in allowed and rng.random() < 0.98:
                token = follow
            else:
                token = int(rng.choice(allowed))
            inside = mask.inside
            mask.consume(token)
            kept.append(token)
            closed += inside and not mask.inside
        replayed = fresh()
        for token in kept:
            replayed.consume(token)
        assert (mask.inside, mask.calls_opened) == (replayed.inside, replayed.calls_opened)
        assert np.array_equal(mask.allowed(), replayed.allowed()), kept
    assert closed if closes else mask.calls_opened  # the walk went into calls (and out of them, where they close)
