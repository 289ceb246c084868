"""Every call dialect on the test templates (tests/fixtures/tool_templates.py): found, rendered, read, streamed."""

from __future__ import annotations

import codecs
import itertools
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment

from app.core.decoding.events import TokenOrigin
from app.core.reply.token_record import TokenRecord
from app.core.tools.call_stream import CallPiece, ParsedReply, TextPiece, ToolDialect, ToolFormat
from app.core.tools.dialects import MistralDialect, dialect_for, tool_format
from app.core.tools.reader import CallReader, ShownTokens, call_attempt, read_reply
from app.core.tools.records import ToolSpec
from tests.fixtures.tool_templates import FAMILIES, HARMONY, LLAMA3, MISTRAL, MISTRAL_NAMED, XML, FamilyTemplate

WEATHER = ToolSpec(
    name="get_weather",
    description="The weather in a city for the next days",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
)
CLOCK = ToolSpec(
    name="harbour_clock",
    description="The time in a port",
    parameters={"type": "object", "properties": {"port": {"type": "string"}}},
)
TOOLS = (WEATHER, CLOCK)
NAMES = frozenset(t.name for t in TOOLS)
ONE = (("get_weather", {"city": "Oslo", "days": 3}),)
TWO = (*ONE, ("harbour_clock", {"port": "Hamburg"}))
SINGLE_CALL = {LLAMA3.name, HARMONY.name}  # the family writes one call per reply (its turn ends with the call)


def _env() -> ImmutableSandboxedEnvironment:
    # As Hugging Face renders templates: blocks trimmed, and a tojson that does not escape HTML.
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = lambda value, indent=None: json.dumps(value, ensure_ascii=False, indent=indent)
    return env


def _render(family: FamilyTemplate, messages: Sequence[dict[str, Any]], prompt: bool) -> str:
    tools = [t.to_openai() for t in TOOLS]
    template = _env().from_string(family.text)
    return template.render(
        messages=messages, tools=tools, add_generation_prompt=prompt, bos_token="<s>", eos_token="</s>"
    )


def _written_reply(family: FamilyTemplate, calls: Sequence[tuple[str, dict[str, Any]]]) -> str:
    """What a model of the family writes for ``calls``: the template's own assistant turn, after its opener."""
    user = {"role": "user", "content": "Weather in Oslo, and the time in Hamburg?"}
    tool_calls = [{"type": "function", "function": {"name": n, "arguments": a}} for n, a in calls]
    assistant = {"role": "assistant", "content": "", "tool_calls": tool_calls}
    prompt = _render(family, [user], prompt=True)
    whole = _render(family, [user, assistant], prompt=False)
    assert whole.startswith(prompt), family.name
    reply = whole[len(prompt) :].rstrip("\n")
    assert reply.endswith(family.end), family.name
    return reply.removesuffix(family.end)


def _dialect(family: FamilyTemplate) -> ToolDialect:
    return dialect_for(family.format, TOOLS, family.text)


def _ids() -> Callable[[], str]:
    counter = itertools.count()
    return lambda: f"call_{next(counter)}"


def _calls(reply: ParsedReply) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, json.loads(c.arguments)) for c in reply.calls]


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_each_template_names_its_dialect(family: FamilyTemplate) -> None:
    assert tool_format(family.text) is family.format
    assert _dialect(family).format is family.format


def test_the_mistral_form_follows_the_template_version() -> None:
    assert _dialect(MISTRAL) == MistralDialect(named=False)
    assert _dialect(MISTRAL_NAMED) == MistralDialect(named=True)


def test_a_template_that_never_renders_tools_has_no_dialect() -> None:
    assert tool_format("{% for message in messages %}{{ message.content }}{% endfor %}") is None
    assert tool_format(None) is None


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_the_template_renders_the_tools_into_the_prompt(family: FamilyTemplate) -> None:
    prompt = _render(family, [{"role": "user", "content": "hi"}], prompt=True)
    assert "get_weather" in prompt and "harbour_clock" in prompt


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_the_calls_a_template_writes_are_read_back(family: FamilyTemplate) -> None:
    for calls in (ONE,) if family.name in SINGLE_CALL else (ONE, TWO):
        reply = read_reply(_written_reply(family, calls), NAMES, dialect=_dialect(family))
        assert _calls(reply) == list(calls), family.name
        assert reply.content == ""


