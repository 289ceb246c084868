"""The remote client against the hostile servers of issue 25: every read bounded in bytes and time, Stop at once.

The servers (tests/engine/remote/hostile_server.py) are real sockets on 127.0.0.1
sending what an attacker would; the client is the real :class:`RemoteEngine`.
Memory is the peak of Python's allocations while the client reads
(tracemalloc), time is the wall clock to the error.
"""

from __future__ import annotations

import threading
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from app.core.conversation.chat import Message
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.decoding.sampling import SamplingParams
from app.engine.remote.client import RemoteEngine
from app.engine.remote.errors import RemoteError
from app.engine.remote.limits import RemoteLimits
from app.engine.remote.wire import WireError
from tests.engine.remote import hostile_server as hs

ASK = [Message("user", "Hi")]
GREEDY = SamplingParams(temperature=0)
MiB = 1 << 20


def measured(action: Callable[[], Any]) -> tuple[Any, float, float]:
    """``action``'s result (or the exception it raised), its peak Python memory in MiB and its seconds."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        result: Any = action()
    except Exception as exc:
        result = exc
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] / MiB
    tracemalloc.stop()
    return result, peak, seconds


def reply(engine: RemoteEngine, max_tokens: int = 64) -> tuple[list[StepEvent], FinishedEvent]:
    steps: list[StepEvent] = []
    for event in engine.generate(ASK, GREEDY, max_tokens):
        if isinstance(event, StepEvent):
            steps.append(event)
        else:
            return steps, event
    raise AssertionError("no finished event")


def test_an_endless_model_list_stops_at_the_response_cap() -> None:
    with hs.HostileServer(hs.endless_models) as server:
        result, peak, seconds = measured(lambda: RemoteEngine(server.url).list_models())
    assert isinstance(result, RemoteError), result
    assert "the server sent more than 16,777,216 bytes in one answer" in str(result)
    assert peak < 3 * 16 and seconds < 20  # before: 9.9 GB in 20 s


def test_an_event_line_that_never_ends_stops_at_the_event_cap() -> None:
    with hs.HostileServer(hs.endless_line) as server:
        result, peak, seconds = measured(lambda: reply(RemoteEngine(server.url)))
    assert isinstance(result, RemoteError), result
    assert str(result).startswith(WireError.PREFIX + "an event of more than 1,048,576 bytes")
    assert peak < 16 and seconds < 10  # before: 6 GB in 20 s


def test_an_error_status_with_an_endless_body_reads_only_its_start() -> None:
    with hs.HostileServer(hs.endless_500) as server:
        result, peak, seconds = measured(lambda: reply(RemoteEngine(server.url, model="m")))
    assert isinstance(result, RemoteError), result
    assert str(result).startswith(f"{server.url} answered 500: Internal error. Internal error.")
    assert len(str(result)) < 400 and peak < 4 and seconds < 5  # before: 3 GB in 5 s


def test_keep_alives_for_ever_meet_the_deadline_with_the_partial_reply() -> None:
    limits = RemoteLimits(deadline_s=1.5, idle_s=60)
    with hs.HostileServer(hs.keepalives) as server:
        result, _peak, seconds = measured(lambda: reply(RemoteEngine(server.url, limits=limits)))
    assert isinstance(result, RemoteError), result
    assert "did not finish the reply within the 1.5 s deadline" in str(result) and result.partial == "Hello"
    assert 1.4 < seconds < 10  # well before the 60 s idle time-out, with room for a busy machine


def test_keep_alives_alone_are_not_activity_for_the_idle_time_out() -> None:
    limits = RemoteLimits(deadline_s=60, idle_s=1.0)
    with hs.HostileServer(hs.keepalives) as server:
        result, _peak, seconds = measured(lambda: reply(RemoteEngine(server.url, limits=limits)))
    assert isinstance(result, RemoteError), result
    assert "sent no event for 1 s" in str(result) and result.partial == "Hello"
    assert 0.9 < seconds < 10  # well before the 60 s deadline, with room for a busy machine


def test_a_flood_of_empty_events_stops_at_the_reply_cap() -> None:
    limits = RemoteLimits(max_response_bytes=8 * MiB)
    with hs.HostileServer(hs.flood_events) as server:
        result, peak, seconds = measured(lambda: reply(RemoteEngine(server.url, limits=limits)))
    assert isinstance(result, RemoteError), result
    assert "the server sent more than 8,388,608 bytes in one reply" in str(result) and result.partial == "Hi"
    assert peak < 8 and seconds < 20


def test_the_clients_own_max_tokens_holds_against_a_server_that_keeps_sending() -> None:
    with hs.HostileServer(hs.too_many_tokens) as server:
        (steps, finished), _peak, seconds = measured(lambda: reply(RemoteEngine(server.url), max_tokens=50))
    assert finished.reason is FinishReason.MAX_TOKENS
    assert finished.text == " word" * 50 and len(steps) == 50 and seconds < 5


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"num_spec_tokens": 100_000_000, "acceptance_histogram": [1, 2]}, "num_spec_tokens = 100000000"),
        ({"num_spec_tokens": 3, "acceptance_histogram": list(range(30_000))}, "acceptance_histogram of 30,000"),
        ({"per_step_drafted": [10**9]}, "per_step_drafted holding 1000000000"),
    ],
)
def test_vllm_statistics_are_data_not_allocation_sizes(spec: dict[str, Any], message: str) -> None:
    with hs.HostileServer(lambda c: hs.vllm_huge(c, spec)) as server:
        result, peak, seconds = measured(lambda: reply(RemoteEngine(server.url)))
    assert isinstance(result, RemoteError), result
    assert str(result).startswith(WireError.PREFIX) and message in str(result)
    assert result.partial == "Hi" and peak < 8 and seconds < 5


def test_a_full_vllm_histogram_is_read_in_linear_time() -> None:
    width = 1024  # the most a step may draft
    spec = {
        "num_spec_steps": 100_000,
        "num_draft_tokens": width * 100_000,
        "num_accepted_draft_tokens": 1,
        "num_spec_tokens": width,
        "acceptance_histogram": [100] * (width + 1),
        "per_step_drafted": [width] * 100_000,
    }
    with hs.HostileServer(lambda c: hs.vllm_huge(c, spec)) as server:
        (_steps, finished), _peak, seconds = measured(lambda: reply(RemoteEngine(server.url)))
    assert finished.stats.position_hits[0] == 100 * width and finished.stats.position_hits[-1] == 100
    assert finished.stats.position_attempts == [100_000] * width
    assert seconds < 5


@pytest.mark.parametrize("script", [hs.trickle_line, hs.keepalives, hs.flood_events, hs.too_many_tokens])
def test_stop_ends_any_hostile_stream_at_once(script: hs.Script) -> None:
    with hs.HostileServer(script) as server:
        engine = RemoteEngine(server.url, limits=RemoteLimits(max_response_bytes=256 * MiB))
        threading.Timer(0.5, engine.cancel).start()
        started = time.perf_counter()
        events = list(engine.generate(ASK, GREEDY, 10**9))
        seconds = time.perf_counter() - started
    finished = events[-1]
    assert isinstance(finished, FinishedEvent) and finished.reason is FinishReason.CANCELLED
    # 0.5 s until Stop, then about 0.1 s on a quiet machine; the server never ends and the idle
    # time-out is 300 s, so the bound only leaves a busy machine room.
    assert seconds < 6


def test_the_client_asks_for_bytes_as_sent_so_the_caps_count_them() -> None:
    # A compressed body would be expanded before any cap saw it (a gzip bomb): the client asks for none.
    with hs.HostileServer(hs.events([hs.chunk("ok", "stop")])) as server:
        _steps, finished = reply(RemoteEngine(server.url, model="m"))
    assert finished.text == "ok"
    assert "accept-encoding: identity" in server.connections[0].request_head.lower()
