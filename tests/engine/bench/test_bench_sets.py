"""The benchmark suite's held-out discipline: a tuning set and a check set, chosen with ``--set``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest

from app.core.errors import TandemError
from app.engine.bench import probes
from app.engine.bench.peer import NGRAM_MODES, PLAIN, ngram_name, peer_names, speculative_name
from app.engine.bench.probes import CpuWatch
from app.engine.bench.suite import BenchSettings, configurations, load_suite, select_prompts
from app.engine.llama.session import DrafterKind
from tests.paths import REPO_ROOT

RESOURCES = REPO_ROOT / "resources"
FULL_SUITE = RESOURCES / "bench_prompts.json"
SMOKE_SUITE = RESOURCES / "bench_prompts_smoke.json"
CATEGORIES = {"code-write", "code-edit", "prose", "qa", "math", "documents", "long-context"}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9_]+", text.lower())


def test_the_check_set_has_three_prompts_per_category_and_every_kind_of_edit() -> None:
    check = [p for p in load_suite(FULL_SUITE) if p.set == "check"]
    counts = Counter(p.category for p in check)
    assert set(counts) == CATEGORIES and min(counts.values()) >= 3
    edits = " ".join(p.text.lower() for p in check if p.category == "code-edit")
    for kind in ("rename", "reformat", "docstring", "fix"):
        assert kind in edits


def test_every_documents_prompt_attaches_its_file_and_both_sets_have_every_kind() -> None:
    prompts = [p for p in load_suite(FULL_SUITE) if p.category == "documents"]
    assert all(p.attachments and all(f.is_file() for f in p.attachments) for p in prompts)
    assert all(f.parent == RESOURCES / "bench_documents" for p in prompts for f in p.attachments)
    for name in ("tuning", "check"):
        chosen = [p for p in prompts if p.set == name]
        files = {f.suffix for p in chosen for f in p.attachments}
        assert files == {".md", ".txt", ".py", ".pdf"}, name
        words = " ".join(p.text.lower() for p in chosen)
        assert "quot" in words and "summar" in words and ("rename" in words or "called" in words), name


def test_a_suite_attaching_a_missing_file_is_refused(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    prompt = {"id": "a", "category": "documents", "prompt": "?", "attach": ["nowhere.txt"]}
    suite.write_text(json.dumps({"prompts": [prompt]}))
    with pytest.raises(TandemError, match=r"nowhere\.txt"):
        load_suite(suite)


def test_the_two_sets_are_disjoint_and_the_check_prompts_are_not_variations_of_tuning_ones() -> None:
    prompts = load_suite(FULL_SUITE)
    assert {p.set for p in prompts} == {"tuning", "check"}
    tuning = [p for p in prompts if p.set == "tuning"]
    check = [p for p in prompts if p.set == "check"]
    assert not {p.id for p in tuning} & {p.id for p in check}
    # No run of eight words in a check prompt appears in any tuning prompt.
    tuning_grams = {tuple(w[i : i + 8]) for p in tuning for w in [_words(p.text)] for i in range(len(w) - 7)}
    for p in check:
        words = _words(p.text)
        assert not {tuple(words[i : i + 8]) for i in range(len(words) - 7)} & tuning_grams, p.id


def test_set_selects_the_prompts_and_defaults_to_the_check_set() -> None:
    prompts = load_suite(FULL_SUITE)
    assert BenchSettings(FULL_SUITE).prompt_set == "check"
    for name in ("tuning", "check"):
        chosen = select_prompts(prompts, BenchSettings(FULL_SUITE, prompt_set=name))
        assert chosen and all(p.set == name for p in chosen)
    assert len(select_prompts(prompts, BenchSettings(FULL_SUITE, prompt_set="all"))) == len(prompts)
    # A suite that is not split (the smoke suite) belongs to every set.
    smoke = load_suite(SMOKE_SUITE)
    assert select_prompts(smoke, BenchSettings(SMOKE_SUITE, prompt_set="check")) == smoke


def test_bad_sets_get_a_clear_message(tmp_path: Path) -> None:
    prompts = load_suite(FULL_SUITE)
    with pytest.raises(TandemError, match="unknown prompt set"):
        select_prompts(prompts, BenchSettings(FULL_SUITE, prompt_set="holdout"))
    with pytest.raises(TandemError, match="'tuning' set matches"):
        select_prompts(prompts, BenchSettings(FULL_SUITE, prompt_set="tuning", categories=("poetry",)))
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"prompts": [{"id": "a", "category": "qa", "prompt": "?", "set": "test"}]}))
    with pytest.raises(TandemError, match="unknown sets"):
        load_suite(suite)


def test_hybrid_is_benched_beside_the_model_and_llama_servers_ngram_modes_beside_lookup() -> None:
    names = [c.name for c in configurations(BenchSettings(FULL_SUITE, ngram=True), True)]
    assert names == [
        "target",
        "draft K=2",
        "draft K=4",
        "draft K=8",
        "draft adaptive",
        "hybrid adaptive",
        "ngram adaptive",
    ]
    no_fixed = BenchSettings(FULL_SUITE, fixed_lengths=False, hybrid=False)
    assert [c.name for c in configurations(no_fixed, True)] == ["target", "draft adaptive"]
    assert peer_names(8) == [speculative_name(8), *(ngram_name(m) for m in NGRAM_MODES), PLAIN]
    assert peer_names(8, has_draft=False) == [*(ngram_name(m) for m in NGRAM_MODES), PLAIN]
    assert NGRAM_MODES == ("ngram-simple", "ngram-map-k", "ngram-mod")
    assert peer_names(8, ngram_modes=("ngram-map-k",)) == [speculative_name(8), ngram_name("ngram-map-k"), PLAIN]
    assert peer_names((4, 16), ngram_modes=()) == [speculative_name(4), speculative_name(16), PLAIN]


def test_the_cheaper_draft_runs_beside_the_default_and_llama_cpp_gets_the_same_file() -> None:
    configs = configurations(BenchSettings(FULL_SUITE, fixed_lengths=False, cheaper_draft=True), True)
    assert [(c.name, c.drafter, c.cheaper_draft) for c in configs] == [
        ("target", DrafterKind.NONE, False),
        ("draft adaptive", DrafterKind.MODEL, False),
        ("hybrid adaptive", DrafterKind.HYBRID, False),
        ("hybrid adaptive (cheaper draft)", DrafterKind.HYBRID, True),
    ]
    without_hybrid = BenchSettings(FULL_SUITE, fixed_lengths=False, hybrid=False, cheaper_draft=True)
    assert [c.name for c in configurations(without_hybrid, True)][-1] == "draft adaptive (cheaper draft)"
    assert peer_names((4, 8), ngram_modes=(), cheaper_draft=True) == [
        speculative_name(4),
        speculative_name(8),
        "llama-server K=4 (cheaper draft)",
        "llama-server K=8 (cheaper draft)",
        PLAIN,
    ]
    assert speculative_name(4, cheaper=True) == "llama-server K=4 (cheaper draft)"
    assert BenchSettings(FULL_SUITE).peer_lengths() == (8,)  # the largest of Tandem's fixed lengths
    assert BenchSettings(FULL_SUITE, peer_draft_lengths=(4, 16)).peer_lengths() == (4, 16)
    assert BenchSettings(FULL_SUITE, peer_draft_lengths=(0,)).peer_lengths() == ()


def test_the_cpu_watch_counts_its_own_children_as_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A llama-server peer is the benchmark's own work: its CPU time must not make a run look disturbed."""
    busy = "import time\nend = time.process_time() + 3\nwhile time.process_time() < end: pass\n"
    child = subprocess.Popen([sys.executable, "-c", busy])
    try:
        watch = CpuWatch()
        time.sleep(1.0)  # the child is still busy, alive and not reaped
        counted = watch.other_share()
        monkeypatch.setattr(probes, "_children_cpu", lambda process: {})
        ignored = watch.other_share()  # what the watch said before it knew of live children
    finally:
        child.kill()
        child.wait()
    cpu_seconds = (psutil.cpu_count() or 1) * (time.perf_counter() - watch._started)
    # Read back to back, the two differ by the child's CPU time during the watch: most of a second.
    assert (ignored - counted) * cpu_seconds > 0.4
