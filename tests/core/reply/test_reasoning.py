"""The reasoning splitter on hand-built token streams, and acceptance split by part."""

from __future__ import annotations

import pytest

from app.core.conversation.chat import Message
from app.core.reply.reasoning import (
    Part,
    ReasoningMarkers,
    ReasoningSplitter,
    acceptance_by_part,
    split_pieces,
    split_reasoning,
    strip_reasoning,
    thinking_asked,
    token_parts,
)


def _texts(pieces: list, part: Part) -> str:
    return "".join(p.text for p in pieces if p.part is part)


def test_a_whole_block_in_one_token_each() -> None:
    tokens = ["<think>", "Let", " me", " see", "</think>", "\n\n", "Hi", "!"]
    pieces = split_pieces(tokens)
    assert _texts(pieces, Part.THINKING) == "Let me see"
    assert _texts(pieces, Part.ANSWER) == "\n\nHi!"
    assert token_parts(tokens) == [Part.THINKING] * 5 + [Part.ANSWER] * 3


def test_markers_split_across_tokens_are_held_until_decided() -> None:
    splitter = ReasoningSplitter()
    assert splitter.feed("<th") == []  # may still become the opener
    opened = splitter.feed("ink>Hmm")
    assert [(p.token, p.part, p.text) for p in opened] == [
        (0, Part.MARKER, "<th"),
        (1, Part.MARKER, "ink>"),
        (1, Part.THINKING, "Hmm"),
    ]
    assert splitter.thinking
    held = splitter.feed(" ok</")
    assert [(p.part, p.text) for p in held] == [(Part.THINKING, " ok")]  # "</" waits
    assert splitter.feed("thi") == []
    last = splitter.feed("nk>Answer")
    assert [(p.token, p.part, p.text) for p in last] == [
        (2, Part.MARKER, "</"),
        (3, Part.MARKER, "thi"),
        (4, Part.MARKER, "nk>"),
        (4, Part.ANSWER, "Answer"),
    ]
    assert splitter.closed and not splitter.thinking


def test_a_false_start_of_the_closing_marker_is_thinking() -> None:
    tokens = ["<think>", "a </", "b", "</think>", "x"]
    reply = split_reasoning("".join(tokens))
    assert reply.reasoning == "a </b"
    assert _texts(split_pieces(tokens), Part.THINKING) == "a </b"


def test_a_missing_closing_marker_keeps_the_rest_as_thinking() -> None:
    tokens = ["<think>", "still", " going", " </thi"]
    pieces = split_pieces(tokens)
    assert _texts(pieces, Part.THINKING) == "still going </thi"  # flushed at the end
    assert _texts(pieces, Part.ANSWER) == ""
    reply = split_reasoning("".join(tokens))
    assert reply == type(reply)("still going </thi", "", False)


def test_a_reply_that_starts_inside_the_block() -> None:
    tokens = ["plan", " it", "</think>", "Done"]
    assert token_parts(tokens, inside=True) == [Part.THINKING] * 3 + [Part.ANSWER]
    assert split_reasoning("plan it</think>Done", inside=True).reasoning == "plan it"
    # without inside, the same stream has no block: all of it is answer text
    assert token_parts(tokens) == [Part.ANSWER] * 4


def test_a_marker_after_the_start_stays_text() -> None:
    text = "Use <think> tags like <think>x</think>."
    assert split_reasoning(text).reasoning is None
    assert split_reasoning(text).answer == text
    assert strip_reasoning(text) == text


def test_leading_white_space_then_the_block() -> None:
    tokens = ["\n", " ", "<", "think", ">", "x", "</think>", "y"]
    assert token_parts(tokens)[:2] == [Part.ANSWER, Part.ANSWER]
    assert split_reasoning("".join(tokens)).answer == "y"


def test_no_block_streams_at_once() -> None:
    splitter = ReasoningSplitter()
    assert [p.text for p in splitter.feed("Hello")] == ["Hello"]
    assert splitter.feed(" world")[0].part is Part.ANSWER
    assert splitter.finish() == []


