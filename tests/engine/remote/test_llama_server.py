"""The remote engine against a real llama-server built from the vendored llama.cpp, on the SmolLM2 pair."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.conversation.chat import Message
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent, TokenOrigin
from app.core.decoding.sampling import SamplingParams
from app.engine.remote.client import RemoteEngine, ServerKind
from app.engine.remote.errors import RemoteError
from app.engine.remote.llama_server import LlamaServerProcess, find_binary

# scripts/test.sh builds the binary; only an explicit opt-out may skip these tests.
pytestmark = [
    pytest.mark.skipif(
        find_binary() is None and os.environ.get("TANDEM_SKIP_LLAMA_SERVER") == "1",
        reason="TANDEM_SKIP_LLAMA_SERVER=1 and llama-server is not built",
    ),
    pytest.mark.subprocess,  # every test here starts llama-server
]
ASK = [Message("user", "Write a Python function that adds two numbers.")]
GREEDY = SamplingParams(temperature=0)


@pytest.fixture(scope="module")
def server(small_pair: tuple[Path, Path]) -> Iterator[LlamaServerProcess]:
    with LlamaServerProcess(small_pair[0], small_pair[1], n_ctx=1024, threads=1, api_key="secret") as running:
        yield running


def _run(engine: RemoteEngine, max_tokens: int = 48) -> tuple[list[StepEvent], FinishedEvent]:
    steps: list[StepEvent] = []
    for event in engine.generate(ASK, GREEDY, max_tokens):
        if isinstance(event, StepEvent):
            steps.append(event)
        else:
            return steps, event
    raise AssertionError("no finished event")


def test_steps_rebuilt_from_the_stream_add_up_to_the_servers_own_timings(server: LlamaServerProcess) -> None:
    engine = RemoteEngine(server.url, api_key="secret")
    steps, finished = _run(engine)
    final = engine.last.timings
    assert engine.last.kind is ServerKind.LLAMA_SERVER
    assert final["draft_n"] > 0  # --spec-type draft-simple really speculates
    assert sum(s.drafted for s in steps) == final["draft_n"]
    assert sum(s.accepted for s in steps) == final["draft_n_accepted"]
    assert finished.stats.acceptance_rate == pytest.approx(final["draft_n_accepted"] / final["draft_n"])
    assert "".join(s.text for s in steps) == finished.text
    origins = [t.origin for s in steps for t in s.tokens]
    assert TokenOrigin.DRAFT in origins  # a Q4_0 copy of the target agrees with it most of the time
    assert len(origins) == final["predicted_n"]


def test_the_prompt_its_cache_held_is_counted_as_reused(server: LlamaServerProcess) -> None:
    """llama-server's prompt_n counts what it read, cache_n what it kept: the reply's figures add both."""
    engine = RemoteEngine(server.url, api_key="secret")
    asked = [Message("user", "Name the planets of the solar system, one per line, with one fact each.")]
    replies = [list(engine.generate(asked, GREEDY, 4))[-1] for _ in range(2)]
    first, second = (r.stats for r in replies if isinstance(r, FinishedEvent))
    assert second.prompt_tokens == first.prompt_tokens > 10
    assert second.prompt_reused is not None and second.prompt_tokens - 2 <= second.prompt_reused < second.prompt_tokens


def test_stop_cancels_the_stream(server: LlamaServerProcess) -> None:
    engine = RemoteEngine(server.url, api_key="secret")
    seen = 0
    stop = threading.Event()
    finished = None
    for event in engine.generate(ASK, GREEDY, 400, should_stop=stop.is_set):
        if isinstance(event, StepEvent):
            seen += 1
            if seen == 2:
                stop.set()
        else:
            finished = event
    # The step still open when Stop came is shown too (its tokens had arrived), then nothing more.
    assert finished is not None and finished.reason is FinishReason.CANCELLED
    assert seen <= 3 and finished.stats.emitted < 50


def test_a_wrong_key_is_refused_in_one_line(server: LlamaServerProcess) -> None:
    with pytest.raises(RemoteError, match="refused the API key"):
        _run(RemoteEngine(server.url, api_key="nope"))


def test_a_killed_server_leaves_the_partial_reply(small_pair: tuple[Path, Path]) -> None:
    with LlamaServerProcess(small_pair[0], small_pair[1], n_ctx=1024, threads=1) as doomed:
        engine = RemoteEngine(doomed.url)
        text = ""
        with pytest.raises(RemoteError) as info:
            for event in engine.generate(ASK, SamplingParams(temperature=0.8, seed=1), 400):
                if isinstance(event, StepEvent):
                    text += event.text
                    if len(text) > 20:
                        doomed.kill()
    assert info.value.partial.startswith(text) and len(info.value.partial) >= len(text) > 20


def test_a_restarted_server_is_a_new_process_on_a_new_port(small_pair: tuple[Path, Path]) -> None:
    """What the benchmark does between prompts so that llama.cpp's n-gram pool forgets the earlier ones."""
    with LlamaServerProcess(small_pair[0], spec_type="ngram-mod", draft_max=8, n_ctx=512, threads=1) as lookup:
        assert lookup.process is not None
        old_pid, old_url = lookup.process.pid, lookup.url
        lookup.restart()
        assert lookup.process.pid != old_pid and lookup.url != old_url
        assert str(lookup.port) in lookup.command
        engine = RemoteEngine(lookup.url)
        steps, finished = _run(engine, max_tokens=8)
        assert steps and finished.text
        with pytest.raises(RemoteError):
            list(RemoteEngine(old_url).generate(ASK, GREEDY, 4))


def test_the_server_gets_the_gpu_layers_tandem_loaded_with(small_pair: tuple[Path, Path]) -> None:
    """The benchmark's llama-server runs the layers Tandem placed (0 on a CPU build); "all" is llama.cpp's 999."""
    binary = find_binary() or Path("llama-server")  # the command is only built here, not run
    cpu = LlamaServerProcess(small_pair[0], small_pair[1], binary=binary)
    assert cpu.command[cpu.command.index("-ngl") + 1] == "0" and cpu.command[cpu.command.index("-ngld") + 1] == "0"
    gpu = LlamaServerProcess(small_pair[0], small_pair[1], binary=binary, gpu_layers=(20, -1))
    assert gpu.command[gpu.command.index("-ngl") + 1] == "20"
    assert gpu.command[gpu.command.index("-ngld") + 1] == "999"
