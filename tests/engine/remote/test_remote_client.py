"""The remote engine against real local servers: Tandem's own `serve`, and a replay server for the rest."""

from __future__ import annotations

import base64
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.conversation.chat import Message
from app.core.conversation.images import ImageInput
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent, TokenOrigin
from app.core.decoding.sampling import SamplingParams
from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.remote.client import NO_STATS_NOTE, VLLM_NOTE, RemoteEngine, ServerKind
from app.engine.remote.errors import RemoteError
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine
from tests.engine.remote.replay_server import ReplayHandler, ReplayServer, chat_chunk
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
FIXTURES = Path(__file__).parent / "fixtures"
ASK = [Message("user", "Name three colours.")]
GREEDY = SamplingParams(temperature=0)


def collect(engine: RemoteEngine, **kwargs: object) -> tuple[list[StepEvent], FinishedEvent]:
    steps: list[StepEvent] = []
    for event in engine.generate(ASK, GREEDY, int(kwargs.pop("max_tokens", 24)), **kwargs):  # type: ignore[arg-type]
        if isinstance(event, StepEvent):
            steps.append(event)
        else:
            return steps, event
    raise AssertionError("no finished event")


@pytest.fixture(scope="module")
def tandem_server(small_pair: tuple[Path, Path]) -> Iterator[RunningServer]:
    engine = ServerEngine(
        PairConfig(small_pair[0], small_pair[1], DrafterKind.MODEL, n_ctx=512, n_threads=1), draft_length=3
    )
    engine.start()
    with RunningServer(engine, api_key="k") as running:
        yield running


def test_tandem_serve_as_a_remote_keeps_every_origin(tandem_server: RunningServer) -> None:
    engine = RemoteEngine(tandem_server.url, api_key="k")
    steps, finished = collect(engine)
    assert engine.last.kind is ServerKind.TANDEM and engine.model == tandem_server.engine.model_name
    assert "".join(s.text for s in steps) == finished.text and finished.text
    origins = {t.origin for s in steps for t in s.tokens}
    assert TokenOrigin.DRAFT in origins or TokenOrigin.CORRECTED in origins  # K=3 drafts every step
    assert finished.stats.drafted == sum(s.drafted for s in steps) == engine.last.timings["draft_n"]
    assert finished.stats.emitted == sum(len(s.tokens) for s in steps)


