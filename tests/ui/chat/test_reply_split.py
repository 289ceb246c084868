"""The view's split of a reply's tokens into its "Thinking" section and its answer, as they stream.

Pure bookkeeping over hand-built stored tokens (no display): which characters
each part draws, that both lists only grow, when the shape changes, and the
block's duration from the steps' times.
"""

from __future__ import annotations

from app.core.reply.token_record import TokenRecord
from app.ui.chat.view.reply_split import ReplySplit, duration_words


def _tokens(*texts: str) -> list[TokenRecord]:
    return [
        TokenRecord(text=text, origin="draft" if i % 2 else "target", p_target=0.5, q_draft=0.4 if i % 2 else None)
        for i, text in enumerate(texts)
    ]


def test_a_reply_without_a_block_is_its_answer_token_for_token():
    tokens = _tokens("Hello", " there", "\n", "<think>", "!")
    split = ReplySplit.of(tokens)
    assert not split.has_block and split.thinking == [] and split.answer_base == 0
    assert split.answer == tokens  # the very records: drawn exactly as before
    assert split.answer_text == "Hello there\n<think>!"  # a marker the answer mentions later is text


def test_markers_split_across_tokens_and_the_white_space_around_the_block_are_left_out():
    tokens = _tokens("\n", "<th", "ink>", "\nI add", " 2 and 3", ".\n</", "think>\n\n", "The answer", " is 5.")
    split = ReplySplit.of(tokens)
    assert split.has_block and split.closed and split.close_token == 6 and split.answer_base == 6
    assert split.thinking_text == "I add 2 and 3."
    assert [t.text for t in split.thinking] == ["", "", "", "I add", " 2 and 3", ".", ""]
    assert [t.origin for t in split.thinking] == [t.origin for t in tokens[:7]]  # origins kept
    assert split.answer_text == "The answer is 5."
    assert [t.text for t in split.answer] == ["", "The answer", " is 5."]
    assert [t.p_target for t in split.answer] == [t.p_target for t in tokens[6:]]


def test_the_closing_token_gives_its_thinking_and_its_answer_to_both_parts():
    split = ReplySplit.of(_tokens("<think>", "hmm</think>Yes", "."))
    assert split.close_token == 1
    assert split.thinking_text == "hmm" and split.answer_text == "Yes."
    assert split.thinking[1].text == "hmm" and split.answer[0].text == "Yes"


def test_streaming_holds_back_a_possible_marker_and_reports_each_change_of_shape_once():
    split = ReplySplit()
    assert not split.add(_tokens("<"))  # may still be the opener: nothing decided
    assert split.thinking == [] and split.answer == []
    assert split.add(_tokens("think>", "a"))  # the block appears
    assert split.has_block and not split.closed and split.thinking_text == "a"
    assert not split.add(_tokens(" b</"))  # "</" may close it: held back
    assert split.thinking_text == "a" and len(split.thinking) == 3  # " b</" waits whole
    assert split.add(_tokens("think>", "Hi"))  # it closes
    assert split.closed and split.thinking_text == "a b" and split.answer_text == "Hi"
    assert not split.add(_tokens("!"))
    assert split.answer_text == "Hi!"


def test_a_block_the_prompt_opened_and_one_never_closed():
    split = ReplySplit.of(_tokens("First, ", "think.", "</think>", "Done"), inside=True)
    assert split.has_block and split.closed and split.thinking_text == "First, think." and split.answer_text == "Done"
    cut = ReplySplit(inside=False)
    cut.add(_tokens("<think>", "still going </"))
    assert cut.thinking_text == "" and len(cut.thinking) == 1  # the token waits whole: its "</" may close
    assert not cut.finish()  # same shape: a block, not closed
    assert cut.thinking_text == "still going </" and not cut.closed and cut.answer == []


def test_the_duration_is_the_time_of_the_steps_from_the_first_thinking_token_to_the_close():
    split = ReplySplit()
    split.add(_tokens("<think>", "a"), step_ms=400.0)
    split.add(_tokens("b", "c"), step_ms=500.0)
    assert split.seconds is None  # still thinking
    split.add(_tokens("</think>", "Hi"), step_ms=350.0)
    split.add(_tokens("!"), step_ms=900.0)  # the answer's steps do not count
    assert split.seconds == 1.25
    untimed = ReplySplit.of(_tokens("<think>", "a", "</think>", "b"))
    assert untimed.closed and untimed.seconds is None  # no step times (a server's reply): no N


def test_duration_words():
    assert duration_words(1.25) == "1.2 s" and duration_words(0.04) == "0.0 s" and duration_words(42.4) == "42 s"


def test_a_harmony_reply_draws_its_analysis_in_the_section_and_its_final_message_as_the_answer():
    # gpt-oss's markers as llama.cpp spells them: one token each; none of them is drawn.
    tokens = _tokens(
        "<|channel|>", "analysis", "<|message|>", "Say", " hi.", "<|end|>", "<|start|>", "assistant",
        "<|channel|>", "final", "<|message|>", "Hi", "!",
    )  # fmt: skip
    split = ReplySplit.of(tokens)
    assert split.has_block and split.closed and split.close_token == 10
    assert split.thinking_text == "Say hi." and split.answer_text == "Hi!"
    assert [t.text for t in split.answer] == ["", "Hi", "!"]
    opened = ReplySplit.of(tokens[:5], final=False)  # streaming, still in the analysis: the section stays open
    assert opened.has_block and not opened.closed and opened.thinking_text == "Say hi."
