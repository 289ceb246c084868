"""``response_format`` on the wire: parsed into an OutputFormat, refused by name when malformed, served for real."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import openai
import pytest

from app.core.conversation.output_format import OutputFormat, OutputKind
from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.http import RunningServer
from app.engine.server.protocol import RequestError, parse_chat_request
from app.engine.server.scheduler import ServerEngine

ASK = {"messages": [{"role": "user", "content": "hi"}]}
COLOUR: dict[str, Any] = {
    "type": "object",
    "properties": {"colour": {"type": "string", "enum": ["red", "green", "blue"]}, "count": {"type": "integer"}},
    "required": ["colour", "count"],
    "additionalProperties": False,
}


def test_json_object_and_json_schema_are_read() -> None:
    assert parse_chat_request(ASK).output_format is None
    assert parse_chat_request({**ASK, "response_format": {"type": "text"}}).output_format is None
    mode = parse_chat_request({**ASK, "response_format": {"type": "json_object"}}).output_format
    assert mode == OutputFormat(OutputKind.JSON_OBJECT)
    spec = {"type": "json_schema", "json_schema": {"name": "c", "schema": COLOUR, "strict": True}}
    schema = parse_chat_request({**ASK, "response_format": spec}).output_format
    assert schema == OutputFormat(OutputKind.JSON_SCHEMA, COLOUR, True, "c")


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("json", "must be an object"),
        ({"type": "yaml"}, "must be text, json_object or json_schema"),
        ({"type": "json_schema"}, "must be an object with a 'schema'"),
        ({"type": "json_schema", "json_schema": {"schema": [1]}}, "must be a JSON schema object"),
        ({"type": "json_schema", "json_schema": {"schema": {}, "strict": "yes"}}, "must be true or false"),
        (
            {"type": "json_schema", "json_schema": {"schema": {"type": "string", "format": "nope"}, "strict": True}},
            "the JSON schema cannot be used",
        ),
    ],
)
def test_a_malformed_response_format_is_a_400_naming_it(value: Any, words: str) -> None:
    with pytest.raises(RequestError) as caught:
        parse_chat_request({**ASK, "response_format": value})
    assert caught.value.param == "response_format" and words in caught.value.message
    assert caught.value.status == 400 and "\n" not in caught.value.message


@pytest.fixture(scope="module")
def server(small_pair: tuple[Path, Path]) -> Iterator[RunningServer]:
    target, draft = small_pair
    engine = ServerEngine(PairConfig(target, draft, DrafterKind.HYBRID, n_ctx=512, n_threads=1), draft_length=4)
    engine.start()
    running = RunningServer(engine).start()
    yield running
    running.stop()


def test_serve_answers_json_schema_at_t08_with_drafting(server: RunningServer) -> None:
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=600)
    spec: Any = {"type": "json_schema", "json_schema": {"name": "colour", "schema": COLOUR, "strict": True}}
    drafted = 0
    for seed in range(3):
        reply = client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "Pick a colour and a count, as JSON."}],
            response_format=spec,
            temperature=0.8,
            seed=seed,
            max_tokens=64,
        )
        choice = reply.choices[0]
        assert choice.finish_reason == "stop"
        jsonschema.validate(json.loads(choice.message.content or ""), COLOUR)
        drafted += (reply.model_extra or {})["timings"]["draft_n"]
    assert drafted > 0


WEATHER: Any = {
    "type": "function",
    "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},
}


HOSTILE: Any = {
    "cycle": ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, "refers back"),
    "self": ({"type": "object", "properties": {"me": {"$ref": "#"}}, "required": ["me"]}, "refers back"),
    "wide": ({"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(600)}}, "600 optional"),
    "pattern": ({"type": "string", "minLength": 50, "pattern": "^(a{1,100}){1,100}$"}, "counted repetitions"),
    "repeats": ({"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000}}, "repetitions"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_schema_is_a_400_before_it_queues_and_the_server_goes_on(server: RunningServer, case: str) -> None:
    schema, words = HOSTILE[case]
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=600)
    spec: Any = {"type": "json_schema", "json_schema": {"name": case, "schema": schema, "strict": True}}
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "JSON, please."}], response_format=spec, max_tokens=16
        )
    assert caught.value.status_code == 400 and caught.value.param == "response_format"
    assert words in caught.value.message and "\n" not in caught.value.message
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], max_tokens=2)
    assert reply.choices[0].finish_reason in ("stop", "length")


@pytest.mark.parametrize(
    "spec",
    [
        {"type": "json_object"},
        {"type": "json_schema", "json_schema": {"name": "colour", "schema": COLOUR, "strict": True}},
    ],
)
def test_tools_with_a_json_response_format_is_a_400_naming_the_conflict(server: RunningServer, spec: Any) -> None:
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=600)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], tools=[WEATHER], response_format=spec, max_tokens=8
        )
    assert caught.value.status_code == 400 and caught.value.param == "response_format"
    assert f"'tools' and 'response_format' ({spec['type']}) cannot be combined" in caught.value.message
    # Either alone is still served (the text format, and no tools, are no conflict).
    parse_chat_request({**ASK, "tools": [WEATHER], "response_format": {"type": "text"}})
    parse_chat_request({**ASK, "response_format": spec})
