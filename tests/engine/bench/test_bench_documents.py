"""The benchmark's "documents" prompts on the small pair: files attached through the reply's planner, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine.bench.documents import read_document
from app.engine.bench.runner import run_benchmark
from app.engine.bench.suite import BenchSettings, Regime, load_suite
from tests.paths import REPO_ROOT

FULL_SUITE = REPO_ROOT / "resources" / "bench_prompts.json"
DOCUMENTS = REPO_ROOT / "resources" / "bench_documents"


def test_the_committed_pdf_reads_back_page_by_page() -> None:
    handbook = read_document(DOCUMENTS / "harbour_handbook.pdf")
    assert len(handbook.sections) == 25
    assert handbook.cite(handbook.text.index("Section 8. Tide gauge")) == "harbour_handbook.pdf, p. 9"
    assert "recalibrated every 45 days" in handbook.text.replace("\n", " ")


@pytest.fixture(scope="module")
def report(small_pair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    target, _ = small_pair
    chosen = {"documents-pdf-fuel", "documents-rename-room"}
    data = json.loads(FULL_SUITE.read_text(encoding="utf-8"))
    data["prompts"] = [p for p in data["prompts"] if p["id"] in chosen]
    for prompt in data["prompts"]:
        prompt["attach"] = [str(FULL_SUITE.parent / name) for name in prompt["attach"]]
    suite = tmp_path_factory.mktemp("suite") / "documents.json"
    suite.write_text(json.dumps(data), encoding="utf-8")
    assert {p.id for p in load_suite(suite)} == chosen
    settings = BenchSettings(
        suite=suite,
        max_tokens=4,
        repeats=1,
        n_threads=1,
        n_ctx=1024,  # room for the module whole, and for a few of the handbook's pages (the fuel jetty's among them)
        preflight=False,
        max_wait_s=0.0,
        max_other_cpu=1.0,
        overhead_probe=False,
    )
    return run_benchmark([Regime("q4", target, "small pair")], None, settings)


def test_documents_prompts_run_with_their_files_planned_in(report: dict) -> None:
    uses = report["regimes"][0]["attachments"]
    (module,) = uses["documents-rename-room"]
    assert module["name"] == "inventory.py" and module["whole"]
    (pdf,) = uses["documents-pdf-fuel"]
    assert not pdf["whole"] and not pdf["left_out"]  # about 6,000 tokens against a 1,024-token context
    assert "harbour_handbook.pdf, p. 6" in pdf["chunks"]  # the fuel jetty's page
    runs = report["runs"]
    assert {r["config"] for r in runs} == {"target", "ngram adaptive"}
    assert all(r["tokens"] > 0 for r in runs)
    assert {s["category"] for s in report["summaries"]} == {"documents", "all"}