# Replies as models of each family write them, beyond what their template shows.
WRITTEN: list[tuple[str, FamilyTemplate, str, str, list[tuple[str, dict[str, Any]]]]] = [
    (
        "xml-with-text-and-json-value",
        XML,
        "I will look that up. ✓\n<tool_call>\n<function=get_weather>\n<parameter=city>\nSão Paulo\n</parameter>\n"
        "<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>",
        "I will look that up. ✓",
        [("get_weather", {"city": "São Paulo", "days": 2})],
    ),
    (
        "xml-string-that-looks-like-a-number",
        XML,
        "<tool_call>\n<function=harbour_clock>\n<parameter=port>\n007\n</parameter>\n</function>\n</tool_call>",
        "",
        [("harbour_clock", {"port": "007"})],
    ),
    (
        "llama3-python-tag-two-calls",
        LLAMA3,
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}; '
        '{"name": "harbour_clock", "parameters": {"port": "Kiel"}}',
        "",
        [("get_weather", {"city": "Oslo"}), ("harbour_clock", {"port": "Kiel"})],
    ),
    (
        "llama3-bare",
        LLAMA3,
        '{"name": "get_weather", "parameters": {"city": "Oslo"}}',
        "",
        [("get_weather", {"city": "Oslo"})],
    ),
    (
        "mistral-list-after-text",
        MISTRAL,
        'Sure.[TOOL_CALLS] [{"name": "harbour_clock", "arguments": {"port": "Genoa"}, "id": "a1b2c3d4e"}]',
        "Sure.",
        [("harbour_clock", {"port": "Genoa"})],
    ),
    (
        "mistral-named-two",
        MISTRAL_NAMED,
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}[TOOL_CALLS]harbour_clock[CALL_ID]x1[ARGS]{"port": "Bergen"}',
        "",
        [("get_weather", {"city": "Oslo"}), ("harbour_clock", {"port": "Bergen"})],
    ),
    (
        "harmony-after-analysis",
        HARMONY,
        "<|channel|>analysis<|message|>Need the weather; to=functions. is how.<|end|><|start|>assistant"
        '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
        "<|channel|>analysis<|message|>Need the weather; to=functions. is how.<|end|>",
        [("get_weather", {"city": "Oslo"})],
    ),
    (
        "harmony-recipient-in-the-role",
        HARMONY,
        ' to=functions.harbour_clock<|channel|>commentary json<|message|>{"port": "Hull"}',
        "",
        [("harbour_clock", {"port": "Hull"})],
    ),
]

# Markup that is not a call: it stays text, whole, markup included.
NOT_CALLS: list[tuple[str, FamilyTemplate, str]] = [
    ("xml-unknown-element", XML, "<tool_call>\n<function=get_weather>\n<city>Oslo</city>\n</function>\n</tool_call>"),
    ("xml-unclosed", XML, "<tool_call>\n<function=get_weather>\n<parameter=city>\nOs"),
    (
        "xml-required-left-out",
        XML,
        "<tool_call><function=get_weather><parameter=days>2</parameter></function></tool_call>",
    ),
    (
        "xml-parameter-twice",
        XML,
        "<tool_call><function=get_weather><parameter=city>Oslo</parameter><parameter=city>Rome</parameter>"
        "</function></tool_call>",
    ),
    ("llama3-broken", LLAMA3, '<|python_tag|>{"name": "get_weather", "parameters": {"city": '),
    ("mistral-broken", MISTRAL, '[TOOL_CALLS] [{"name": "get weather", "arguments": {}}]'),
    ("mistral-named-no-args", MISTRAL_NAMED, "[TOOL_CALLS]get_weather"),
    ("harmony-not-json", HARMONY, "<|channel|>commentary to=functions.get_weather json<|message|>Oslo please<|call|>"),
    ("harmony-final", HARMONY, "<|channel|>final<|message|>It is 3 C in Oslo.<|end|>"),
]


