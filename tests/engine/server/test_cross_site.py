"""No cross-site use of `serve` (issue 25): Host names, browser origins, CORS preflight and content types.

A web page can make the browser POST `text/plain` or a form to 127.0.0.1 (no preflight), and with
DNS rebinding its own host name points at 127.0.0.1; both are refused, against the real server on
the SmolLM2 pair, while an origin the user allowed gets proper CORS and the `openai` client works.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.edge import AccessPolicy, normalise_origin, parse_origins
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine
from tests.engine.server.raw_http import address, exchange, request_bytes

ALLOWED = "http://localhost:3000"
CHAT = "/v1/chat/completions"
ASK = {"model": "m", "messages": [{"role": "user", "content": "Name three colours."}], "max_tokens": 4}
BODY = json.dumps(ASK).encode()


@pytest.fixture(scope="module")
def server(small_pair: tuple[Path, Path]) -> Iterator[RunningServer]:
    engine = ServerEngine(PairConfig(small_pair[0], small_pair[1], DrafterKind.MODEL, n_ctx=512, n_threads=1), 3)
    engine.start()
    running = RunningServer(engine, cors_origins=[ALLOWED + "/"]).start()
    yield running
    running.stop()


def port(server: RunningServer) -> int:
    return address(server)[1]


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "localhost.evil.example", "127.0.0.1.nip.io"])
def test_a_foreign_host_name_is_refused(server: RunningServer, host: str) -> None:
    host = host.format(port=port(server))
    for raw in (
        request_bytes("GET", "/v1/models", host=host),
        request_bytes("POST", CHAT, BODY, host=host),
        request_bytes("POST", CHAT, BODY, host=host, content_type="text/plain"),
    ):
        reply = exchange(server, raw)
        assert reply.status == 403 and "DNS rebinding" in reply.json()["error"]["message"]
        assert reply.json()["error"]["type"] == "permission_error"


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "[::1]:{port}", "localhost."])
def test_this_machines_names_are_answered(server: RunningServer, host: str) -> None:
    reply = exchange(server, request_bytes("GET", "/v1/models", host=host.format(port=port(server))))
    assert reply.status == 200 and reply.json()["data"]


def test_a_missing_or_doubled_host_is_refused(server: RunningServer) -> None:
    assert exchange(server, request_bytes("GET", "/v1/models", host=None)).status == 403
    doubled = request_bytes("GET", "/v1/models", headers={"Host": "evil.example"})
    assert exchange(server, doubled).status == 403
    # HTTP/1.0 has no Host header to send: no browser speaks it, so it is answered.
    assert exchange(server, b"GET /v1/models HTTP/1.0\r\n\r\n").status == 200


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/plain", BODY),
        ("application/x-www-form-urlencoded", b"a=" + BODY),
        ("multipart/form-data; boundary=x", b"--x\r\n\r\n" + BODY + b"\r\n--x--\r\n"),
        ("application/json", BODY),
    ],
)
def test_a_page_from_another_origin_is_refused_whatever_it_sends(
    server: RunningServer, content_type: str, body: bytes
) -> None:
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{port(server)}", "http://localhost:3001"):
        raw = request_bytes("POST", CHAT, body, {"Origin": origin}, content_type=content_type)
        reply = exchange(server, raw)
        assert reply.status == 403 and "not allowed" in reply.json()["error"]["message"]
        assert "access-control-allow-origin" not in reply.headers


def test_a_cross_site_fetch_without_origin_is_refused(server: RunningServer) -> None:
    raw = request_bytes("GET", "/v1/models", headers={"Sec-Fetch-Site": "cross-site"})
    assert exchange(server, raw).status == 403
    typed = request_bytes("GET", "/v1/models", headers={"Sec-Fetch-Site": "none"})  # the address bar
    assert exchange(server, typed).status == 200


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None]
)
def test_a_body_that_is_not_json_gets_415(server: RunningServer, content_type: str | None) -> None:
    reply = exchange(server, request_bytes("POST", CHAT, BODY, content_type=content_type))
    assert reply.status == 415 and "application/json" in reply.json()["error"]["message"]
    fine = exchange(server, request_bytes("POST", CHAT, BODY, content_type="application/json; charset=utf-8"))
    assert fine.status == 200


def test_an_allowed_origin_gets_a_preflight_and_cors_headers(server: RunningServer) -> None:
    asked = "authorization, content-type, x-stainless-os"
    preflight = request_bytes(
        "OPTIONS",
        CHAT,
        headers={"Origin": ALLOWED, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": asked},
    )
    reply = exchange(server, preflight)
    assert reply.status == 204 and reply.body == b""
    assert reply.headers["access-control-allow-origin"] == ALLOWED
    assert "POST" in reply.headers["access-control-allow-methods"]
    assert reply.headers["access-control-allow-headers"] == asked
    assert reply.headers["vary"] == "Origin"
    refused = exchange(server, preflight.replace(ALLOWED.encode(), b"http://evil.example"))
    assert refused.status == 403 and "access-control-allow-origin" not in refused.headers
    posted = exchange(server, request_bytes("POST", CHAT, BODY, {"Origin": ALLOWED}))
    assert posted.status == 200 and posted.headers["access-control-allow-origin"] == ALLOWED
    assert posted.json()["choices"][0]["message"]["content"]


def test_the_openai_client_works_as_before(server: RunningServer) -> None:
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=300)
    assert client.chat.completions.create(model="m", messages=ASK["messages"], max_tokens=4).choices  # type: ignore[arg-type]
    stream = client.chat.completions.create(model="m", messages=ASK["messages"], max_tokens=4, stream=True)  # type: ignore[arg-type]
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    # A page the user allowed may use it through the same client too.
    page = openai.OpenAI(
        base_url=server.url, api_key="x", max_retries=0, timeout=300, default_headers={"Origin": ALLOWED}
    )
    assert [m.id for m in page.models.list().data]


def test_a_wildcard_bind_answers_ip_addresses_and_this_machines_names_only() -> None:
    policy = AccessPolicy.for_bind("0.0.0.0", "0.0.0.0")
    assert policy.refusal(["192.168.1.20:8080"], [], None, False) is None
    assert policy.refusal(["[fe80::1]:8080"], [], None, False) is None
    assert policy.refusal(["localhost:8080"], [], None, False) is None
    assert policy.refusal(["rebind.evil.example:8080"], [], None, False) is not None
    lan = AccessPolicy.for_bind("192.168.1.20", "192.168.1.20")
    assert lan.refusal(["192.168.1.20"], [], None, False) is None
    assert lan.refusal(["127.0.0.1"], [], None, False) is not None  # not the address it listens on


def test_origins_are_checked_when_given() -> None:
    assert normalise_origin(" HTTP://LocalHost:3000/ ") == "http://localhost:3000"
    assert parse_origins(["http://a.test, https://b.test:8443", "http://a.test"]) == (
        "http://a.test",
        "https://b.test:8443",
    )
    for bad in ("*", "localhost:3000", "http://a.test/app", "http://a.test:port", "http://", "http://a.test?x=1"):
        with pytest.raises(ValueError, match="is not a web origin"):
            normalise_origin(bad)
