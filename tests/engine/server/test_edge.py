"""`serve`'s HTTP edge under attack (issue 25): raw sockets against the real server on the SmolLM2 pair.

Idle and half-sent connections, HTTP/0.9, short bodies, more connections than the cap, a burst, hostile
JSON and a handler bug; every case ends in an HTTP answer or a close within its time-out, and the
server serves a normal request afterwards. Limits are small here so each case takes seconds.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import openai
import pytest

from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.edge import ConnectionSlots, EdgeLimits
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine
from tests.engine.server.raw_http import (
    connect,
    exchange,
    is_closed,
    post_json,
    read_reply,
    request_bytes,
    seconds_until_closed,
)

LIMITS = EdgeLimits(
    max_connections=8, header_timeout=3.0, body_timeout=2.0, idle_timeout=1.0, write_timeout=10.0, evict_after=0.5
)
CHAT = "/v1/chat/completions"
ASK = {"model": "m", "messages": [{"role": "user", "content": "Name three colours."}], "max_tokens": 8}


def start(small_pair: tuple[Path, Path], limits: EdgeLimits = LIMITS, **options: object) -> RunningServer:
    engine = ServerEngine(PairConfig(small_pair[0], small_pair[1], DrafterKind.MODEL, n_ctx=512, n_threads=1), 3)
    engine.start()
    return RunningServer(engine, limits=limits, **options).start()  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def log() -> list[str]:
    return []


@pytest.fixture(scope="module")
def server(small_pair: tuple[Path, Path], log: list[str]) -> Iterator[RunningServer]:
    running = start(small_pair, log=log.append)
    yield running
    running.stop()


def connection_threads() -> int:
    return sum("process_request_thread" in t.name for t in threading.enumerate())


def still_serves(server: RunningServer) -> None:
    reply = post_json(server, CHAT, json.dumps(ASK).encode())
    assert reply.status == 200 and reply.json()["choices"][0]["message"]["content"]


def test_an_idle_connection_is_closed_after_the_idle_timeout(server: RunningServer) -> None:
    with connect(server) as sock:
        waited = seconds_until_closed(sock, 10)
    assert LIMITS.idle_timeout - 0.2 < waited < LIMITS.idle_timeout + 4


def test_a_keep_alive_connection_serves_requests_then_closes_when_idle(server: RunningServer) -> None:
    with connect(server) as sock:
        for _ in range(2):
            sock.sendall(request_bytes("GET", "/health"))
            reply = read_reply(sock)
            assert reply.status == 200 and reply.json() == {"status": "ok"}
        assert seconds_until_closed(sock, 10) < LIMITS.idle_timeout + 4


def test_slowly_sent_headers_get_408_at_the_header_deadline(server: RunningServer) -> None:
    started = time.monotonic()
    with connect(server) as sock:
        sock.sendall(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        answering = False
        while not answering and time.monotonic() - started < LIMITS.header_timeout + 5:
            try:
                sock.sendall(b"X")  # one byte of a header that never ends, as slowloris sends them
            except OSError:
                break
            sock.settimeout(0.25)
            try:
                # Peek, so the answer is read whole below: its head and body may come in separate packets.
                answering = bool(sock.recv(1, socket.MSG_PEEK))
            except TimeoutError:
                continue
        elapsed = time.monotonic() - started
        assert answering, "no answer before the header deadline passed"
        reply = read_reply(sock)
    assert reply.status == 408, reply
    assert reply.json()["error"]["type"] == "timeout_error"
    assert LIMITS.header_timeout - 0.3 < elapsed < LIMITS.header_timeout + 4


@pytest.mark.parametrize(
    ("line", "status"),
    [(b"GET /v1/models\r\n", 400), (b"GET / HTTP/0.9\r\n\r\n", 505), (b"GET / HTTP/2.0\r\n\r\n", 505)],
)
def test_http09_and_http2_request_lines_get_an_answer_and_a_close(
    server: RunningServer, line: bytes, status: int
) -> None:
    with connect(server) as sock:
        sock.sendall(line)
        reply = read_reply(sock)
        assert reply.status == status and reply.json()["error"]["message"]
        assert seconds_until_closed(sock, 5) < 2


def test_a_body_shorter_than_its_content_length_gets_408_at_the_body_deadline(server: RunningServer) -> None:
    head = request_bytes("POST", CHAT, b"x" * 1000)[:-1000]  # announces 1000 bytes
    with connect(server) as sock:
        sock.sendall(head + b'{"model": ')
        started = time.monotonic()
        reply = read_reply(sock)
        elapsed = time.monotonic() - started
    assert reply.status == 408
    assert LIMITS.body_timeout - 0.3 < elapsed < LIMITS.body_timeout + 4


def test_idle_connections_past_the_cap_make_room_and_threads_stay_bounded(server: RunningServer) -> None:
    # Connections of earlier tests may still be ending (slowly on a busy machine): they only go away.
    earlier = connection_threads()
    socks = [connect(server) for _ in range(LIMITS.max_connections)]
    try:
        time.sleep(0.2)
        threads = connection_threads()
        assert threads <= earlier + LIMITS.max_connections + 1
        time.sleep(LIMITS.evict_after)  # now they may be closed for newcomers
        socks += [connect(server) for _ in range(20)]  # cap + 20 in all
        for sock in socks[LIMITS.max_connections :]:
            sock.sendall(request_bytes("GET", "/health"))
        answers = [read_reply(sock).status for sock in socks[LIMITS.max_connections :]]
        assert set(answers) <= {200, 503} and 200 in answers
        time.sleep(0.2)
        assert connection_threads() <= earlier + LIMITS.max_connections + 1
        assert sum(is_closed(sock) for sock in socks[: LIMITS.max_connections]) >= 1  # the oldest idle made room
    finally:
        for sock in socks:
            sock.close()


def test_busy_connections_at_the_cap_mean_503_at_once(small_pair: tuple[Path, Path]) -> None:
    limits = EdgeLimits(max_connections=8, body_timeout=20.0, idle_timeout=20.0, evict_after=60.0)
    running = start(small_pair, limits)
    socks: list[socket.socket] = []
    try:
        for _ in range(limits.max_connections):  # bodies begun less than evict_after ago: never closed for a newcomer
            sock = connect(running)
            sock.sendall(request_bytes("POST", CHAT, b"x" * 1000)[:-990])
            socks.append(sock)
        _wait_for_slots(running, limits.max_connections)
        for _ in range(20):
            extra = connect(running)
            socks.append(extra)
            started = time.monotonic()
            extra.sendall(request_bytes("GET", "/health"))
            reply = read_reply(extra, timeout=5)
            assert reply.status == 503 and reply.headers["retry-after"] == "1"
            assert reply.json()["error"]["type"] == "server_error"
            assert time.monotonic() - started < 5  # not after the 60 s eviction age
        assert running.httpd.refused_busy == 20
        for sock in socks[: limits.max_connections]:
            sock.close()  # the slots free as their threads see the close
        deadline = time.monotonic() + 10
        while len(running.httpd.slots) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert exchange(running, request_bytes("GET", "/health")).status == 200
    finally:
        for sock in socks:
            sock.close()
        running.stop()


def _wait_for_slots(running: RunningServer, count: int) -> None:
    deadline = time.monotonic() + 30
    while len(running.httpd.slots) < count:
        assert time.monotonic() < deadline, f"{len(running.httpd.slots)} of {count} connections admitted"
        time.sleep(0.05)


def _stall_bodies(running: RunningServer, count: int) -> list[socket.socket]:
    """``count`` connections that send a chat request's head and the start of its body, then nothing."""
    socks = []
    for _ in range(count):
        sock = connect(running)
        sock.sendall(request_bytes("POST", CHAT, json.dumps(ASK).encode())[:-20])
        socks.append(sock)
    return socks


