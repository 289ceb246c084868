"""Thread counts on the real SmolLM2 pair: changed without reloading, output unchanged, shown in the statistics."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import llama_cpp
import pytest

from app.core.adaptive.threads import AdaptiveThreads, FixedThreads
from app.core.conversation.chat import Message
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.divergence import NEAR_TIE_LOGIT_GAP, first_divergence, top_two_gap
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.sampling import SamplingParams
from app.engine.cpu import CpuLoad, max_useful_threads, usable_cpus
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from tests.engine.llama.logits import fresh_next_logits

GREEDY = SamplingParams(temperature=0)
PROMPT = "Write a python function that reverses a string, with a docstring."


@pytest.fixture(scope="module")
def pair(small_pair: tuple[Path, Path]) -> Iterator[LoadedPair]:
    target, draft = small_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=1024, n_threads=1)) as loaded:
        yield loaded


def generate(pair: LoadedPair, kind: DrafterKind, max_tokens: int = 48) -> tuple[list[int], list[int], FinishedEvent]:
    """Token ids, the count each step's statistics reported, and the finished event."""
    prompt = pair.template.render([Message("user", PROMPT)])
    decoder = pair.decoder(GREEDY, FixedDraftLength(3), drafter=kind)
    ids: list[int] = []
    counts: list[int] = []
    for event in decoder.generate(GenerationRequest(prompt, max_tokens=max_tokens)):
        if isinstance(event, StepEvent):
            ids.extend(t.id for t in event.tokens)
            counts.append(pair.target.threads)
        else:
            return ids, counts, event
    raise AssertionError("no FinishedEvent")


def testset_threads_changes_both_of_llamas_counts_without_reloading(pair: LoadedPair) -> None:
    assert pair.target.threads == 1
    try:
        pair.target.set_threads(2)
        assert llama_cpp.llama_n_threads(pair.target.llama.ctx) == 2
        assert llama_cpp.llama_n_threads_batch(pair.target.llama.ctx) == 2  # verify batches use this one
        assert pair.target.threads == 2
        with pytest.raises(ValueError):
            pair.target.set_threads(0)
    finally:
        pair.target.set_threads(1)
    assert pair.target.threads == 1


@pytest.mark.parametrize("kind", [DrafterKind.NONE, DrafterKind.MODEL])
def test_switching_threads_every_step_keeps_the_greedy_output(pair: LoadedPair, kind: DrafterKind) -> None:
    baseline, _, _ = generate(pair, DrafterKind.NONE)
    applied: list[int] = []

    def apply(n: int) -> None:
        applied.append(n)
        pair.set_threads(n)

    # A window of one step and no warm-up: the count changes between nearly every pair of steps. The
    # reading alternates between suggesting 1 and 2 (both worth trying), so every round is a full one.
    readings = itertools.cycle((1.5, 1.6))
    pair.threads = AdaptiveThreads((1, 2), apply, lambda: next(readings), window=1, recheck_every=2, warmup=0)
    try:
        candidate, counts, finished = generate(pair, kind)
    finally:
        pair.threads = FixedThreads(1)
        pair.set_threads(1)
    assert {1, 2} <= set(counts) and len(applied) > 4
    assert pair.draft is not None and pair.draft.threads == 1  # the draft context follows the target's
    assert finished.stats.threads_auto and finished.stats.threads in (1, 2)
    at = first_divergence(baseline, candidate)
    if at is not None:  # llama.cpp's batched and single-token kernels may part at a near-tie, never elsewhere
        prompt = pair.template.render([Message("user", PROMPT)])
        assert top_two_gap(fresh_next_logits(pair.target, prompt + baseline[:at])) < NEAR_TIE_LOGIT_GAP


def test_a_forced_count_is_reported_as_forced(pair: LoadedPair) -> None:
    _, _, finished = generate(pair, DrafterKind.NONE, max_tokens=8)
    assert (finished.stats.threads, finished.stats.threads_auto) == (1, False)
    assert finished.stats.to_dict()["threads"] == 1


def test_auto_is_the_default_and_reports_the_count_it_chose(small_pair: tuple[Path, Path]) -> None:
    target, _ = small_pair
    with LoadedPair(PairConfig(target, None, DrafterKind.NONE, n_ctx=512)) as loaded:
        assert isinstance(loaded.threads, AdaptiveThreads)
        assert loaded.threads.candidates[-1] == max_useful_threads()
        assert loaded.target.threads == loaded.threads.threads  # the policy's first count is applied at load
        _, counts, finished = generate(loaded, DrafterKind.NONE, max_tokens=24)
        assert finished.stats.threads_auto
        assert finished.stats.threads == counts[-1] == loaded.target.threads


def test_a_busy_process_beside_us_shows_as_a_cpu_less_free() -> None:
    load = CpuLoad()
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)
        load.free_cpus()  # start the interval once the spinner runs
        time.sleep(0.6)
        free = load.free_cpus()
    finally:
        spinner.kill()
        spinner.wait()
    # Other engineers' processes can only lower it further: the bound holds on a loaded machine too.
    assert 0.0 <= free <= usable_cpus() - 0.5


def test_our_own_busy_threads_do_not_count_as_load() -> None:
    def attempt() -> bool:
        load = CpuLoad()
        time.sleep(0.1)
        load.free_cpus()
        time.sleep(0.5)
        others_before = usable_cpus() - load.free_cpus()  # what the rest of the machine used over the last 0.5 s
        end = time.perf_counter() + 0.5
        while time.perf_counter() < end:  # this process keeps one CPU busy
            pass
        others_during = usable_cpus() - load.free_cpus()
        # Counting our own CPU time would add up to a whole CPU; the rest of the machine rarely moves that much.
        return others_during < others_before + 0.75

    # Other programs starting or ending mid-measurement can move the reading: one clean attempt of three suffices.
    assert any(attempt() for _ in range(3))
