"""Malformed remote events end the reply with one line and the partial reply, never a traceback.

A property test puts arbitrary JSON (hypothesis) at every place of an
OpenAI chunk the client reads, for the validation layer alone and for the
real client against a real local server; a table covers the cases issue 25
found by hand.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.conversation.chat import Message
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.sampling import SamplingParams
from app.core.decoding.stats import GenerationStats
from app.engine.remote.client import RemoteEngine
from app.engine.remote.errors import RemoteError
from app.engine.remote.steps import LlamaServerSteps, stats_from_vllm, tandem_step
from app.engine.remote.wire import WireError, parse_event, parse_models
from tests.engine.remote import hostile_server as hs

ASK = [Message("user", "Hi")]
GREEDY = SamplingParams(temperature=0)
LIMIT = 1 << 20

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)

# Every path of a chunk the client reads, in a valid chunk that carries all of them.
PATHS = [
    ("choices",),
    ("choices", 0),
    ("choices", 0, "delta"),
    ("choices", 0, "delta", "content"),
    ("choices", 0, "finish_reason"),
    ("timings",),
    ("timings", "predicted_n"),
    ("timings", "draft_n"),
    ("timings", "draft_n_accepted"),
    ("timings", "prompt_n"),
    ("tandem",),
    ("tandem", "tokens"),
    ("tandem", "tokens", 0),
    ("tandem", "tokens", 0, "origin"),
    ("tandem", "tokens", 0, "text"),
    ("tandem", "tokens", 0, "id"),
    ("tandem", "tokens", 0, "p_target"),
    ("tandem", "tokens", 0, "q_draft"),
    ("tandem", "tokens", 0, "source"),
    ("tandem", "drafted"),
    ("tandem", "accepted"),
    ("metrics",),
    ("metrics", "speculative_decoding"),
    ("metrics", "speculative_decoding", "num_spec_tokens"),
    ("metrics", "speculative_decoding", "acceptance_histogram"),
    ("metrics", "speculative_decoding", "per_step_drafted"),
    ("metrics", "speculative_decoding", "num_spec_steps"),
    ("error",),
]


def valid_chunk() -> dict[str, Any]:
    token = {"id": 5, "text": "Hi", "origin": "draft", "p_target": 0.5, "q_draft": 0.9, "source": "model"}
    return {
        "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": None}],
        "timings": {"predicted_n": 1, "draft_n": 1, "draft_n_accepted": 1, "prompt_n": 3},
        "tandem": {"tokens": [token], "drafted": 1, "accepted": 1},
        "metrics": {
            "speculative_decoding": {
                "num_spec_tokens": 2,
                "acceptance_histogram": [1, 1, 1],
                "per_step_drafted": [2, 2, 2],
                "num_spec_steps": 3,
            }
        },
    }


def with_value(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    chunk = valid_chunk()
    if path == ("error",):
        chunk["error"] = value
        return chunk
    node: Any = chunk
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return chunk


def use(event: Any) -> None:
    """Everything the client does with a checked event: only WireError may come out."""
    if event.tandem is not None and event.tandem.tokens:
        tandem_step(event.tandem)
    if event.timings is not None:
        LlamaServerSteps().feed(event.content, event.timings)
    if event.vllm is not None:
        stats_from_vllm(event.vllm, GenerationStats())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PATHS), json_values)
def test_any_value_anywhere_is_read_or_refused_in_words(path: tuple[str | int, ...], value: Any) -> None:
    data = json.dumps(with_value(path, value))
    try:
        use(parse_event(data, LIMIT))
    except WireError as exc:
        assert str(exc).startswith(WireError.PREFIX)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_any_model_list_is_read_or_refused_in_words(value: Any) -> None:
    for body in (value, {"data": value}, {"data": [value]}):
        try:
            parse_models(json.dumps(body).encode(), LIMIT)
        except WireError as exc:
            assert str(exc).startswith(WireError.PREFIX)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(PATHS), json_values)
def test_the_real_client_ends_any_malformed_stream_in_one_line(path: tuple[str | int, ...], value: Any) -> None:
    good = hs.chunk("Hel")
    with hs.HostileServer(hs.events([good, with_value(path, value)])) as server:
        try:
            events = list(RemoteEngine(server.url, model="m").generate(ASK, GREEDY, 64))
        except RemoteError as exc:
            assert "\n" not in str(exc)
            assert exc.partial.startswith("Hel")
            assert str(exc).startswith((WireError.PREFIX, "the server reported an error"))
        else:
            assert isinstance(events[-1], FinishedEvent) and events[-1].text.startswith("Hel")


def nested(depth: int) -> str:
    return '{"choices": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize(
    ("event", "says"),
    [
        ('{"choices": "abc"}', "choices as str, not a list"),
        ('{"choices": 5}', "choices as int, not a list"),
        ('{"choices": [{"delta": "abc"}]}', "a delta that is str, not an object"),
        ('{"choices": [{"delta": {"content": 5}}]}', "content as int, not text"),
        ('{"choices": [{"delta": {"content": "x"}}], "timings": {"predicted_n": "abc"}}', "timings.predicted_n as str"),
        (
            '{"choices": [{"delta": {"content": "x"}}], "tandem": {"tokens": [{"text": "x", "origin": "alien"}]}}',
            "has the origin 'alien', not one of",
        ),
        (nested(100_000), "JSON nested too deeply"),
        ('{"choices": [], "timings": {"prompt_n": ' + "9" * 5000 + "}}", "malformed JSON"),
        ("{not json", "malformed JSON '{not json'"),
        ("[1, 2]", "an event that is not an object (list)"),
    ],
)
def test_the_cases_found_by_hand_each_end_in_one_line(event: str, says: str) -> None:
    with hs.HostileServer(hs.events([hs.chunk("Hel"), event])) as server, pytest.raises(RemoteError) as info:
        list(RemoteEngine(server.url, model="m").generate(ASK, GREEDY, 64))
    message = str(info.value)
    assert message.startswith(WireError.PREFIX) and says in message and "\n" not in message
    assert info.value.partial == "Hel" and len(message) < 300


@pytest.mark.parametrize("url", ["http://[::1", "http://[::1]:99999/v1", "ftp://host/v1", "http:///v1", "localhost"])
def test_a_malformed_url_is_one_line_before_any_connection(url: str) -> None:
    engine = RemoteEngine(url, model="m")
    with pytest.raises(RemoteError, match="is not a usable server URL"):
        list(engine.generate(ASK, GREEDY, 8))
    with pytest.raises(RemoteError, match="is not a usable server URL"):
        engine.list_models()


def test_a_valid_chunk_still_streams_as_before() -> None:
    assert isinstance(tandem_step(parse_event(json.dumps(valid_chunk()), LIMIT).tandem), StepEvent)  # type: ignore[arg-type]