@pytest.mark.parametrize(("family", "text", "content", "calls"), [w[1:] for w in WRITTEN], ids=[w[0] for w in WRITTEN])
def test_written_calls_are_read_whole(
    family: FamilyTemplate, text: str, content: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    reply = read_reply(text, NAMES, dialect=_dialect(family))
    assert (reply.content, _calls(reply)) == (content, calls)
    assert call_attempt(text, _dialect(family)) or family is LLAMA3


@pytest.mark.parametrize(("family", "text"), [n[1:] for n in NOT_CALLS], ids=[n[0] for n in NOT_CALLS])
def test_markup_that_is_not_a_call_stays_text(family: FamilyTemplate, text: str) -> None:
    reply = read_reply("Before " + text, NAMES, dialect=_dialect(family))
    assert reply.calls == () and reply.content == "Before " + text


def _streamed(text: str, dialect: ToolDialect, cut: int) -> tuple[str, list[tuple[str, dict[str, Any]]], list[str]]:
    """The reply fed as two byte pieces cut at ``cut`` (decoded as a stream decodes them)."""
    data = text.encode("utf-8")
    decoder = codecs.getincrementaldecoder("utf-8")()
    reader = CallReader(NAMES, dialect=dialect, new_id=_ids())
    pieces = reader.feed(decoder.decode(data[:cut])) + reader.feed(decoder.decode(data[cut:], final=True))
    pieces += reader.finish()
    texts = [p.text for p in pieces if isinstance(p, TextPiece)]
    calls = [(p.call.name, json.loads(p.call.arguments)) for p in pieces if isinstance(p, CallPiece)]
    return "".join(texts), calls, texts


def _stream_cases() -> list[tuple[str, FamilyTemplate, str]]:
    cases = [(w[0], w[1], w[2]) for w in WRITTEN] + [(n[0], n[1], "Before " + n[2]) for n in NOT_CALLS]
    for family in FAMILIES:
        for calls in (ONE,) if family.name in SINGLE_CALL else (ONE, TWO):
            cases.append((f"{family.name}-template-{len(calls)}", family, "Fine. " + _written_reply(family, calls)))
    return cases


STREAM_CASES = _stream_cases()


@pytest.mark.parametrize(("family", "text"), [c[1:] for c in STREAM_CASES], ids=[c[0] for c in STREAM_CASES])
def test_streaming_cut_at_every_byte_agrees_with_the_whole_reply(family: FamilyTemplate, text: str) -> None:
    dialect = _dialect(family)
    whole = read_reply(text, NAMES, dialect=dialect, new_id=_ids())
    for cut in range(len(text.encode("utf-8")) + 1):
        content, calls, _ = _streamed(text, dialect, cut)
        assert (content, calls) == (whole.content, _calls(whole)), (family.name, cut)


@pytest.mark.parametrize(("family", "text"), [c[1:] for c in STREAM_CASES], ids=[c[0] for c in STREAM_CASES])
def test_streaming_never_shows_a_calls_markup(family: FamilyTemplate, text: str) -> None:
    dialect = _dialect(family)
    reader = CallReader(NAMES, dialect=dialect)
    shown = "".join(p.text for char in text for p in reader.feed(char) if isinstance(p, TextPiece))
    shown += "".join(p.text for p in reader.finish() if isinstance(p, TextPiece))
    whole = read_reply(text, NAMES, dialect=dialect)
    assert shown == whole.content  # nothing shown was later taken back as a call
    if whole.calls and family is not HARMONY:  # harmony's analysis header before a call is not a call's markup
        assert not call_attempt(whole.content, dialect)


@pytest.mark.parametrize(
    ("fmt", "name", "prefix"),
    [
        (ToolFormat.HERMES, "get_weather", '<tool_call>\n{"name": "get_weather", "arguments":'),
        (ToolFormat.XML, "get_weather", "<tool_call>\n<function=get_weather>\n"),
        (ToolFormat.LLAMA3, None, '{"name":'),
        (ToolFormat.MISTRAL, "harbour_clock", '[TOOL_CALLS][{"name": "harbour_clock", "arguments":'),
        (
            ToolFormat.HARMONY,
            "get_weather",
            "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>",
        ),
    ],
)
def test_a_steered_reply_starts_inside_a_call_the_dialect_reads(fmt: ToolFormat, name: str | None, prefix: str) -> None:
    dialect = dialect_for(fmt, TOOLS)
    assert dialect.steer(name) == prefix
    rest = {
        ToolFormat.HERMES: ' {"city": "Oslo"}}\n</tool_call>',
        ToolFormat.XML: "<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>",
        ToolFormat.LLAMA3: ' "get_weather", "parameters": {"city": "Oslo"}}',
        ToolFormat.MISTRAL: ' {"port": "Oslo"}}]',
        ToolFormat.HARMONY: '{"city": "Oslo"}',
    }[fmt]
    (call,) = read_reply(prefix + rest, NAMES, dialect=dialect).calls
    assert json.loads(call.arguments) in ({"city": "Oslo"}, {"port": "Oslo"})


def _tokens(text: str, size: int) -> list[TokenRecord]:
    return [
        TokenRecord(id=1, text=text[i : i + size], origin=TokenOrigin.TARGET, p_target=0.9)
        for i in range(0, len(text), size)
    ]


@pytest.mark.parametrize(("family", "text"), [c[1:] for c in STREAM_CASES], ids=[c[0] for c in STREAM_CASES])
def test_the_live_view_is_shown_the_tokens_of_the_text_and_none_of_a_call(family: FamilyTemplate, text: str) -> None:
    dialect = _dialect(family)
    whole = read_reply(text, NAMES, dialect=dialect)
    for size in (1, 3, 7):
        shown = ShownTokens(CallReader(NAMES, dialect=dialect))
        tokens = [t for chunk in _tokens(text, size) for t in shown.add([chunk])] + shown.finish()
        seen = "".join(t.text for t in tokens)
        if whole.calls and family is not HARMONY:
            assert not call_attempt(seen, dialect), (size, seen)
        if size == 1:  # tokens cut at characters: exactly the reply's text, spaces aside
            assert seen.strip() == whole.content.strip(), seen
