"""`tandem chat --remote` against hostile and key-checking servers: one line on stderr, the key never in argv.

The CLI runs as a subprocess (``main.py``), as a user runs it; the servers are
the socket servers of tests/engine/remote/hostile_server.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.engine.remote import hostile_server as hs
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
KEY = "sk-test-0123456789"


def chat(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "TANDEM_API_KEY"}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "main.py", "chat", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False, env=full_env,
    )  # fmt: skip


def key_checking(c: hs.Connection) -> None:
    """Answers only a request that carries the key; says which key it saw otherwise."""
    if f"authorization: bearer {KEY}".lower() not in c.request_head.lower():
        body = json.dumps({"error": {"message": "no or wrong key"}}).encode()
        c.head(401, "application/json", len(body))
        c.send(body)
        return
    hs.events([hs.chunk("Hello"), hs.chunk(" there", "stop")])(c)


@pytest.mark.parametrize("how", ["file", "env"])
def test_the_key_can_come_from_a_file_or_the_environment(tmp_path: Path, how: str) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n")
    with hs.HostileServer(key_checking) as server:
        if how == "file":
            done = chat("--remote", server.url, "--model", "m", "--api-key-file", str(key_file), "--json", "Hi")
        else:
            done = chat("--remote", server.url, "--model", "m", "--json", "Hi", env={"TANDEM_API_KEY": KEY})
        refused = chat("--remote", server.url, "--model", "m", "--json", "Hi")  # no key at all
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["text"] == "Hello there"
    assert refused.returncode == 2 and "refused the API key (401): no or wrong key" in refused.stderr


def test_a_key_given_twice_or_an_empty_key_file_is_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_text("\n")
    both = chat("--remote", "http://127.0.0.1:9/v1", "--api-key", "k", "--api-key-file", str(empty), "Hi")
    assert (
        both.returncode == 2
        and both.stderr.strip() == "error: give the API key once: --api-key or --api-key-file, not both"
    )
    none = chat("--remote", "http://127.0.0.1:9/v1", "--api-key-file", str(empty), "Hi")
    assert none.returncode == 2 and none.stderr.strip() == f"error: the API key file {empty} is empty"


@pytest.mark.parametrize(
    ("script", "args", "says"),
    [
        (hs.events([hs.chunk("Hel"), '{"choices": "abc"}']), (), "cannot read: choices as str"),
        (hs.events([hs.chunk("Hel"), '{"choices": ' + "[" * 100_000 + "]" * 100_000 + "}"]), (), "nested too deep"),
        (hs.keepalives, ("--remote-deadline", "1.5"), "within the 1.5 s deadline"),
        (hs.keepalives, ("--remote-idle-timeout", "1"), "sent no event for 1 s"),
        (hs.endless_line, (), "an event of more than 1,048,576 bytes"),
    ],
)
def test_hostile_servers_end_the_cli_in_one_line_with_the_partial_reply(
    script: hs.Script, args: tuple[str, ...], says: str
) -> None:
    with hs.HostileServer(script) as server:
        started = time.perf_counter()
        done = chat("--remote", server.url, "--model", "m", *args, "Hi")
        seconds = time.perf_counter() - started
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], done.stderr
    assert "Traceback" not in done.stderr and seconds < 30


def test_the_cli_holds_the_server_to_max_tokens() -> None:
    with hs.HostileServer(hs.too_many_tokens) as server:
        done = chat("--remote", server.url, "--model", "m", "--max-tokens", "20", "--json", "Hi")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["text"] == " word" * 20 and payload["finish_reason"] == "length"


def test_a_malformed_url_is_one_line() -> None:
    done = chat("--remote", "http://[::1", "Hi")
    assert (
        done.returncode == 2
        and done.stderr.strip() == "error: 'http://[::1/v1' is not a usable server URL: Invalid IPv6 URL"
    )
