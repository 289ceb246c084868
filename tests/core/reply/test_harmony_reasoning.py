"""gpt-oss's harmony channels told apart by the reasoning splitter, on streams cut at every character."""

from __future__ import annotations

import pytest

from app.core.reply.reasoning import (
    Part,
    ReasoningSplitter,
    reasoning_json,
    split_pieces,
    split_reasoning,
    strip_reasoning,
)
from app.core.reply.thinking import ThinkingClock

ANALYSIS = "<|channel|>analysis<|message|>"
FINAL = "<|start|>assistant<|channel|>final<|message|>"
REPLY = ANALYSIS + "The user greets; answer briefly." + "<|end|>" + FINAL + "Hello there!"
TWO = ANALYSIS + "First." + "<|end|><|start|>assistant" + ANALYSIS + "Second." + "<|end|>" + FINAL + "Done."
COMMENTARY = '<|channel|>commentary to=functions.w<|message|>{"a": 1}'
CALL = ANALYSIS + "Need weather." + "<|end|><|start|>assistant" + COMMENTARY


def _parts(texts: list[str]) -> tuple[str, str, str]:
    pieces = split_pieces(texts)
    return tuple("".join(p.text for p in pieces if p.part is part) for part in Part)  # type: ignore[return-value]


def _cuts(text: str) -> list[list[str]]:
    """The text whole, one character a token, and cut in two at every place."""
    return [[text], list(text)] + [[text[:i], text[i:]] for i in range(1, len(text))]


@pytest.mark.parametrize(
    ("reply", "thinking", "answer"),
    [
        (REPLY, "The user greets; answer briefly.", "Hello there!"),
        (TWO, "First.Second.", "Done."),
        (CALL, "Need weather.", "<|start|>assistant" + COMMENTARY),
        ("<|channel|>final<|message|>Just this.", "", "Just this."),
        ("No channels here <|end|>", "", "No channels here <|end|>"),
    ],
)
def test_every_cut_of_a_harmony_reply_splits_the_same(reply: str, thinking: str, answer: str) -> None:
    for texts in _cuts(reply):
        got_thinking, _markers, got_answer = _parts(texts)
        assert (got_thinking, got_answer) == (thinking, answer), texts


def test_the_analysis_is_the_reasoning_and_the_final_message_the_answer() -> None:
    reply = split_reasoning(REPLY)
    assert (reply.reasoning, reply.answer, reply.closed) == ("The user greets; answer briefly.", "Hello there!", True)
    assert strip_reasoning(REPLY) == "Hello there!"


def test_a_reply_that_ends_inside_the_analysis_stays_open() -> None:
    reply = split_reasoning(ANALYSIS + "Still weighing it<|en")
    assert (reply.reasoning, reply.answer, reply.closed) == ("Still weighing it<|en", "", False)
    ended = split_reasoning(ANALYSIS + "Weighed.<|end|><|start|>assistant")
    assert (ended.reasoning, ended.answer, ended.closed) == ("Weighed.", "", False)
    # What the window shows of a reply whose call the call reader took out: the analysis message, whole.
    called = split_reasoning(ANALYSIS + "Weighed.<|end|>")
    assert (called.reasoning, called.answer, called.closed) == ("Weighed.", "", True)


def test_the_splitter_stays_thinking_between_messages_and_closes_at_the_final_header() -> None:
    splitter = ReasoningSplitter()
    splitter.feed(ANALYSIS + "Hmm")
    assert splitter.thinking
    splitter.feed("<|end|><|start|>assistant<|chan")
    assert splitter.thinking and not splitter.closed
    pieces = splitter.feed("nel|>final<|message|>Hi")
    assert splitter.closed and not splitter.thinking
    assert [(p.token, p.part, p.text) for p in pieces] == [
        (1, Part.MARKER, "<|start|>assistant<|chan"),  # held back while it might have been answer text
        (2, Part.MARKER, "nel|>final<|message|>"),
        (2, Part.ANSWER, "Hi"),
    ]


def test_the_thinking_clock_times_the_analysis_to_the_final_header() -> None:
    clock = ThinkingClock()
    clock.add([ANALYSIS, "Hmm."], 100.0)
    clock.add(["<|end|>", "<|start|>assistant"], 50.0)
    assert clock.seconds is None
    clock.add(["<|channel|>final<|message|>", "Hi"], 25.0)
    clock.add(["!"], 1000.0)
    assert clock.seconds == pytest.approx(0.175)


def test_chat_json_carries_the_analysis_as_the_reasoning() -> None:
    texts = [ANALYSIS, "Hmm.", "<|end|>", "<|start|>assistant", "<|channel|>final<|message|>", "Hi"]
    carried = reasoning_json(texts, ["target", "draft", "target", "target", "draft", "draft"])
    assert carried is not None
    assert (carried["text"], carried["answer"], carried["closed"]) == ("Hmm.", "Hi", True)
    assert carried["answer_part"]["tokens"] == 1 and carried["thinking"]["tokens"] == 5