def test_stalled_request_bodies_at_the_cap_make_room_for_the_openai_client(small_pair: tuple[Path, Path]) -> None:
    limits = EdgeLimits()  # serve's own: 64 connections, a 60 s body deadline
    running = start(small_pair, limits)
    client = openai.OpenAI(base_url=running.url, api_key="unused", max_retries=0, timeout=30)  # < the body deadline
    socks: list[socket.socket] = []
    try:
        for _ in range(2):  # the attack again, on a house already full of stalled bodies: still answered
            socks += _stall_bodies(running, limits.max_connections)
            _wait_for_slots(running, limits.max_connections)
            time.sleep(limits.evict_after + 0.5)
            reply = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "Name a colour."}], max_tokens=4
            )
            assert reply.choices[0].finish_reason in ("stop", "length")
        assert sum(is_closed(sock) for sock in socks) >= limits.max_connections  # the oldest stalled bodies made room
    finally:
        for sock in socks:
            sock.close()
        running.stop()


def test_slowloris_connections_at_the_cap_make_room_for_a_real_client(small_pair: tuple[Path, Path]) -> None:
    limits = EdgeLimits(max_connections=8, header_timeout=30.0, evict_after=0.5)
    running = start(small_pair, limits)
    socks: list[socket.socket] = []
    try:
        for _ in range(limits.max_connections):  # heads that never end
            sock = connect(running)
            sock.sendall(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            socks.append(sock)
        time.sleep(limits.evict_after + 0.2)
        started = time.monotonic()
        for _ in range(3):
            assert exchange(running, request_bytes("GET", "/v1/models")).status == 200
        assert time.monotonic() - started < 5  # not after the 30 s header deadline
        time.sleep(0.2)
        assert sum(is_closed(sock) for sock in socks) >= 1 and running.httpd.refused_busy == 0  # the oldest made room
    finally:
        for sock in socks:
            sock.close()
        running.stop()


def test_a_burst_of_connections_gets_answers_not_resets(server: RunningServer) -> None:
    count = LIMITS.max_connections + 20
    barrier = threading.Barrier(count)
    statuses: list[int] = []
    failures: list[BaseException] = []

    def one() -> None:
        try:
            barrier.wait(30)
            statuses.append(httpx2.get(server.url[:-3] + "/health", timeout=30).status_code)
        except BaseException as exc:  # reported below
            failures.append(exc)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures[:3]
    assert len(statuses) == count and set(statuses) <= {200, 503} and statuses.count(200) >= LIMITS.max_connections


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nests deeper"),
        (b'{"model": "m", "x": ' + b"[" * 100 + b"]" * 100 + b"}", "nests deeper than 64"),
        (b'{"model": "m", "seed": ' + b"7" * 5000 + b"}", "longer than 40 characters"),
        (b'{"model": "m", "temperature": 0.' + b"5" * 5000 + b"}", "longer than 40 characters"),
        (b'{"model": "m", "temperature": NaN}', "NaN is not JSON"),
        (b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}', "lone UTF-16 surrogate"),
        (b'{"model": "m", "\\udfff": 1}', "lone UTF-16 surrogate"),
        (b'{"model": "m", "messages": "\xed\xa0\x80"}', "not valid UTF-8"),
        (b'{"x": [' + b"[]," * 250_000 + b"[]]}", "more than 200000 JSON arrays"),
    ],
    ids=["deep-100000", "deep-100", "seed-5000-digits", "float-5000-digits", "nan", "surrogate", "surrogate-key",
         "surrogate-bytes", "container-bomb"],
)  # fmt: skip
def test_hostile_json_gets_400_not_a_dead_connection(server: RunningServer, body: bytes, message: str) -> None:
    reply = post_json(server, CHAT, body)
    assert reply.status == 400, reply.body[:300]
    assert reply.json()["error"]["type"] == "invalid_request_error"
    assert message in reply.json()["error"]["message"]


