"""A whole reply of bare or fenced call JSON read as a call, and everything else left as text."""

from __future__ import annotations

import json

import pytest

from app.core.tools.reader import CallReader, read_reply

NAMES = {"get_weather"}
FENCED = '```json\n{\n  "name": "get_weather",\n  "arguments": {"city": "Paris"}\n}\n```'


BARE = '{"name": "get_weather", "arguments": {"city": "Paris"}}'


@pytest.mark.parametrize("text", [FENCED, BARE, "\n" + FENCED + "\n"])
def test_a_whole_reply_of_call_json_is_a_call(text: str) -> None:
    reply = read_reply(text, NAMES)
    assert reply.content == ""
    assert [(c.name, json.loads(c.arguments)) for c in reply.calls] == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "delete_everything", "arguments": {}}',  # not an offered tool
        FENCED + "\nThat is how you would call it.",  # more than the call
        '{"name": "get_weather", "arguments": {"city": "Paris"}, "extra": 1}',
        '```python\nprint("hi")\n```',
        '{"name": "get_weather", "arguments": ',  # cut short
    ],
)
def test_anything_else_stays_text(text: str) -> None:
    assert read_reply(text, NAMES) == read_reply(text, ()) and read_reply(text, NAMES).calls == ()


def test_without_offered_names_no_bare_call_is_read() -> None:
    assert read_reply(FENCED).calls == ()


def test_streaming_holds_only_what_may_still_be_a_call() -> None:
    reader = CallReader(frozenset(NAMES))
    assert reader.feed("```") == [] and reader.feed("py") != []  # a Python fence flows at once
    reader = CallReader(frozenset(NAMES))
    assert reader.feed("Sure") != []
    reader = CallReader(frozenset(NAMES))
    pieces = [p for chunk in FENCED for p in reader.feed(chunk)]
    assert pieces == []  # held to the end: it is one call
    assert [p.call.name for p in reader.finish()] == ["get_weather"]  # type: ignore[union-attr]


def test_a_tagged_call_is_still_read_with_names_given() -> None:
    text = '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>'
    assert [c.name for c in read_reply(text, NAMES).calls] == ["get_weather"]


# Qwen2.5 copies its template's doubled braces; each of these is the demo pair's own output shape.
DOUBLED_OUTER = '{{"name": "harbour_clock", "arguments": {"port": "Hamburg"}}}'
DOUBLED_ALL = '{{"name": "harbour_clock", "arguments": {{"port": "Hamburg"}}}}'
DOUBLED_EMPTY = '{{"name": "harbour_clock", "arguments": {}}}'


@pytest.mark.parametrize(
    "text",
    [
        f"<tool_call>{DOUBLED_OUTER}</tool_call>",
        f"<tool_call>\n{DOUBLED_OUTER}\n</tool_call>",
        f"<tool_call>\n{DOUBLED_ALL}\n</tool_call>",
        DOUBLED_OUTER,
        DOUBLED_ALL,
        f"\n{DOUBLED_OUTER}\n",
        f"```json\n{DOUBLED_OUTER}\n```",
    ],
)
def test_the_doubled_brace_form_is_read_as_the_call_it_means(text: str) -> None:
    reply = read_reply(text, {"harbour_clock"})
    assert reply.content == ""
    assert [(c.name, json.loads(c.arguments)) for c in reply.calls] == [("harbour_clock", {"port": "Hamburg"})]


def test_the_doubled_brace_form_streams_as_one_held_call() -> None:
    reader = CallReader(frozenset({"harbour_clock"}))
    assert [p for chunk in DOUBLED_OUTER for p in reader.feed(chunk)] == []
    (piece,) = reader.finish()
    assert piece.call.name == "harbour_clock"  # type: ignore[union-attr]


def test_a_doubled_call_without_arguments_has_empty_arguments() -> None:
    (call,) = read_reply(DOUBLED_EMPTY, {"harbour_clock"}).calls
    assert json.loads(call.arguments) == {}


def test_doubled_braces_in_plain_text_stay_text() -> None:
    text = "In Jinja, {{ name }} prints a variable."
    assert read_reply(text, {"harbour_clock"}).content == text
