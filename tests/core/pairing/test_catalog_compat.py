"""The cacheable form of the compatibility rules: vocabulary summaries and block digests."""

from __future__ import annotations

import pytest

from app.core.pairing.compatibility import (
    DIGEST_BLOCK,
    VocabInfo,
    VocabSummary,
    check_pair,
    check_summaries,
    summarize_vocab,
    token_block_digests,
)


def _vocab(n: int, *, changes: dict[int, str] | None = None, **kw: object) -> VocabInfo:
    tokens = [f"t{i}" for i in range(n)]
    for i, text in (changes or {}).items():
        tokens[i] = text
    fields = {"tokenizer_model": "gpt2", "bos_id": 1, "eos_id": 2, "add_bos": False, "add_eos": False} | kw
    return VocabInfo(tokens=tokens, **fields)  # type: ignore[arg-type]


def _both(target: VocabInfo, draft: VocabInfo) -> tuple[object, object]:
    return check_pair(target, draft), check_summaries(summarize_vocab(target), summarize_vocab(draft))


def test_identical_vocabularies_agree_both_ways() -> None:
    full, fast = _both(_vocab(640), _vocab(640))
    assert full.compatible and fast is not None and fast.compatible  # type: ignore[attr-defined]


def test_a_changed_token_is_located_by_block() -> None:
    full, fast = _both(_vocab(640), _vocab(640, changes={300: "other"}))
    assert not full.compatible  # type: ignore[attr-defined]
    assert fast is not None
    assert [str(p) for p in fast.problems] == ["token text: the vocabularies differ within ids 256-319"]  # type: ignore[attr-defined]


def test_changes_below_id_5_do_not_count() -> None:
    full, fast = _both(_vocab(640), _vocab(640, changes={0: "<pad>", 4: "<x>"}))
    assert full.compatible and fast.compatible  # type: ignore[attr-defined]


def test_sizes_128_apart_compare_the_shared_ids() -> None:
    # Qwen2.5 7B (152,064) against 0.5B (151,936): both multiples of the block size.
    target, draft = _vocab(1024 + 128), _vocab(1024)
    full, fast = _both(target, draft)
    assert full.compatible and fast is not None and fast.compatible  # type: ignore[attr-defined]
    full, fast = _both(target, _vocab(1024, changes={1023: "x"}))
    assert not full.compatible and fast is not None and not fast.compatible  # type: ignore[attr-defined]


def test_undecidable_partial_block_asks_for_the_token_lists() -> None:
    # 1000 is not a multiple of 64: the smaller model's last block covers fewer ids.
    assert 1000 % DIGEST_BLOCK
    assert check_summaries(summarize_vocab(_vocab(1050)), summarize_vocab(_vocab(1000))) is None
    # Equal sizes line up even with a partial last block.
    fast = check_summaries(summarize_vocab(_vocab(1000)), summarize_vocab(_vocab(1000, changes={999: "z"})))
    assert fast is not None and not fast.compatible


def test_scalar_rules_come_from_the_summary() -> None:
    target = summarize_vocab(_vocab(640, add_bos=True, bos_id=1))
    draft = summarize_vocab(_vocab(640, add_bos=True, bos_id=7, tokenizer_model="llama"))
    report = check_summaries(target, draft)
    assert report is not None
    assert [p.rule for p in report.problems] == ["vocabulary type", "BOS token"]


def test_summary_round_trips_through_json_fields() -> None:
    summary = summarize_vocab(_vocab(700, pre_tokenizer="qwen2"))
    again = VocabSummary.from_dict(summary.to_dict())
    assert again == summary
    assert len(summary.block_digests or ()) == 11  # ceil(700 / 64)


def test_digests_are_unambiguous_about_token_boundaries() -> None:
    a = token_block_digests(["a"] * 5 + ["xy", "z"])
    b = token_block_digests(["a"] * 5 + ["x", "yz"])
    assert a != b


def test_catalog_style_summary_without_digests() -> None:
    local = summarize_vocab(_vocab(640, pre_tokenizer="qwen2"))
    same_family = VocabSummary("gpt2", 640, 1, 2, False, False, "qwen2", None)
    report = check_summaries(local, same_family)
    assert report is not None and report.compatible
    assert "token texts not compared yet" in report.warnings[0]
    other_family = VocabSummary("gpt2", 640, 1, 2, False, False, "llama-bpe", None)
    report = check_summaries(local, other_family)
    assert report is not None and [p.rule for p in report.problems] == ["tokenizer family"]


@pytest.mark.parametrize("size", [5, 64, 65])
def test_tiny_vocabularies(size: int) -> None:
    full, fast = _both(_vocab(size), _vocab(size))
    assert full.compatible and fast is not None and fast.compatible  # type: ignore[attr-defined]
