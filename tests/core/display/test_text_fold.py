"""Search folding: accents and case ignored, and matches mapped back to the text as written."""

from __future__ import annotations

from app.core.display.text_fold import FoldedText, fold


def test_fold_drops_accents_and_case():
    assert fold("Crème BRÛLÉE") == "creme brulee"
    assert fold("CRÈME") == fold("crème") == fold("creme") == "creme"
    assert fold("Straße") == "strasse"  # casefold, not lower
    assert fold("ﬁne") == "fine"  # NFKD splits the ligature
    assert fold("e\u0301") == "e"  # a combining accent written separately
    assert fold("東京 مرحبا 🎉") == "東京 مرحبا 🎉"  # scripts without accents are left alone


def test_spans_point_into_the_original_text():
    text = "Une CRÈME, une crème, a creme"
    spans = FoldedText.of(text).spans(["creme"])
    assert [text[a:b] for a, b in spans] == ["CRÈME", "crème", "creme"]


def test_spans_cover_decomposed_and_expanding_characters():
    text = "cre\u0301me Straße ﬁne"
    folded = FoldedText.of(text)
    assert [text[a:b] for a, b in folded.spans(["creme"])] == ["cre\u0301me"]
    assert [text[a:b] for a, b in folded.spans(["strasse"])] == ["Straße"]
    assert [text[a:b] for a, b in folded.spans(["fi"])] == ["ﬁ"]
    assert folded.contains("STRASSE") and not folded.contains("crema")


def test_longer_terms_win_and_spans_do_not_overlap():
    text = "brûlée brûl"
    assert FoldedText.of(text).spans(["brul", "brulee"]) == [(0, 6), (7, 11)]
    assert FoldedText.of(text).spans([]) == [] and FoldedText.of("").spans(["x"]) == []


def test_folding_the_whole_text_equals_folding_each_character():
    text = "Ünïcödé — 日本語 · العربية · 🎉 İstanbul ǅemal cre\u0301me Straße ﬁne ÅNGSTRÖM ẞ"
    assert fold(text) == FoldedText.of(text).folded
