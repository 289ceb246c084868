"""The compatibility verdict and the draft reasons as words: English text unchanged, numbers kept for the reader."""

from __future__ import annotations

from app.core.pairing.catalog import describe_ratio, ratio_words
from app.core.pairing.compatibility import VocabInfo, VocabSummary, check_pair, check_summaries
from app.core.pairing.default_draft import DraftFacts, ModelSize, choose_default_draft


def _marked(value: int | float, spec: str) -> str:
    """A reader who brackets every number: shows which parts were passed as numbers."""
    return f"<{format(value, spec)}>"


def _vocab(size: int, offset: int = 0, add_bos: bool = False) -> VocabInfo:
    return VocabInfo("gpt2", [f"t{i + offset}" for i in range(size)], 1, 2, add_bos, False, "qwen2")


def test_the_english_evidence_reads_as_before() -> None:
    report = check_pair(_vocab(1000, add_bos=True), _vocab(2000, offset=1))
    assert [str(p) for p in report.problems] == [
        "BOS handling: the target adds BOS, the draft does not add it",
        "vocabulary size: the target has 1,000 tokens and the draft 2,000: 1,000 apart, more than 128",
        "token text: token 5 is 't5' in the target but 't6' in the draft; token 6 is 't6' in the target but 't7' "
        "in the draft; token 7 is 't7' in the target but 't8' in the draft (995 tokens differ in all)",
    ]
    assert report.summary().startswith("incompatible: BOS handling: the target adds BOS")


def test_counts_stay_numbers_and_token_ids_stay_names() -> None:
    report = check_pair(_vocab(1000), _vocab(2000, offset=1))
    size, text = report.problems
    rendered = size.detail_words.render(lambda _c, s: s, _marked)
    assert rendered == "the target has <1,000> tokens and the draft <2,000>: <1,000> apart, more than <128>"
    # A token id names a token: no reader groups its digits.
    assert text.detail_words.render(lambda _c, s: s, _marked).startswith("token 5 is 't5'")


def test_a_catalog_verdict_warns_in_words() -> None:
    target = VocabSummary("gpt2", 1000, 1, 2, False, False, "qwen2", ("a",) * 16)
    draft = VocabSummary("gpt2", 1000, 1, 2, False, False, "qwen2", None)
    report = check_summaries(target, draft)
    assert report is not None and report.compatible
    assert report.warnings == ("token texts not compared yet: they are checked once both files are on this computer",)
    assert report.warning_words[0].render(lambda _c, s: s.upper(), _marked).startswith("TOKEN TEXTS NOT COMPARED")


def test_ratios_and_the_default_drafts_reason_read_as_before() -> None:
    assert describe_ratio(4000, 1000) == "1/4 of the target's size"
    assert describe_ratio(1000, 700) == "70% of the target's size (large: each draft token costs more)"
    assert ratio_words(1000, 700).render(lambda _c, s: s, _marked).startswith("<70%> of")
    assert describe_ratio(1000, 1000) == "not smaller than the target: cannot speed it up"
    chosen = choose_default_draft(ModelSize(100, 0), [DraftFacts("twin", ModelSize(100, 0), True)])
    assert chosen.index is None
    assert chosen.reason == (
        "no compatible draft is smaller than the target (twin would not speed it up): "
        "N-gram lookup instead (no second model)"
    )
