"""The small pair on a real Vulkan device (lavapipe, Mesa's Vulkan driver on the CPU, where there is no GPU).

Run in the Vulkan build's environment by ``python -m tests.vulkan.step``; skipped
anywhere else (:data:`tests.vulkan.device.SKIP_REASON`). One pair is loaded for
the module with "auto" GPU layers, as the app loads it. Prompts are a few
tokens: lavapipe reads a prompt slowly, and each shader compiles on first use.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.divergence import NEAR_TIE_LOGIT_GAP, divergence_explained, first_divergence, top_two
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.sampling import SamplingParams
from app.core.memory.devices import BackendDevice
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.memory.ggml_devices import GPU_BUDGET_ENV
from app.engine.memory.measure import LoadLog, capture_load_log
from app.engine.memory.placement import pair_placement_json
from app.engine.store.conversations import ChatStore
from tests.cli.helpers import pair_args, run_cli
from tests.engine.llama.logits import fresh_next_logits
from tests.paths import REPO_ROOT
from tests.vulkan.cpu_reference import pair_greedy
from tests.vulkan.device import SKIP_REASON, vulkan_device

DEVICE = vulkan_device()
pytestmark = pytest.mark.skipif(DEVICE is None, reason=SKIP_REASON)

GREEDY_TEXT = "Name three colours."
GREEDY_TOKENS = 16


def _device() -> BackendDevice:
    assert DEVICE is not None
    return DEVICE


@pytest.fixture(scope="module")
def loaded(small_pair: tuple[Path, Path]) -> Iterator[tuple[LoadedPair, LoadLog]]:
    """The small pair with "auto" GPU layers (PairConfig's default), and llama.cpp's log of the load."""
    target, draft = small_pair
    with capture_load_log() as log:
        pair = LoadedPair(PairConfig(target, draft, drafter=DrafterKind.MODEL, n_ctx=512, n_threads=2))
    with pair:
        yield pair, log


def test_llama_cpp_reports_both_models_layers_on_the_vulkan_device(loaded: tuple[LoadedPair, LoadLog]) -> None:
    pair, log = loaded
    device = _device()
    for model in (pair.target, pair.draft):
        assert model is not None
        slots = model.n_layer + 1
        assert model.options.n_gpu_layers == slots  # "auto" gave the device every layer: it has the room
        report = log.for_path(model.path)
        assert report is not None, log.lines[-20:]
        # llama.cpp's own buffer lines: the weights sit in a buffer named after the device ("Vulkan0 model buffer").
        assert report.model.get(device.name, 0) > 0, report
    offloaded = [line.strip() for line in log.lines if "offloaded" in line and "layers to GPU" in line]
    assert len(offloaded) == 2, offloaded
    assert all(
        line.endswith(f"offloaded {n}/{n} layers to GPU") for line, n in zip(offloaded, _slots(pair), strict=True)
    )


def _slots(pair: LoadedPair) -> list[int]:
    assert pair.draft is not None
    return [pair.target.n_layer + 1, pair.draft.n_layer + 1]


def test_the_placement_and_memory_report_name_the_device_with_ggmls_numbers(
    loaded: tuple[LoadedPair, LoadLog], small_pair: tuple[Path, Path]
) -> None:
    pair, _ = loaded
    device = _device()
    target_slots, draft_slots = _slots(pair)
    on = {"device": device.name, "description": device.description}
    assert pair_placement_json(pair) == {
        "target": {**on, "gpu_layers": target_slots},
        "draft": {**on, "gpu_layers": draft_slots},
    }
    result = run_cli("memory", "--json", "--target", str(small_pair[0]), "--draft", str(small_pair[1]), "--ctx", "512")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    listed = {d["name"]: d for d in report["budget"]["devices"]}
    assert listed[device.name]["description"] == device.description and listed[device.name]["kind"] == "gpu"
    assert listed[device.name]["total_bytes"] == device.total_bytes
    # Free memory moves with what the loaded pair holds; the budget is ggml's free figure, not NVML's or RAM.
    assert 0 < listed[device.name]["free_bytes"] <= device.total_bytes
    assert report["budget"]["gpu_bytes"] == listed[device.name]["free_bytes"]
    assert report["gpu_layers_auto"] == f"auto: {target_slots} of {target_slots} target layers, " + (
        f"{draft_slots} of {draft_slots} draft layers on the GPU"
    )


@pytest.mark.subprocess  # the CPU build's reply comes from the CPU environment's interpreter
def test_the_greedy_reply_equals_the_cpu_builds_up_to_near_ties(
    loaded: tuple[LoadedPair, LoadLog], small_pair: tuple[Path, Path]
) -> None:
    cpu_python = os.environ.get("TANDEM_CPU_PYTHON")
    if not cpu_python:
        pytest.skip("TANDEM_CPU_PYTHON names no CPU build to compare with (python -m tests.vulkan.step sets it)")
    pair, _ = loaded
    reference = subprocess.run(
        [cpu_python, "-m", "tests.vulkan.cpu_reference", str(small_pair[0]), str(GREEDY_TOKENS), GREEDY_TEXT],
        cwd=REPO_ROOT,
        env={k: v for k, v in os.environ.items() if k != "GGML_VK_VISIBLE_DEVICES"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert reference.returncode == 0, reference.stderr[-2000:]
    cpu = json.loads(reference.stdout.strip().splitlines()[-1])
    prompt, on_device = pair_greedy(pair, GREEDY_TEXT, GREEDY_TOKENS)
    assert cpu["prompt"] == prompt
    at = first_divergence(cpu["reply"], on_device)
    print(f"\nVulkan vs CPU build, greedy: {at if at is not None else len(on_device)} of {len(on_device)} tokens equal")
    if at is None:
        return
    # As the fidelity tests judge: where the runs part, the target's two best tokens are nearly tied
    # and each run chose one of them (or ended where one of them ends generation).
    gap, best_two = top_two(fresh_next_logits(pair.target, prompt + on_device[:at]))
    chosen = [run[at] if at < len(run) else None for run in (cpu["reply"], on_device)]
    assert divergence_explained(gap, best_two, chosen, pair.target.is_eog, NEAR_TIE_LOGIT_GAP), (at, gap, chosen)


def test_speculative_sampling_on_the_device_keeps_the_targets_distribution(
    loaded: tuple[LoadedPair, LoadLog],
) -> None:
    """Chi-square on the first sampled token at T=1 (drafts from the draft model on the same device)."""
    pair, _ = loaded
    prompt = pair.template.render([Message("user", "Pick a number.")])
    base = SamplingParams(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, repeat_penalty=1.0)
    logits = fresh_next_logits(pair.target, prompt).astype(np.float64)
    p_target = np.exp(logits - logits.max())
    p_target /= p_target.sum()
    trials, counts, drafted = 120, Counter[int](), 0
    for seed in range(trials):
        decoder = pair.decoder(replace(base, seed=seed), FixedDraftLength(3), drafter=DrafterKind.MODEL)
        first: int | None = None
        finished: FinishedEvent | None = None
        for event in decoder.generate(GenerationRequest(prompt, max_tokens=2)):
            if isinstance(event, StepEvent) and first is None and event.tokens:
                first = event.tokens[0].id
            elif isinstance(event, FinishedEvent):
                finished = event
        assert first is not None and finished is not None
        counts[first] += 1
        drafted += finished.stats.drafted
    assert drafted > 0  # the draft model proposed, so verification decided the tokens
    # Cells: every token expected at least 5 times, the rest pooled.
    order = np.argsort(p_target)[::-1]
    cells = [int(t) for t in order if p_target[t] * trials >= 5]
    expected = [p_target[t] * trials for t in cells] + [trials * (1 - sum(p_target[t] for t in cells))]
    observed = [counts[t] for t in cells] + [trials - sum(counts[t] for t in cells)]
    print(f"\nfirst token, {trials} draws: observed {observed}, expected {[round(float(e), 1) for e in expected]}")
    assert len(cells) >= 2, "the prompt's next token is nearly certain: choose a prompt with a spread"
    result = stats.chisquare(observed, expected)
    assert result.pvalue > 1e-3, result


def test_a_device_without_room_says_so_and_the_chat_goes_on_on_the_cpu(
    small_pair: tuple[Path, Path], data_dir: Path
) -> None:
    tiny = {GPU_BUDGET_ENV: "1"}  # 1 MiB: not even the GPU runtime fits
    planned = run_cli("memory", "--json", *pair_args(small_pair)[:4], "--ctx", "512", env=tiny)
    assert planned.returncode == 0, planned.stderr
    report = json.loads(planned.stdout)
    note = "auto: too little free GPU memory for any layer, so every layer stays on the CPU"
    assert report["gpu_layers_auto"] == note and (report["n_gpu_layers"], report["n_gpu_layers_draft"]) == (0, 0)

    path = data_dir / "conversations.sqlite3"
    store = ChatStore(path)
    try:
        cid = store.create_conversation("Colours", ChatSettings(max_tokens=6).to_dict())
        store.add_message(cid, "user", "Name a colour.")
        store.add_message(cid, "assistant", "Blue.")
    finally:
        store.close()
    result = run_cli(
        "chat", "--chat", str(cid), *pair_args(small_pair), "--json", "And another?", data=data_dir, env=tiny
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert {m["device"] for m in payload["placement"].values()} == {"CPU"}
    assert {m["gpu_layers"] for m in payload["placement"].values()} == {0}
    assert payload["text"]
    store = ChatStore(path, read_only=True)
    try:
        branch = store.messages(cid)
    finally:
        store.close()
    assert [m.content for m in branch[:3]] == ["Name a colour.", "Blue.", "And another?"]
    assert branch[3].content == payload["text"] and branch[3].state == "done"
