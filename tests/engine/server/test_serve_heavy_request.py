"""One heavy request against the real `serve` on the SmolLM2 pair (issue 52): a few megabytes of document are
decoded, read and tokenised on the preparation pool, so a one-line question sent after it is answered first, and
a client that leaves while its document is read has its work dropped before it reaches the engine."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import openai
import pytest

from app.core.attachments import chunks as chunks_module
from app.core.attachments.record import Attachment
from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.edge import EdgeLimits
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine
from tests.engine.server.raw_http import connect, request_bytes

CHAT = "/v1/chat/completions"


def _document(n_bytes: int) -> bytes:
    """Plain text of ``n_bytes``: numbered words, so every chunk differs (what makes planning it costly)."""
    words = (f"entry{i} " for i in range(n_bytes // 5))
    return "".join(words).encode("ascii")[:n_bytes]


def _heavy_message(n_bytes: int) -> dict:
    data = base64.b64encode(_document(n_bytes)).decode("ascii")
    parts = [
        {"type": "text", "text": "Summarise."},
        {"type": "file", "file": {"file_data": data, "filename": "log.txt"}},
    ]
    return {"role": "user", "content": parts}


def _wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 120  # a hang fails the test; no timing is asserted
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.02)


@pytest.fixture
def server(small_pair: tuple[Path, Path]) -> Iterator[RunningServer]:
    engine = ServerEngine(PairConfig(small_pair[0], small_pair[1], DrafterKind.MODEL, n_ctx=1024, n_threads=1), 3)
    engine.start()
    running = RunningServer(engine).start()
    yield running
    running.stop()


def test_a_small_request_is_answered_while_a_heavy_one_is_still_read(server: RunningServer) -> None:
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=300)
    finished: list[str] = []
    failures: list[BaseException] = []

    def heavy() -> None:
        try:
            reply = client.chat.completions.create(model="m", messages=[_heavy_message(1_000_000)], max_tokens=1)
            assert reply.usage is not None and reply.usage.prompt_tokens > 500  # chunks of the document went in
            finished.append("heavy")
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=heavy)
    thread.start()
    _wait_until(lambda: server.httpd.preparer.running >= 1)  # its 1.3 MB body is in and being read
    reply = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "Name a colour."}], max_tokens=2
    )
    assert reply.choices[0].finish_reason in ("stop", "length")
    finished.append("small")
    thread.join(timeout=240)
    assert not thread.is_alive() and not failures, failures
    assert finished == ["small", "heavy"]


def test_a_question_is_answered_while_a_long_document_is_chunked(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunking, release = threading.Event(), threading.Event()
    spans = chunks_module._section_spans

    def held(attachment: Attachment) -> list[tuple[int, int]]:
        if attachment.name == "log.txt":  # the long document: its chunking waits until the question is answered
            chunking.set()
            release.wait(timeout=300)
        return spans(attachment)

    monkeypatch.setattr(chunks_module, "_section_spans", held)
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=120)
    heavy: list[object] = []
    thread = threading.Thread(
        target=lambda: heavy.append(
            client.chat.completions.create(model="m", messages=[_heavy_message(200_000)], max_tokens=1)
        )
    )
    thread.start()
    try:
        assert chunking.wait(timeout=120), "the long document was never chunked"
        # Answered while the chunking is still held (a timeout here: it waited behind the chunking).
        reply = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Name a colour."}], max_tokens=2
        )
        assert reply.choices[0].finish_reason in ("stop", "length") and not release.is_set()
    finally:
        release.set()
    thread.join(timeout=240)
    assert not thread.is_alive() and len(heavy) == 1
    usage = getattr(heavy[0], "usage", None)
    assert usage is not None and usage.prompt_tokens > 500  # its chunks went in, as planned without the wait


def test_a_client_that_leaves_while_its_document_is_read_reaches_no_engine(server: RunningServer) -> None:
    body = json.dumps({"model": "m", "messages": [_heavy_message(1_000_000)], "max_tokens": 1}).encode()
    sock = connect(server)
    sock.sendall(request_bytes("POST", CHAT, body))
    preparer = server.httpd.preparer
    _wait_until(lambda: preparer.running >= 1)  # the body is in and being read
    sock.close()
    _wait_until(lambda: preparer.abandoned == 1)
    engine = server.engine
    assert isinstance(engine, ServerEngine)
    assert engine.requests.pending == 0 and engine.served == []  # nothing of it was queued
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=120)
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "Hi"}], max_tokens=2)
    assert reply.choices[0].finish_reason in ("stop", "length")


def test_a_preparation_past_its_deadline_is_a_503_and_reaches_no_engine(small_pair: tuple[Path, Path]) -> None:
    engine = ServerEngine(PairConfig(small_pair[0], small_pair[1], DrafterKind.MODEL, n_ctx=1024, n_threads=1), 3)
    engine.start()
    running = RunningServer(engine, limits=EdgeLimits(prepare_timeout=0.1)).start()  # less than 1 MB takes
    try:
        client = openai.OpenAI(base_url=running.url, api_key="unused", max_retries=0, timeout=120)
        with pytest.raises(openai.InternalServerError) as caught:
            client.chat.completions.create(model="m", messages=[_heavy_message(1_000_000)], max_tokens=1)
        assert caught.value.status_code == 503 and "reading the request took longer than 0.1 s" in caught.value.message
        assert running.httpd.preparer.abandoned == 1 and engine.served == []
    finally:
        running.stop()