def test_hostile_json_leaves_the_server_serving(server: RunningServer) -> None:
    post_json(server, CHAT, b'{"seed": ' + b"9" * 5000 + b"}")
    still_serves(server)


def test_a_handler_bug_is_a_json_500_and_the_server_goes_on(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    def broken(request: object) -> None:
        raise RuntimeError("an injected bug")

    monkeypatch.setattr(server.engine, "submit", broken)  # fault injection into the real server
    reply = post_json(server, CHAT, json.dumps(ASK).encode())
    assert reply.status == 500 and reply.json()["error"] == {
        "message": "internal server error: RuntimeError",
        "type": "server_error",
        "param": None,
        "code": None,
    }
    assert "an injected bug" in capfd.readouterr().err  # the traceback is ours, not the client's
    monkeypatch.undo()
    still_serves(server)


def test_the_key_is_checked_before_the_body_is_read(small_pair: tuple[Path, Path]) -> None:
    running = start(small_pair, EdgeLimits(body_timeout=60.0), api_key="sesame")
    try:
        for extra in ({}, {"Expect": "100-continue"}):
            head = request_bytes("POST", CHAT, b"x" * 1_000_000, {"Authorization": "Bearer wrong", **extra})
            with connect(running) as sock:
                sock.sendall(head[:-1_000_000])  # the headers announce a megabyte that never comes
                started = time.monotonic()
                reply = read_reply(sock, timeout=10)
                assert reply.status == 401 and time.monotonic() - started < 5  # not after the 60 s body deadline
                assert reply.json()["error"]["type"] == "authentication_error"
        good = openai.OpenAI(base_url=running.url, api_key="sesame", max_retries=0, timeout=300)
        assert good.chat.completions.create(model="m", messages=ASK["messages"], max_tokens=4).choices  # type: ignore[arg-type]
    finally:
        running.stop()


def test_each_request_has_one_log_line(server: RunningServer, log: list[str]) -> None:
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=300)
    before = len(log)
    reply = client.chat.completions.create(model="m", messages=ASK["messages"], max_tokens=8, temperature=0)  # type: ignore[arg-type]
    assert httpx2.get(server.url + "/nothing", timeout=30).status_code == 404
    assert reply.usage is not None
    deadline = time.monotonic() + 10
    while len(log) < before + 2 and time.monotonic() < deadline:  # each line is written once its answer went out
        time.sleep(0.02)
    lines = log[before:]
    assert len(lines) == 2, lines
    pattern = r"\S+Z 127\.0\.0\.1 POST /v1/chat/completions 200 (\d+) tokens \d+ ms"
    match = re.fullmatch(pattern, lines[0])
    assert match and int(match.group(1)) == reply.usage.completion_tokens
    assert re.fullmatch(r"\S+Z 127\.0\.0\.1 GET /v1/nothing 404 - tokens \d+ ms", lines[1])
    exchange(server, b"GET /\x1b]52;c;aGk=\x07 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    while len(log) < before + 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert "\x1b" not in log[-1] and "\\x1b]52" in log[-1]  # control bytes from a client never reach a terminal


