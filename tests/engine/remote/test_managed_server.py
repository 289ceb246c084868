"""Tandem's own llama-server for a model's own drafter (MTP, EAGLE-3, DFlash), on SYNTHETIC files.

The files come from ``tests/fixtures/synthetic_drafters.py``: random weights
with SmolLM2's tokenizer, written here because no small real model of these
kinds exists. They prove that llama.cpp loads each drafter, drafts with it
and keeps the target's greedy output; how often a real drafter is accepted
and how fast it is can only be measured on real weights.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.conversation.chat import Message
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.sampling import SamplingParams
from app.core.errors import TandemError
from app.engine.remote.client import RemoteEngine
from app.engine.remote.errors import RemoteError
from app.engine.remote.llama_server import LlamaServerProcess, find_binary
from app.engine.remote.managed import ManagedServer
from tests.fixtures.synthetic_drafters import SMOLLM2_FILE, Tokenizer, write_all

pytestmark = [
    pytest.mark.skipif(
        find_binary() is None and os.environ.get("TANDEM_SKIP_LLAMA_SERVER") == "1",
        reason="TANDEM_SKIP_LLAMA_SERVER=1 and llama-server is not built",
    ),
    pytest.mark.subprocess,  # every test here but the refusals starts llama-server
]
ASK = [Message("user", "Tell me a story about a lighthouse.")]
GREEDY = SamplingParams(temperature=0)
TOKENS = 32


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, models_folder: Path) -> dict[str, Path]:
    return write_all(tmp_path_factory.mktemp("synthetic"), Tokenizer.from_file(models_folder / SMOLLM2_FILE))


def _reply(engine: RemoteEngine) -> tuple[list[StepEvent], FinishedEvent]:
    steps: list[StepEvent] = []
    for event in engine.generate(ASK, GREEDY, TOKENS):
        if isinstance(event, StepEvent):
            steps.append(event)
        else:
            return steps, event
    raise AssertionError("no finished event")


def _alone(target: Path) -> str:
    with LlamaServerProcess(target, n_ctx=512, threads=1) as plain:
        return _reply(RemoteEngine(plain.url))[1].text


@pytest.mark.parametrize(
    ("target", "head", "spec_type"),
    [
        ("qwen35_mtp", None, "draft-mtp"),
        ("llama_target", "eagle3", "draft-eagle3"),
        ("llama_target", "dflash", "draft-dflash"),
    ],
)
def test_the_server_drafts_with_the_models_own_drafter_and_keeps_the_greedy_reply(
    files: dict[str, Path], target: str, head: str | None, spec_type: str
) -> None:
    managed = ManagedServer(files[target], files[head] if head else None, n_ctx=512, threads=1)
    assert managed.drafter.kind.value == spec_type
    assert managed.process.command[managed.process.command.index("--spec-type") + 1] == spec_type
    with managed:
        assert managed.engine is not None
        steps, finished = _reply(managed.engine)
        timings = managed.engine.last.timings
    # llama.cpp drafted with it on every step (random weights: the target rejects nearly every proposal).
    assert timings["draft_n"] > 0 and sum(s.drafted for s in steps) == timings["draft_n"]
    assert sum(s.accepted for s in steps) == timings["draft_n_accepted"]
    assert finished.stats.drafted == timings["draft_n"]
    assert finished.text == _alone(files[target])  # greedy: speculation changes nothing in the reply


def test_a_server_that_dies_mid_reply_is_named_and_the_partial_reply_kept(files: dict[str, Path]) -> None:
    with ManagedServer(files["qwen35_mtp"], n_ctx=512, threads=1) as managed:
        assert managed.engine is not None
        text = ""
        with pytest.raises(RemoteError) as info:
            for event in managed.engine.generate(ASK, GREEDY, 400):
                if isinstance(event, StepEvent):
                    text += event.text
                    if len(text) > 10:
                        managed.process.kill()
    assert str(info.value).startswith(f"the llama-server Tandem started for {files['qwen35_mtp'].name} stopped")
    assert str(info.value).endswith("the partial reply is kept")
    assert info.value.partial.startswith(text) and len(text) > 10


def test_a_file_without_its_own_drafter_is_refused_before_anything_starts(files: dict[str, Path]) -> None:
    with pytest.raises(TandemError, match="carries no drafter of its own"):
        ManagedServer(files["llama_target"])
    with pytest.raises(TandemError, match="is not an EAGLE-3 head or a DFlash drafter"):
        ManagedServer(files["llama_target"], files["qwen35_mtp"])
    with pytest.raises(TandemError, match=r"cannot draft for .*target layers: the head reads the target's layer 3"):
        ManagedServer(files["qwen35_mtp"], files["eagle3"])  # two trunk layers; the head reads layer 3
