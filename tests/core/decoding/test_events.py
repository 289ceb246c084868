"""The decoder's event records: the finish reason in OpenAI's words both ways, and steps built by keyword."""

from __future__ import annotations

import pytest

from app.core.decoding.events import FinishReason, StepEvent, StepTimings


@pytest.mark.parametrize(
    ("reason", "openai"),
    [
        (FinishReason.EOG, "stop"),
        (FinishReason.STOP_STRING, "stop"),
        (FinishReason.CANCELLED, "stop"),
        (FinishReason.MAX_TOKENS, "length"),
        (FinishReason.CONTEXT_FULL, "length"),  # a full context is a length limit too
    ],
)
def test_every_reason_has_openais_word(reason: FinishReason, openai: str) -> None:
    assert reason.to_openai() == openai


def test_openais_words_read_back() -> None:
    assert FinishReason.from_openai("stop") is FinishReason.EOG
    assert FinishReason.from_openai("length") is FinishReason.MAX_TOKENS
    # The server ended the reply itself: the reply is complete as far as we can tell.
    for other in ("tool_calls", "content_filter", "function_call", "something-new"):
        assert FinishReason.from_openai(other) is FinishReason.EOG


def test_the_way_there_and_back_keeps_what_openai_can_say() -> None:
    for reason in FinishReason:
        back = FinishReason.from_openai(reason.to_openai())
        assert back.to_openai() == reason.to_openai()
        assert (back is FinishReason.MAX_TOKENS) == (reason in (FinishReason.MAX_TOKENS, FinishReason.CONTEXT_FULL))


def test_a_step_is_built_with_keywords_only() -> None:
    timings = StepTimings(0.0, 0.1, 0.1)
    step = StepEvent(tokens=(), drafted=3, accepted=1, draft_length=4, timings=timings)
    assert (step.drafted, step.accepted, step.draft_length, step.threads, step.draft_source) == (3, 1, 4, 0, None)
    with pytest.raises(TypeError):
        StepEvent((), 3, 1, 4, None, timings)  # type: ignore[misc]
