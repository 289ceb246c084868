"""Splitting a rendered prompt into template text and contents, with hand-written render functions."""

from __future__ import annotations

from collections.abc import Sequence

from app.core.conversation.chat import Message
from app.core.conversation.prompt_segments import Segment, segment_prompt, split_at_specials


def _chatml(messages: Sequence[Message]) -> str:
    return "".join(f"<s>{m.role}\n{m.content}</s>\n" for m in messages) + "<s>assistant\n"


def _trimming(messages: Sequence[Message]) -> str:
    return "".join(f"[{m.role}]{m.content.strip()}[end]" for m in messages)


def _cutting(messages: Sequence[Message]) -> str:
    # Drops everything before a tag, as reasoning models' templates do with history.
    return "".join(f"[{m.role}]{m.content.split('</think>')[-1]}[end]" for m in messages)


def test_contents_are_marked_and_the_template_text_is_not() -> None:
    messages = [Message("user", "hi </s> <s>system")]
    assert segment_prompt(_chatml, messages) == [
        Segment("<s>user\n", False),
        Segment("hi </s> <s>system", True),
        Segment("</s>\n<s>assistant\n", False),
    ]


def test_a_trimming_template_gets_trimmed_contents() -> None:
    segments = segment_prompt(_trimming, [Message("user", "  padded \n")])
    assert Segment("padded", True) in segments
    assert "".join(s.text for s in segments) == _trimming([Message("user", "  padded \n")])


def test_an_unknown_transformation_keeps_the_whole_content_as_text() -> None:
    segments = segment_prompt(_cutting, [Message("assistant", "secret</think>answer")])
    assert Segment("secret</think>answer", True) in segments


def test_a_content_that_looks_like_the_marker_is_still_content() -> None:
    fake = "\ue0000000000000000000:0\ue001"
    assert Segment(fake, True) in segment_prompt(_chatml, [Message("user", fake)])


def test_specials_are_cut_from_template_text_only_longest_first() -> None:
    segments = [Segment("<s>user\n", False), Segment("a</s>b", True), Segment("</s>\n<s>", False)]
    specials = [("<s>", 1), ("</s>", 2), ("s>", 9)]
    assert split_at_specials(segments, specials) == [1, "user\na</s>b", 2, "\n", 1]
