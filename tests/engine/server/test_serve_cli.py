"""`tandem serve`'s new options as a user types them: the key from a file or the environment, allowed
origins and the request log on standard error (the real CLI on the SmolLM2 pair, driven by `openai`)."""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.engine.server.raw_http import Reply, read_reply, request_bytes
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
ASK = [{"role": "user", "content": "Name three colours."}]
# Long enough to be saved by the prefix cache (over MIN_PREFIX_TOKENS, 512), and not much longer: each server reads it.
_FACTS = "\n".join(f"Entry {i}: the lynx near Graz was {i % 9 + 1} years old in spring." for i in range(36))
DOCUMENT_QUESTION = [{"role": "user", "content": f"{_FACTS}\n\nHow old was the lynx in entry 12?"}]


@contextmanager
def serve(
    small_pair: tuple[Path, Path], *options: str, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    command = [sys.executable, "main.py", "serve", "--port", "0", "--target", str(small_pair[0]), "--draft",
               str(small_pair[1]), "--draft-max", "3", "--ctx", "512", "--threads", "1", *options]  # fmt: skip
    environment = {k: v for k, v in os.environ.items() if k != "TANDEM_API_KEY"} | (env or {})
    process = subprocess.Popen(
        command, cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert " at http://" in line, line + (process.stderr.read() if process.stderr else "")
        yield line.rsplit(" at ", 1)[1].strip(), process
    finally:
        process.terminate()
        process.wait(30)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _stderr_until(process: subprocess.Popen[str], needle: str, timeout: float = 60.0) -> str:
    """What the server wrote to standard error until a line holding ``needle`` (or ``timeout`` s, or its end).

    Read from the pipe's descriptor, not the text stream, so nothing waits in Python's buffer.
    """
    assert process.stderr is not None
    fd = process.stderr.fileno()
    seen = b""
    deadline = time.monotonic() + timeout
    while needle.encode() not in seen and (left := deadline - time.monotonic()) > 0:
        if not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        seen += chunk
    return seen.decode("utf-8", "replace")


def get(url: str, raw: bytes) -> Reply:
    host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(raw)
        return read_reply(sock)


def test_the_key_from_a_file_an_origin_and_the_request_log(small_pair: tuple[Path, Path], tmp_path: Path) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("s3cret-from-file\n")
    with serve(small_pair, "--api-key-file", str(key_file), "--cors-origin", "http://localhost:3000") as (url, process):
        good = openai.OpenAI(base_url=url, api_key="s3cret-from-file", max_retries=0, timeout=300)
        assert good.chat.completions.create(model="m", messages=ASK, max_tokens=4).choices  # type: ignore[arg-type]
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=url, api_key="wrong", max_retries=0, timeout=60).models.list()
        allowed = get(url, request_bytes("GET", "/v1/models", headers={"Origin": "http://localhost:3000"}))
        assert allowed.status == 401 and allowed.headers["access-control-allow-origin"] == "http://localhost:3000"
        assert get(url, request_bytes("GET", "/v1/models", headers={"Origin": "http://evil.example"})).status == 403
        # The handler writes its log line after the answer has gone: wait for it before stopping the server.
        early = _stderr_until(process, " 403 ")
        process.terminate()
        _, err = process.communicate(timeout=30)
        err = early + err
    log = [line for line in err.splitlines() if " tokens " in line]
    assert any(" POST /v1/chat/completions 200 " in line for line in log), err
    assert any(" GET /v1/models 401 - tokens " in line for line in log), err
    assert any(" GET /v1/models 403 - tokens " in line for line in log), err


def test_the_key_from_the_environment_and_a_quiet_log(small_pair: tuple[Path, Path]) -> None:
    with serve(small_pair, "--quiet", env={"TANDEM_API_KEY": "from-env"}) as (url, process):
        models = openai.OpenAI(base_url=url, api_key="from-env", max_retries=0, timeout=60).models.list()
        assert [m.id for m in models.data] == [small_pair[0].stem]
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=60).models.list()
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert " tokens " not in err


def _ask_document(url: str) -> dict[str, Any]:
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=300)
    reply = client.chat.completions.create(model="m", messages=DOCUMENT_QUESTION, max_tokens=4, temperature=0)  # type: ignore[arg-type]
    extra = reply.model_extra or {}
    assert reply.usage is not None and reply.usage.prompt_tokens_details is not None
    return {
        "prompt": reply.usage.prompt_tokens,
        "cached": reply.usage.prompt_tokens_details.cached_tokens,
        "read": extra["timings"]["prompt_n"],
        "cache_n": extra["timings"]["cache_n"],
    }


def test_a_restarted_server_reads_a_long_prompt_from_the_prefix_cache(
    small_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    """As `chat` does: the saved prefix and the learned costs outlive the process; --no-prefix-cache reads afresh."""
    data = {"TANDEM_DATA_DIR": str(tmp_path / "data")}
    with serve(small_pair, "--quiet", "--ctx", "2048", env=data) as (url, _):
        first = _ask_document(url)
    assert first["cached"] == first["cache_n"] == 0 and first["read"] == first["prompt"] > 600
    assert (tmp_path / "data" / "cache" / "controller-profiles.json").is_file()  # the learned costs, saved
    with serve(small_pair, "--quiet", "--ctx", "2048", env=data) as (url, _):
        second = _ask_document(url)
    assert second["prompt"] == first["prompt"]
    assert second["cached"] == second["cache_n"] == second["prompt"] - 1 and second["read"] == 1
    with serve(small_pair, "--quiet", "--ctx", "2048", "--no-prefix-cache", env=data) as (url, _):
        off = _ask_document(url)
    assert off["cached"] == 0 and off["read"] == first["prompt"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--api-key", "a", "--api-key-file", "f"], "not allowed with argument"),
        (["--cors-origin", "localhost:3000"], "--cors-origin: 'localhost:3000' is not a web origin"),
        (["--api-key-file", "/nonexistent/key"], "cannot read --api-key-file /nonexistent/key"),
        (["--max-connections", "0"], "--max-connections must be >= 1"),
        (["--mmproj", "/nonexistent/mmproj.gguf"], "--mmproj: /nonexistent/mmproj.gguf is not a file"),
    ],
)
def test_bad_options_are_refused_before_loading(options: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "main.py", "serve", "--port", "0", *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert done.stdout == ""
