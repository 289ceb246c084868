"""The default-draft rule: never a draft at least as large as the target; n-gram lookup with a reason otherwise."""

from __future__ import annotations

from app.core.pairing.default_draft import DraftFacts, ModelSize, choose_default_draft, is_smaller, relative_size_text

TARGET = ModelSize(n_params=1_700_000_000, file_size=1_000_000_000)


def test_fewer_parameters_is_smaller_whatever_the_file_sizes() -> None:
    assert is_smaller(TARGET, ModelSize(135_000_000, 2_000_000_000))
    assert not is_smaller(TARGET, ModelSize(1_700_000_000, 100))


def test_without_parameter_counts_the_file_size_decides_and_unknown_is_never_smaller() -> None:
    assert is_smaller(ModelSize(0, 1000), ModelSize(5, 999))
    assert not is_smaller(ModelSize(0, 1000), ModelSize(5, 1000))
    assert not is_smaller(ModelSize(0, 0), ModelSize(0, 0))


def test_the_first_compatible_smaller_candidate_is_chosen() -> None:
    ranked = [
        DraftFacts("same-size", ModelSize(1_700_000_000, 900_000_000), compatible=True),
        DraftFacts("broken", ModelSize(100_000_000, 1), compatible=False),
        DraftFacts("small", ModelSize(135_000_000, 100_000_000), compatible=True),
    ]
    choice = choose_default_draft(TARGET, ranked)
    assert choice.index == 2
    assert choice.reason == ""


def test_only_larger_compatible_drafts_give_ngram_with_their_names() -> None:
    ranked = [
        DraftFacts("big-a", ModelSize(7_000_000_000, 0), compatible=True),
        DraftFacts("twin", ModelSize(1_700_000_000, 0), compatible=True),
    ]
    choice = choose_default_draft(TARGET, ranked)
    assert choice.index is None
    assert "no compatible draft is smaller than the target" in choice.reason
    assert "big-a, twin" in choice.reason
    assert "N-gram" in choice.reason


def test_nothing_compatible_says_so() -> None:
    choice = choose_default_draft(TARGET, [DraftFacts("x", ModelSize(1, 1), compatible=False)])
    assert choice.index is None
    assert choice.reason.startswith("no compatible draft model")
    assert choose_default_draft(TARGET, []).index is None


def test_draft_entries_say_their_size_against_the_target() -> None:
    assert relative_size_text(TARGET, ModelSize(135_000_000, 0)) == "1/13 of the target's weights"
    assert relative_size_text(TARGET, ModelSize(1_100_000_000, 0)) == "65% of the target's weights"
    assert relative_size_text(TARGET, ModelSize(1_700_000_000, 0)) == "as large as the target"
    assert relative_size_text(TARGET, ModelSize(7_000_000_000, 0)) == "larger than the target"
    assert relative_size_text(ModelSize(0, 1000), ModelSize(0, 250)) == "1/4 of the target's size"
    assert relative_size_text(ModelSize(0, 0), ModelSize(0, 0)) == "size against the target unknown"
