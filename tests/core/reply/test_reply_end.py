"""A reply's end as one typed record: the four ways it ends, the keys it stores, its reading back, its thinking time."""

from __future__ import annotations

import pytest

from app.core.conversation.chat import MessageState
from app.core.decoding.events import FinishedEvent, FinishReason
from app.core.decoding.stats import GenerationStats
from app.core.reply.end import EndKind, ReplyEnd
from app.core.reply.record import STORE_ERROR_REASON, ReplyRecord, stats_record
from app.core.reply.thinking import ThinkingClock


def _stats(emitted: int = 7) -> GenerationStats:
    stats = GenerationStats()
    stats.emitted = emitted
    stats.drafted = 4
    stats.accepted = 3
    return stats


def test_a_finished_reply_stores_its_statistics_reason_and_thinking_time() -> None:
    stats = _stats()
    event = FinishedEvent(FinishReason.MAX_TOKENS, " more", stats)
    end = ReplyEnd.finished(event, text="Some more", thinking_seconds=1.5)  # a continued reply: its whole text
    assert (end.kind, end.state, end.text) == (EndKind.FINISHED, MessageState.DONE, "Some more")
    assert end.reason is FinishReason.MAX_TOKENS
    assert end.to_meta() == {"stats": stats_record(stats), "finish_reason": "length", "thinking_seconds": 1.5}
    plain = ReplyEnd.finished(FinishedEvent(FinishReason.EOG, "Hi.", stats))
    assert plain.text == "Hi." and "thinking_seconds" not in plain.to_meta()  # a reply without a block: as before


def test_a_stopped_reply_is_cancelled_with_or_without_statistics() -> None:
    stopped = ReplyEnd.finished(FinishedEvent(FinishReason.CANCELLED, "Half", _stats()))
    assert stopped.kind is EndKind.CANCELLED and stopped.state is MessageState.CANCELLED
    interrupted = ReplyEnd.stopped(text="Half")  # Ctrl+C, or the window closing under it
    assert interrupted.kind is EndKind.CANCELLED and interrupted.stats is None
    assert interrupted.to_meta() == {"finish_reason": "cancelled"}


def test_a_failure_and_a_store_refusal_are_failed_with_their_reasons() -> None:
    failed = ReplyEnd.failed(text="Par", error="the server went away")
    assert failed.kind is EndKind.FAILED and failed.state is MessageState.FAILED and failed.reason is None
    assert failed.to_meta() == {"error": "the server went away"}  # no finish reason, as older Tandems stored it
    stats = _stats()
    finished = ReplyEnd.finished(FinishedEvent(FinishReason.EOG, "Done.", stats), thinking_seconds=0.5)
    refused = finished.refused("disk full")
    assert refused.kind is EndKind.STORE_ERROR and refused.state is MessageState.FAILED and refused.reason is None
    assert refused.to_meta() == {
        "stats": stats_record(stats),
        "finish_reason": STORE_ERROR_REASON,
        "thinking_seconds": 0.5,
        "error": "disk full",
    }
    closed = ReplyEnd.stopped(text="Half").refused("disk full")  # the window closed while the store refused
    assert closed.to_meta() == {"finish_reason": STORE_ERROR_REASON, "error": "disk full"}


def test_an_end_reads_back_from_the_stored_meta_and_damage_reads_as_unset() -> None:
    end = ReplyEnd.finished(FinishedEvent(FinishReason.STOP_STRING, "Yes.", _stats()), thinking_seconds=2.0)
    meta = {**ReplyRecord(pair="t + d", drafter="model").to_meta(), **end.to_meta()}
    back = ReplyEnd.read(meta, text="Yes.", state=MessageState.DONE)
    assert back.to_meta() == end.to_meta() and back.kind is EndKind.FINISHED and back.stats is not None
    damaged = {"stats": "lots", "finish_reason": 3, "thinking_seconds": -1}
    odd = ReplyEnd.read(damaged, text="", state=MessageState.FAILED)
    assert (odd.stats, odd.finish_reason, odd.thinking_seconds, odd.error) == (None, None, None, None)


def test_the_clock_sums_the_steps_from_the_first_thinking_token_to_the_close() -> None:
    clock = ThinkingClock()
    clock.add(["<think>", "\nAdd"], 100.0)
    clock.add([" 2 and 3", ".\n</th"], 250.0)  # the closing marker is split across steps
    assert clock.seconds is None
    clock.add(["ink>", "\n\nThe answer"], 900.0)  # the step that closed it counts
    clock.add([" is 5."], 4000.0)  # the answer's steps do not
    assert clock.seconds == pytest.approx(1.25)


@pytest.mark.parametrize(
    ("steps", "inside"),
    [
        ([(["Just", " an answer."], 100.0)], False),  # no block
        ([(["<think>", "still"], 100.0), ([" thinking"], 50.0)], False),  # never closed
        ([(["<think>", "a"], None), (["</think>", "b"], None)], False),  # steps not traced
    ],
)
def test_the_clock_has_no_time_without_a_closed_and_timed_block(steps, inside) -> None:
    clock = ThinkingClock(inside=inside)
    for texts, ms in steps:
        clock.add(texts, ms)
    assert clock.seconds is None


def test_a_block_the_prompt_opened_counts_from_the_first_step() -> None:
    clock = ThinkingClock(inside=True)
    clock.add(["Let me", " see"], 300.0)
    clock.add(["</think>", "Four."], 200.0)
    clock.add([" Done."], 1000.0)
    assert clock.seconds == pytest.approx(0.5)
