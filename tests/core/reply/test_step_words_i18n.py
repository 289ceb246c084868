"""A step's words and a policy's reason as translatable sentences: English str unchanged, numbers kept as numbers."""

from __future__ import annotations

import pytest

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.adaptive.reasons import BEST_AT, CATCH_UP, MEASURING_DRAFT, OFF_COSTLY, REASONS
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.display.wording import Phrase, Words
from app.core.reply.step_record import DraftedRecord, StepRecord, TopEntry
from app.core.reply.step_words import explain, explain_words, ordinal, reason_words


def _marked(_context: str, source: str) -> str:
    return source


def _comma(value: int | float, spec: str) -> str:
    return format(value, spec).replace(".", ",")


@pytest.mark.parametrize(
    "reason",
    [
        str(BEST_AT.fill(k=3, acceptance=0.5678, draft_ms=12.4, verify_ms=40.6)),
        str(CATCH_UP.fill(backlog=812, read_s=1.25, remaining=200, saved_s=0.5)),
        str(MEASURING_DRAFT.fill(k=4)),
        str(OFF_COSTLY),
        FixedDraftLength(6).reason,
        AdaptiveDraftLength().reason,
    ],
)
def test_a_stored_reason_is_read_back_with_its_numbers(reason: str) -> None:
    words = reason_words(reason)
    assert isinstance(words, Words | Phrase) and str(words) == reason
    assert words in REASONS or (isinstance(words, Words) and words.phrase in REASONS)


def test_numbers_of_a_reason_come_back_as_numbers() -> None:
    words = reason_words("expected speed best at K=3 (acceptance 0.57, draft 12 ms/token, verify 41 ms)")
    assert isinstance(words, Words)
    assert (
        words.render(_marked, _comma) == "expected speed best at K=3 (acceptance 0,57, draft 12 ms/token, verify 41 ms)"
    )


def test_an_unknown_reason_stays_as_it_is() -> None:
    assert reason_words("an older policy's words") == "an older policy's words"
    assert reason_words("fixed at many") == "fixed at many"


def test_explain_is_its_sentences_joined_and_numbers_stay_numbers() -> None:
    step = StepRecord(
        index=0, first_token=0, n_emitted=2, drafter="model", draft_length=2, reason="fixed at 2", greedy=False,
        drafted=(DraftedRecord("a", 0.5, 0.75, True, 0.2), DraftedRecord("b", 0.6, 0.15, False, 0.9)),
        correction=TopEntry("c", 0.5),
    )  # fmt: skip
    sentences = explain_words(step)
    assert explain(step) == " ".join(str(s) for s in sentences)
    rendered = " ".join(s.render(_marked, _comma) for s in sentences)
    assert "had p = 0,15 against q = 0,60: kept with probability 0,25, the coin drew 0,90, rejected." in rendered
    assert [ordinal(i) for i in (0, 9, 10)] == ["first", "tenth", "token 11"]