def test_cli_remote_chat_prints_the_local_json_shape(tandem_server: RunningServer) -> None:
    done = subprocess.run(
        [sys.executable, "main.py", "chat", "--remote", tandem_server.url, "--api-key", "k", "--max-tokens", "16",
         "--json", "Name three colours."],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert set(payload) >= {"text", "tokens", "finish_reason", "drafter", "stats"}
    assert "".join(t["text"] for t in payload["tokens"]) == payload["text"]
    assert payload["server"]["kind"] == "tandem" and payload["stats"]["drafted"] > 0


def test_a_wrong_key_is_one_clear_error(tandem_server: RunningServer) -> None:
    with pytest.raises(RemoteError, match="refused the API key"):
        collect(RemoteEngine(tandem_server.url, api_key="wrong"))


def test_llama_server_counters_become_steps_and_origins() -> None:
    # Hand-written from llama-server's documented behaviour: counters move on a step's first chunk.
    stream = [
        chat_chunk(None, None),
        chat_chunk("A", None, timings={"predicted_n": 1}),  # the first token: no draft yet
        chat_chunk(" red", None, timings={"predicted_n": 2, "draft_n": 3, "draft_n_accepted": 2}),
        chat_chunk(",", None, timings={"predicted_n": 3, "draft_n": 3, "draft_n_accepted": 2}),
        chat_chunk(" blue", None, timings={"predicted_n": 4, "draft_n": 3, "draft_n_accepted": 2}),  # corrected
        chat_chunk(" and", None, timings={"predicted_n": 5, "draft_n": 6, "draft_n_accepted": 5}),
        chat_chunk(" green", None, timings={"predicted_n": 7, "draft_n": 6, "draft_n_accepted": 5}),  # 2 tokens
        chat_chunk(".", "stop", timings={"predicted_n": 8, "draft_n": 6, "draft_n_accepted": 5}),  # bonus
        {"choices": [], "usage": {"completion_tokens": 8}, "timings": {"prompt_n": 9, "predicted_n": 8,
                                                                        "draft_n": 6, "draft_n_accepted": 5}},
    ]  # fmt: skip
    with ReplayServer(lambda h: h.send_events(stream), owner="llamacpp") as server:
        engine = RemoteEngine(server.url)
        steps, finished = collect(engine)
    assert engine.last.kind is ServerKind.LLAMA_SERVER
    assert [(s.drafted, s.accepted, len(s.tokens)) for s in steps] == [(0, 0, 1), (3, 2, 3), (3, 3, 4)]
    origins = [t.origin.value for s in steps for t in s.tokens]
    assert origins == ["target", "draft", "draft", "corrected", "draft", "draft", "draft", "bonus"]
    assert (finished.stats.drafted, finished.stats.accepted, finished.stats.prompt_tokens) == (6, 5, 9)
    # The time to the first token is what this client saw; what the server had cached it does not say.
    figures = finished.stats.prompt_figures
    assert figures is not None and figures.prompt_reused is None and figures.time_to_first_token_ms > 0
    assert finished.stats.to_dict()["prompt_reused"] is None
    assert finished.text == "A red, blue and green."
    assert server.bodies[0]["timings_per_token"] is True and server.bodies[0]["stream_options"]["include_usage"]


def test_vllm_metrics_fill_the_statistics_but_not_the_colours() -> None:
    recorded = json.loads((FIXTURES / "vllm_spec_stream.json").read_text())["events"]
    with ReplayServer(lambda h: h.send_events(recorded), owner="vllm") as server:
        engine = RemoteEngine(server.url, model="qwen")
        steps, finished = collect(engine)
    stats = finished.stats
    assert engine.last.kind is ServerKind.VLLM and engine.last.note == VLLM_NOTE
    assert (stats.steps, stats.drafted, stats.accepted) == (6, 18, 9)
    assert stats.acceptance_rate == 0.5
    # acceptance_histogram [1, 1, 2, 2]: position 0 accepted in 5 of 6 steps, 1 in 4, 2 in 2.
    assert stats.position_hits == [5, 4, 2] and stats.position_attempts == [6, 6, 6]
    assert {t.origin for s in steps for t in s.tokens} == {TokenOrigin.TARGET}
    assert finished.text == "def add(a, b):\n    return a + b\n" and finished.reason is FinishReason.EOG


def test_a_plain_server_says_it_reports_no_draft_statistics() -> None:
    stream = [chat_chunk("Hello"), chat_chunk(" there", "stop")]
    with ReplayServer(lambda h: h.send_events(stream)) as server:
        engine = RemoteEngine(server.url)
        steps, finished = collect(engine)
    assert engine.last.kind is ServerKind.PLAIN and engine.last.note == NO_STATS_NOTE
    assert finished.text == "Hello there" and finished.stats.drafted == 0 and len(steps) == 2


@pytest.mark.parametrize(
    ("events", "done", "message"),
    [
        ([chat_chunk("Hel"), "{not json"], True, "cannot read: malformed JSON '{not json'"),
        ([chat_chunk("Hel"), chat_chunk("lo")], False, "ended before the reply did"),
        ([chat_chunk("Hel"), {"error": {"message": "out of memory"}}], True, "out of memory"),
    ],
)
def test_a_broken_stream_keeps_the_partial_reply(events: list, done: bool, message: str) -> None:
    with ReplayServer(lambda h: h.send_events(events, done=done)) as server, pytest.raises(RemoteError) as info:
        collect(RemoteEngine(server.url))
    assert message in str(info.value)
    assert info.value.partial.startswith("Hel")


@pytest.mark.parametrize(("status", "message"), [(401, "refused the API key"), (404, "no such model"), (500, "500")])
def test_http_errors_are_one_line(status: int, message: str) -> None:
    def refuse(h: ReplayHandler) -> None:
        h.send_json(status, {"error": {"message": f"status {status}", "type": "x"}})

    with ReplayServer(refuse) as server, pytest.raises(RemoteError, match=message):
        collect(RemoteEngine(server.url, model="m"))


def test_connection_refused_and_time_out() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(RemoteError, match="cannot connect"):
        collect(RemoteEngine(f"http://127.0.0.1:{port}/v1", model="m"))
    release = threading.Event()
    with ReplayServer(lambda h: release.wait(10)) as server:
        try:
            with pytest.raises(RemoteError, match="did not answer in time"):
                collect(RemoteEngine(server.url, model="m", read_timeout_s=0.5))
        finally:
            release.set()


def test_stop_closes_the_stream() -> None:
    stream = [chat_chunk(f" {i}") for i in range(200)]
    stop = threading.Event()
    seen: list[str] = []

    def should_stop() -> bool:
        return stop.is_set()

    with ReplayServer(lambda h: h.send_events(stream, pause_s=0.01)) as server:
        engine = RemoteEngine(server.url, model="m")
        for event in engine.generate(ASK, GREEDY, 500, should_stop=should_stop):
            if isinstance(event, StepEvent):
                seen.append(event.text)
                if len(seen) == 3:
                    stop.set()
            else:
                finished = event
    assert finished.reason is FinishReason.CANCELLED and len(seen) == 3


def test_a_message_image_is_passed_on_as_an_image_url_part() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
    ask = [Message("user", "What is this?", images=(ImageInput(name="photo.png", data=png),))]
    with ReplayServer(lambda h: h.send_events([chat_chunk("A cat.", "stop")])) as server:
        events = list(RemoteEngine(server.url).generate(ask, GREEDY, 4))
    assert isinstance(events[-1], FinishedEvent) and events[-1].text == "A cat."
    (sent,) = server.bodies[0]["messages"]
    assert sent["content"] == [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()}},
    ]
