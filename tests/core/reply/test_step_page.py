"""The words of a step and the HTML page: numbers from the record, every model text escaped."""

from __future__ import annotations

from html.parser import HTMLParser

from app.core.reply.step_page import render_page
from app.core.reply.step_record import DraftedRecord, StepRecord, TopEntry
from app.core.reply.step_words import explain, quoted


def _rejected_step() -> StepRecord:
    return StepRecord(
        index=0,
        first_token=0,
        n_emitted=3,
        drafter="model",
        draft_length=4,
        reason="fixed at 4",
        greedy=False,
        drafted=(
            DraftedRecord("The", 0.5, 0.7, True, 0.3),
            DraftedRecord(" cat", 0.4, 0.6, True, 0.9),
            DraftedRecord(" <b>", 0.61, 0.12, False, 0.57),
            DraftedRecord(" sat", 0.9, 0.0, False),
        ),
        residual_top=(TopEntry(" foo", 0.5), TopEntry(" bar", 0.3)),
        correction=TopEntry(" foo", 0.5),
        draft_ms=3.1,
        verify_ms=41.0,
    )


def _greedy_step() -> StepRecord:
    return StepRecord(
        index=1,
        first_token=3,
        n_emitted=2,
        drafter="lookup",
        lookup_match=5,
        draft_length=8,
        reason="fixed at 8",
        greedy=True,
        drafted=(DraftedRecord(" a", 1.0, 0.8, True), DraftedRecord(" b", 1.0, 0.1, False, target_top=" c")),
        correction=TopEntry(" c", 1.0),
    )


def _bonus_step() -> StepRecord:
    return StepRecord(
        index=2,
        first_token=5,
        n_emitted=1,
        drafter=None,
        draft_length=0,
        reason="drafting off: the draft costs more than it saves",
        greedy=False,
        bonus_top=(TopEntry("\n", 0.8), TopEntry(" x", 0.1)),
        bonus=TopEntry("\n", 0.8),
    )


def test_a_rejection_is_told_with_the_records_numbers() -> None:
    words = explain(_rejected_step())
    assert words.startswith("The draft proposed 4 tokens. The target agreed with the first 2 (p >= q).")
    assert 'The third, " <b>", had p = 0.12 against q = 0.61: kept with probability 0.20' in words
    assert "the coin drew 0.57, rejected" in words
    assert 'The target then drew " foo"' in words


def test_a_sampled_keep_below_q_says_the_coin_decided() -> None:
    step = StepRecord(
        index=0, first_token=0, n_emitted=2, drafter="model", draft_length=1, reason="r", greedy=False,
        drafted=(DraftedRecord("x", 0.8, 0.4, True, 0.1),), bonus=TopEntry("y", 0.3),
    )  # fmt: skip
    words = explain(step)
    assert "coin fell below" in words and "(p >= q)" not in words
    assert 'bonus token, "y" (p = 0.30)' in words


def test_greedy_steps_name_the_targets_most_likely_token() -> None:
    words = explain(_greedy_step())
    assert words.startswith("Prompt lookup copied 2 tokens after a match of 5 tokens")
    assert 'the target\'s most likely token was " c"' in words
    assert "coin" not in words


def test_a_step_without_a_draft_says_why_and_shows_blanks() -> None:
    words = explain(_bonus_step())
    assert "Nothing was drafted this step (drafting off: the draft costs more than it saves)." in words
    assert '"\\n"' in words
    assert quoted("a\tb\n") == '"a\\tb\\n"'


class _Collector(HTMLParser):
    """Collects tags and text so a test can check what the page really holds."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_page_escapes_model_text_and_has_a_card_per_step() -> None:
    steps = [_rejected_step(), _greedy_step(), _bonus_step()]
    texts = ["The", " cat", " foo", " a", " c", "<script>alert(1)</script>"]
    origins = ["draft", "draft", "corrected", "draft", "corrected", "bonus"]
    page = render_page("Reply <12>", texts, origins, steps)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>" not in page.replace("<b>residual", "").replace("<b>the target", "")
    parser = _Collector()
    parser.feed(page)
    assert parser.tags.count("section") == 3
    assert parser.tags.count("script") == 1  # the inline next/previous script only
    assert "http://" not in page and "https://" not in page and "src=" not in page
    text = "".join(parser.text)
    assert "Reply <12>" in text
    assert "coin 0.570 ≥ 0.197" in text  # the accept test: the coin against min(1, p/q)
    assert "3.1 ms" in text and "41.0 ms" in text
    assert 'data-step="2"' in page  # the last token opens the third step


def test_a_page_without_steps_says_so() -> None:
    page = render_page("old reply", ["hi"], ["target"], [])
    assert "No steps were recorded" in page