def test_a_reply_that_is_only_a_partial_opener() -> None:
    assert split_reasoning("<thi").answer == "<thi"  # at the end it is plain text
    assert split_reasoning("").answer == ""


def test_a_template_with_its_own_markers() -> None:
    markers = ReasoningMarkers("<|begin_of_thought|>", "<|end_of_thought|>")
    reply = split_reasoning("<|begin_of_thought|>hm<|end_of_thought|>ok", markers)
    assert (reply.reasoning, reply.answer) == ("hm", "ok")
    assert split_reasoning("<think>hm</think>ok", markers).reasoning is None
    with pytest.raises(ValueError, match="must not be empty"):
        ReasoningMarkers("", "x")


def test_strip_reasoning_leaves_the_answer() -> None:
    assert strip_reasoning("<think>secret</think>\n\nThe answer.") == "The answer."
    assert strip_reasoning("<think>unfinished") == ""


def test_acceptance_by_part_counts_each_part_apart() -> None:
    origins = ["target", "draft", "draft", "corrected", "draft", "bonus", "corrected"]
    parts = [Part.THINKING] * 4 + [Part.ANSWER] * 3
    split = acceptance_by_part(origins, parts)
    thinking, answer = split[Part.THINKING], split[Part.ANSWER]
    assert (thinking.tokens, thinking.from_draft, thinking.rejections) == (4, 2, 1)
    assert (answer.tokens, answer.from_draft, answer.rejections) == (3, 1, 1)
    assert thinking.from_draft_share == pytest.approx(0.5)
    assert thinking.acceptance_rate == pytest.approx(2 / 3)
    assert answer.acceptance_rate == pytest.approx(0.5)
    assert acceptance_by_part([], [])[Part.ANSWER].acceptance_rate == 0.0
    with pytest.raises(ValueError, match="2 origins for 1 parts"):
        acceptance_by_part(["draft", "draft"], [Part.ANSWER])


def test_history_leaves_out_earlier_replies_reasoning() -> None:
    from app.core.conversation.chat import Message
    from app.core.reply.reasoning import history_without_reasoning

    turns = (
        Message("system", "<think>system text stays</think>"),
        Message("user", "<think>a user's text stays</think>q"),
        Message("assistant", "<think>why</think>\n\nBecause."),
        Message("user", "and?"),
        Message("assistant", "<think>half"),
    )
    plain = history_without_reasoning(turns)
    assert [m.content for m in plain] == [
        "<think>system text stays</think>",
        "<think>a user's text stays</think>q",
        "Because.",
        "and?",
        "",
    ]
    kept = history_without_reasoning(turns, keep_last=True)
    assert kept[-1].content == "<think>half" and kept[2].content == "Because."


@pytest.mark.parametrize(
    ("texts", "inside"),
    [
        (["<th", "ink>", "a", " </", "b", "</th", "ink>\n", "x", "y"], False),
        (["plan", "", "</think>", "ok"], True),
        (["Hello", " there"], False),
        (["<think>", "never", " closed </thi"], False),
    ],
)
def test_the_running_tally_matches_the_whole_reply_split(texts: list[str], inside: bool) -> None:
    from app.core.reply.reasoning import ReasoningTally

    origins = ["draft", "corrected", "bonus", "target"] * 3
    origins = origins[: len(texts)]
    tally = ReasoningTally(inside=inside)
    for text, origin in zip(texts, origins, strict=True):
        tally.add(text, origin)
    tally.finish()
    assert tally.split() == acceptance_by_part(origins, token_parts(texts, inside=inside))
    assert tally.has_block == (split_reasoning("".join(texts), inside=inside).reasoning is not None)


def test_thinking_asked_reads_the_switches_of_the_system_prompt_and_user_turns() -> None:
    assert thinking_asked([Message("system", "Be brief."), Message("user", "Hi")]) is None
    assert thinking_asked([Message("system", "Be brief. /think"), Message("user", "Hi")]) is True
    assert thinking_asked([Message("system", "/think"), Message("user", "Hi /no_think")]) is False
    # An assistant's words are not the user's switch, and a word that only starts like one is none.
    assert thinking_asked([Message("assistant", "/no_think"), Message("user", "/thinking aloud")]) is None
