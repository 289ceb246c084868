"""Finding drafts on the Hub for a local or remote target, against the stand-in Hub serving real model files.

The stand-in Hub (tests/engine/hub_server.py) serves the real Qwen2.5-Coder
pair, a SmolLM2 file under a Qwen-like name (a search hit with another
tokenizer), a tiny file with Qwen's exact tokenizer, and a repository the Hub
reports as 7.6B parameters; the real huggingface_hub client reaches it
through HF_ENDPOINT.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.engine.models.find_draft import acceptance_prior, predict_speed
from app.engine.models.library import DownloadError, find_drafts
from tests.engine.hub_server import FakeHub, running_hub
from tests.engine.model_files import copy_tokenizer

TARGET_REPO = "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"
TARGET_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
DRAFT_REPO = "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"
TINY_REPO = "someone/Qwen2.5-Coder-Tokenizer-Tiny-GGUF"
OTHER_REPO = "someone/Qwen2.5-Coder-Smol-GGUF"
BIG_REPO = "someone/Qwen2.5-Coder-7B-Instruct-GGUF"
SIBLING_REPO = "Qwen/Qwen2.5-0.5B-Instruct-GGUF"  # another variant of the family, the same tokenizer


@pytest.fixture(scope="module")
def tiny_qwen(demo_pair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few-kilobyte model with Qwen's tokenizer: compatible, and far below the ideal size."""
    return copy_tokenizer(demo_pair[1], tmp_path_factory.mktemp("tiny") / "tiny-Q4_K_M.gguf")


@pytest.fixture
def hub(
    monkeypatch: pytest.MonkeyPatch,
    data_dir: Path,
    demo_pair: tuple[Path, Path],
    small_pair: tuple[Path, Path],
    tiny_qwen: Path,
) -> Iterator[FakeHub]:
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        state.add_path(TARGET_REPO, TARGET_FILE, demo_pair[0])
        state.add_path(DRAFT_REPO, "qwen2.5-coder-0.5b-instruct-q8_0.gguf", demo_pair[1])  # Q8_0 is listed too
        state.add_path(DRAFT_REPO, "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", demo_pair[1])
        state.add_path(TINY_REPO, "tiny-Q4_K_M.gguf", tiny_qwen)
        state.add_path(OTHER_REPO, "smol-Q4_0.gguf", small_pair[1])
        state.add_path(BIG_REPO, "big-Q4_K_M.gguf", demo_pair[0])
        state.add_path(SIBLING_REPO, "qwen2.5-0.5b-instruct-q8_0.gguf", demo_pair[1])
        state.set_info(BIG_REPO, downloads=900, gguf={"total": 7_615_616_512, "architecture": "qwen2"})
        state.set_info(TARGET_REPO, downloads=800)
        state.set_info(DRAFT_REPO, downloads=700)
        state.set_info(OTHER_REPO, downloads=600)
        state.set_info(TINY_REPO, downloads=500)
        yield state


def _tree_requests(hub: FakeHub, repo: str) -> int:
    return sum(f"/api/models/{repo}/tree/" in r.path for r in hub.log)


def test_drafts_are_found_checked_remotely_and_ranked_by_predicted_speed(
    hub: FakeHub, demo_pair: tuple[Path, Path]
) -> None:
    found = find_drafts(demo_pair[0], gpu=True)
    assert found.queries == ["Qwen2.5-Coder", "Qwen2.5"]  # the target's general.basename, then its stem
    good = [c for c in found.candidates if c.compatible]
    assert {str(c.spec) for c in good} == {
        f"{DRAFT_REPO}/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",  # the target's quantisation preferred
        f"{TINY_REPO}/tiny-Q4_K_M.gguf",
        f"{SIBLING_REPO}/qwen2.5-0.5b-instruct-q8_0.gguf",  # found by the stem only
    }
    speeds = [c.prediction.speedup for c in good if c.prediction]
    assert speeds == sorted(speeds, reverse=True) and len(set(speeds)) >= 2
    assert found.best is good[0]
    qwen = next(c for c in good if c.spec.repo_id == DRAFT_REPO)
    assert "a draft token costs 44% of a target token, acceptance assumed 65%" in qwen.reason
    assert "same family (Qwen2.5-Coder)" in qwen.reason
    bad = [c for c in found.candidates if not c.compatible]
    assert [c.spec.repo_id for c in bad] == [OTHER_REPO]
    assert "token 5 is '&' in the target" in str(bad[0].report.problems[-1])
    skipped = dict(found.skipped)
    assert "7.62B parameters, the Hub says" in skipped[BIG_REPO]
    assert _tree_requests(hub, BIG_REPO) == 0  # skipped on the Hub's own size, without a request
    assert "cannot speed it up" in skipped[f"{TARGET_REPO}/{TARGET_FILE}"]  # the target itself, read and dropped
    for key, sent in hub.sent.items():
        if hub.size(key) > 50_000_000:  # the real models: only their headers were read
            assert sent < 0.05 * hub.size(key)


def test_at_most_max_repos_headers_are_read_and_the_rest_are_named(hub: FakeHub, demo_pair: tuple[Path, Path]) -> None:
    found = find_drafts(demo_pair[0], gpu=False, max_repos=2)
    assert len(found.candidates) + sum("cannot speed it up" in why for _, why in found.skipped) <= 2
    not_checked = [what for what, why in found.skipped if why.startswith("not checked: 2 repositories were")]
    assert SIBLING_REPO in not_checked and _tree_requests(hub, SIBLING_REPO) == 0


def test_a_remote_target_skips_its_own_repository(hub: FakeHub) -> None:
    found = find_drafts(f"{TARGET_REPO}/{TARGET_FILE}", gpu=False)
    assert _tree_requests(hub, TARGET_REPO) == 0
    assert TARGET_REPO not in {c.spec.repo_id for c in found.candidates}
    assert found.best is not None and found.best.spec.repo_id in {DRAFT_REPO, TINY_REPO}


def test_offline_find_draft_is_one_clear_message(
    hub: FakeHub, demo_pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DownloadError, match="offline mode is on"):
        find_drafts(demo_pair[0])


def test_the_prediction_follows_the_cost_model() -> None:
    # Same sizes: a GPU's nearly free batch predicts more than a CPU's compute-bound one.
    gpu = predict_speed(1000, 440, 1778, 630, "Q4_K_M", gpu=True)
    cpu = predict_speed(1000, 440, 1778, 630, "Q4_K_M", gpu=False)
    assert gpu.speedup > 1 > cpu.speedup
    # K=1 on the CPU: (1 + 0.65) tokens for 1.43 + 0.44 target tokens of time, against 1 token per 1.
    assert cpu.k == 1 and cpu.speedup == pytest.approx(1.65 / 1.87, rel=1e-6)
    cheaper = predict_speed(1000, 200, 1778, 630, "Q4_K_M", gpu=True)
    assert cheaper.speedup > gpu.speedup
    assert acceptance_prior(0.35, "Q4_K_M") == 0.65
    assert acceptance_prior(0.025, "Q4_K_M") == pytest.approx(0.65 - 0.16)  # two halvings below 1/10
    assert acceptance_prior(0.35, "Q2_K") == pytest.approx(0.55)
    assert acceptance_prior(1e-9, "IQ1_S") == 0.2  # the floor
