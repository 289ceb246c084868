"""Splitting a rendered prompt into template text and contents, with hand-written render functions."""

from __future__ import annotations

from collections.abc import Sequence

from app.core.conversation.chat import Message
from app.core.conversation.prompt_segments import Segment, guard_plain_text, segment_prompt, split_at_specials


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


def test_a_guarded_text_in_a_content_is_cut_and_the_templates_own_is_kept() -> None:
    # A tool-calling template writes <call> itself; a tool result that holds it must not become the token.
    segments = [Segment("<s>tool\n<call>", False), Segment("x<call>y</call>", True), Segment("</call>\n", False)]
    parts = split_at_specials(segments, [("<s>", 1)], guarded=["<call>", "</call>"])
    assert parts == [1, "tool\n<call>x<", "call>y<", "/call></call>\n"]
    assert "".join(p for p in parts if isinstance(p, str)) == "tool\n<call>x<call>y</call></call>\n"


def test_without_a_guarded_text_in_a_content_the_run_stays_whole() -> None:
    segments = [Segment("<call>", False), Segment("plain", True), Segment("</call>", False)]
    assert split_at_specials(segments, [], guarded=["<call>", "</call>"]) == ["<call>plain</call>"]


def test_a_guarded_text_straddling_template_and_content_is_cut() -> None:
    assert guard_plain_text("ab<ca" + "ll>", [(5, 8)], ["<call>"]) == ["ab<", "call>"]
    assert guard_plain_text("<call>", [(5, 6)], ["<call>"]) == ["<", "call>"]


def test_guarded_texts_follow_the_tokenizers_order_longest_first() -> None:
    # "<<call>>" is matched before "<call>" inside it; cutting it exposes "<call>", which is cut in turn.
    assert guard_plain_text("<<call>>", [(0, 8)], ["<call>", "<<call>>"]) == ["<", "<", "call>>"]
    # A one-character text cannot be cut; whitespace of the content is left alone.
    assert guard_plain_text("a < b", [(0, 5)], ["<"]) == ["a < b"]


def test_every_piece_is_free_of_a_guarded_text_that_takes_in_a_content() -> None:
    text = "<call></call><call>" * 3
    pieces = guard_plain_text(text, [(0, len(text))], ["<call>", "</call>", "call"])
    assert "".join(pieces) == text
    assert not any(g in p for p in pieces for g in ("<call>", "</call>", "call"))
