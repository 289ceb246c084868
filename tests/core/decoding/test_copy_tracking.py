"""Following an edited copy: departures, realignment, substitutions learned and dropped, on hand-built tokens."""

from __future__ import annotations

import numpy as np

from app.core.decoding.copy_tracking import REALIGN, REPEAT, Anchor, CopyState, CopyTracker
from app.core.decoding.lookup_drafters import NgramDrafter

# A "module" of tokens in which 20 plays the name to be renamed: 10 11 12 13 cfg 14 15 cfg 16 17 cfg 18.
SOURCE = [10, 11, 12, 13, 20, 14, 15, 20, 16, 17, 20, 18]
SEPARATOR = 99


def _tracker_copying(reply: list[int]) -> tuple[CopyTracker, list[int]]:
    """A tracker anchored at the source's start, having followed ``reply``."""
    tracker = CopyTracker()
    context = [*SOURCE, SEPARATOR]
    tracker.begin(len(context))
    tracker.start(Anchor(CopyState(0), 3, REPEAT))
    context += reply
    tracker.follow(np.asarray(context, dtype=np.int64))
    return tracker, context


def _array(tokens: list[int]) -> np.ndarray:
    return np.asarray(tokens, dtype=np.int64)


def test_a_copy_is_followed_token_by_token_and_left_at_a_departure() -> None:
    tracker, context = _tracker_copying([10, 11, 12])
    assert tracker.state == CopyState(3) and tracker.evidence == 6
    assert tracker.predict(_array(context), 3).tokens == [13, 20, 14]
    tracker, _ = _tracker_copying([10, 11, 12, 13, 30])  # 30 where the source says 20: an edit
    assert tracker.state is None and tracker.evidence == 0


def test_a_rename_is_realigned_learned_and_then_proposed() -> None:
    tracker, context = _tracker_copying([10, 11, 12, 13, 30, 14])
    anchor = tracker.realign(_array(context))
    # "14" occurs right after the cfg the reply replaced: the copy goes on from there.
    assert anchor is not None and anchor.origin == REALIGN and anchor.state == CopyState(6)
    assert tracker.substitutions == {(20,): (30,)}
    tracker.start(anchor)
    # The next cfg in the source is proposed as the name the reply uses instead.
    assert tracker.predict(_array(context), 4).tokens == [15, 30, 16, 17]
    tracker.follow(_array([*context, 15, 30, 16]))
    assert tracker.state is not None and tracker.state.source == 9


def test_a_multi_token_replacement_is_followed_through_and_a_contradicted_one_dropped() -> None:
    tracker, context = _tracker_copying([10, 11, 12, 13, 30, 31, 14])
    anchor = tracker.realign(_array(context))
    assert anchor is not None and tracker.substitutions == {(20,): (30, 31)}
    tracker.start(anchor)
    context += [15, 30, 31, 16]  # the rename recurs: followed through both replacement tokens
    tracker.follow(_array(context))
    assert tracker.state == CopyState(9)
    context += [17, 20]  # here the reply keeps the old name: one contradiction, the substitution stays
    tracker.follow(_array(context))
    assert tracker.state is None and tracker.substitutions == {(20,): (30, 31)}
    # Where the reply edits the same name differently, the latest edit is kept (from its first token).
    tracker, context = _tracker_copying([10, 11, 12, 13, 30, 31, 14])
    anchor = tracker.realign(_array(context))
    assert anchor is not None
    tracker.start(anchor)
    context += [15, 30, 7, 16]  # 7 where the replacement goes on with 31
    tracker.follow(_array(context))
    anchor = tracker.realign(_array(context))
    assert anchor is not None and anchor.state == CopyState(9)
    assert tracker.substitutions == {(20,): (30, 7)}


def test_a_substitution_the_reply_contradicts_twice_is_dropped() -> None:
    tracker, context = _tracker_copying([10, 11, 12, 13, 30, 14])
    anchor = tracker.realign(_array(context))
    assert anchor is not None
    tracker.start(anchor)
    context += [15, 20, 16]  # the old name this time
    tracker.follow(_array(context))
    anchor = tracker.realign(_array(context))
    assert anchor is not None and anchor.state == CopyState(9)  # "20 16" found: nothing to learn from it
    assert tracker.substitutions == {(20,): (30,)}
    tracker.start(anchor)
    context += [17, 20]
    tracker.follow(_array(context))
    assert tracker.substitutions == {}


def test_an_insertion_realigns_without_becoming_a_substitution() -> None:
    tracker, context = _tracker_copying([10, 11, 12, 13, 40, 41, 42, 20])  # three new tokens before cfg
    anchor = tracker.realign(_array(context))
    assert anchor is not None and anchor.state == CopyState(5)
    assert tracker.substitutions == {}


def test_the_longest_nearby_tail_wins_and_the_search_gives_up_after_a_long_gap() -> None:
    # The tail "16 17" occurs once near the departure; "17" alone would be found at the same place.
    tracker, context = _tracker_copying([10, 11, 12, 13, 30, 50, 16, 17])
    anchor = tracker.realign(_array(context))
    assert anchor is not None and anchor.state == CopyState(10) and anchor.evidence > 2
    tracker = CopyTracker(max_gap=4)
    tracker.begin(len(SOURCE) + 1)
    tracker.start(Anchor(CopyState(0), 3, REPEAT))
    context = [*SOURCE, SEPARATOR, 10, 30, 51, 52, 53, 54, 12]
    tracker.follow(_array(context))
    assert tracker.realign(_array(context)) is None


def test_a_copy_of_the_latest_tokens_repeats_its_period_past_the_end() -> None:
    tracker = CopyTracker()
    tracker.begin(0)
    tracker.start(Anchor(CopyState(3), 2, REPEAT))
    assert tracker.predict(_array([4, 1, 9, 1, 9]), 5).tokens == [1, 9, 1, 9, 1]


def test_another_context_starts_the_tracker_afresh() -> None:
    tracker, _ = _tracker_copying([10, 11])
    tracker.follow(_array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]))
    assert tracker.state is None


def test_the_drafter_proposes_a_learned_rename_and_realigns_after_the_first() -> None:
    drafter = NgramDrafter(32, 3)
    prompt = [*SOURCE, SEPARATOR, 10, 11, 12]  # the reply has begun copying the source
    drafter.begin(prompt[:-3])
    draft = drafter.propose(prompt, 4)
    assert draft.tokens == [13, 20, 14, 15]
    drafter.accept(1)  # the target wrote 13, then the new name
    context = [*prompt, 13, 30]
    assert drafter.propose(context, 4).tokens == []  # "12 13 30" never occurred: nothing to copy yet
    context.append(14)
    draft = drafter.propose(context, 4)
    assert draft.tokens == [15, 30, 16, 17]  # realigned after the old name, the rename applied