def test_stopping_the_server_ends_its_keep_alive_connections(small_pair: tuple[Path, Path]) -> None:
    running = start(small_pair, EdgeLimits(idle_timeout=60.0))
    with connect(running) as sock:
        sock.sendall(request_bytes("GET", "/health"))
        assert read_reply(sock).status == 200
        running.stop()  # the window's switch turned off: an editor's open connection must not outlive it
        assert seconds_until_closed(sock, 20) < 10  # the idle time-out would keep it 60 s


def test_one_network_address_holds_at_most_half_the_slots() -> None:
    slots = ConnectionSlots(cap=4, evict_after=60.0)
    pairs = [socket.socketpair() for _ in range(6)]
    try:
        ours = [a for a, _ in pairs]
        assert slots.admit(ours[0], "192.168.1.9") and slots.admit(ours[1], "192.168.1.9")
        assert not slots.admit(ours[2], "192.168.1.9")  # its half is taken, and busy
        assert slots.admit(ours[2], "192.168.1.10") and slots.admit(ours[3], "192.168.1.10")
        assert not slots.admit(ours[4], "127.0.0.1") and len(slots) == 4  # the cap itself
        slots.release(ours[0])
        assert slots.admit(ours[4], "127.0.0.1")
        assert not slots.admit(ours[5], "127.0.0.1")
        short = ConnectionSlots(cap=4, evict_after=0.0)
        assert short.admit(ours[0], "127.0.0.1") and short.admit(ours[1], "127.0.0.1")
        short.set_idle(ours[0])  # the longest idle of all
        assert short.admit(ours[2], "10.0.0.2") and short.admit(ours[3], "10.0.0.2")
        short.set_idle(ours[2])
        assert short.admit(pairs[0][1], "10.0.0.2")  # over its share: its own idle connection made room
        ours[2].settimeout(5)
        assert ours[2].recv(1) == b""  # closed for the newcomer (end-of-file on its side)
        assert short.set_busy(ours[0])  # the other client's idle connection was left alone
    finally:
        for a, b in pairs:
            a.close()
            b.close()
