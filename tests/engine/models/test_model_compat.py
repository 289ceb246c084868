"""Pair compatibility on real GGUF files and on copies written with one token changed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.core.pairing.compatibility import check_summaries
from app.engine.models.cache import describe_file
from app.engine.models.catalog import bundled_catalog
from app.engine.models.library import check_models, inspect_model
from tests.engine.model_files import copy_tokenizer


def test_qwen_coder_pair_is_compatible(demo_pair: tuple[Path, Path], data_dir: Path) -> None:
    target, draft = demo_pair
    start = time.perf_counter()
    report = check_models(target, draft)
    full = time.perf_counter() - start
    assert report.compatible, report.summary()
    assert report.warnings == ()
    describe_file(target), describe_file(draft)  # fill the cache
    start = time.perf_counter()
    cached = check_summaries(describe_file(target).vocab, describe_file(draft).vocab)
    fast = time.perf_counter() - start
    print(f"\nQwen pair check: {full * 1000:.0f} ms from the files, {fast * 1000:.2f} ms from cached summaries")
    assert cached is not None and cached.compatible


def test_smollm2_and_qwen_are_incompatible_with_reasons(
    small_pair: tuple[Path, Path], demo_pair: tuple[Path, Path], data_dir: Path
) -> None:
    report = check_models(demo_pair[0], small_pair[0])
    assert not report.compatible
    rules = {p.rule: p.detail for p in report.problems}
    assert rules["vocabulary size"] == (
        "the target has 151,936 tokens and the draft 49,152: 102,784 apart, more than 128"
    )
    assert "token 5 is" in rules["token text"]  # the first compared id already differs
    assert "pre-tokenizers differ ('qwen2' vs 'smollm')" in report.warnings[0]
    assert report.summary().startswith("incompatible: vocabulary size")
    # The cached-summary path reaches the same verdict on the same rules.
    fast = check_summaries(describe_file(demo_pair[0]).vocab, describe_file(small_pair[0]).vocab)
    assert fast is not None and not fast.compatible
    assert {p.rule for p in fast.problems} == set(rules)


def test_one_changed_token_is_named(small_pair: tuple[Path, Path], tmp_path: Path, data_dir: Path) -> None:
    target = small_pair[0]
    original = inspect_model(target)
    edited = copy_tokenizer(target, tmp_path / "edited.gguf", changes={31_337: "tandem-edited"})
    assert inspect_model(edited).n_vocab == original.n_vocab
    report = check_models(target, edited)
    assert not report.compatible
    assert [p.rule for p in report.problems] == ["token text"]
    detail = report.problems[0].detail
    assert "token 31337 is" in detail and "'tandem-edited' in the draft" in detail
    assert "differ in all" not in detail  # exactly one token differs
    # The digests locate the block; the exact token needs the lists.
    fast = check_summaries(describe_file(target).vocab, describe_file(edited).vocab)
    assert fast is not None
    assert [str(p) for p in fast.problems] == ["token text: the vocabularies differ within ids 31,296-31,359"]


def test_an_unchanged_copy_is_compatible(small_pair: tuple[Path, Path], tmp_path: Path, data_dir: Path) -> None:
    copy = copy_tokenizer(small_pair[0], tmp_path / "same.gguf")
    assert check_models(small_pair[0], copy).compatible
    fast = check_summaries(describe_file(small_pair[0]).vocab, describe_file(copy).vocab)
    assert fast is not None and fast.compatible


def test_changes_below_id_5_are_ignored_as_llama_cpp_does(
    small_pair: tuple[Path, Path], tmp_path: Path, data_dir: Path
) -> None:
    copy = copy_tokenizer(small_pair[0], tmp_path / "low.gguf", changes={3: "<changed-special>"})
    assert check_models(small_pair[0], copy).compatible
    fast = check_summaries(describe_file(small_pair[0]).vocab, describe_file(copy).vocab)
    assert fast is not None and fast.compatible


@pytest.mark.parametrize("role", ["target", "draft"])
def test_catalog_demo_entries_match_the_real_files(demo_pair: tuple[Path, Path], role: str, data_dir: Path) -> None:
    catalog = bundled_catalog()
    pair = catalog.pair("demo-qwen2.5-coder")
    entry = pair.target if role == "target" else pair.draft
    info = inspect_model(demo_pair[0] if role == "target" else demo_pair[1])
    assert entry.filename == info.path.name
    assert entry.file_size == info.file_size and not entry.size_approximate
    assert entry.n_params == info.n_params
    assert (entry.n_layers, entry.n_embd, entry.n_head, entry.n_head_kv, entry.head_dim) == (
        info.n_layers,
        info.n_embd,
        info.n_head,
        info.n_head_kv,
        info.head_dim,
    )
    assert (entry.n_ctx_train, entry.n_vocab, entry.quant) == (info.n_ctx_train, info.n_vocab, info.quant)
    # The catalog's tokenizer facts agree with the file's: the catalog check passes against the real vocab.
    report = check_summaries(describe_file(info.path).vocab, entry.tokenizer)
    assert report is not None and report.compatible
