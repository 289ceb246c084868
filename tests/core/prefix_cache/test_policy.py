"""Which entry a prompt loads, what is worth saving, and least-recently-used eviction, on hand-built entries."""

from __future__ import annotations

from app.core.prefix_cache.policy import (
    MIN_GAIN_TOKENS,
    MIN_PREFIX_TOKENS,
    IndexEntry,
    choose_entry,
    superseded,
    to_evict,
    worth_saving,
)

DOC = tuple(range(10_000, 10_000 + 2000))


def _entry(key: str, tokens: tuple[int, ...], size: int = 100, last_used: float = 0.0, model: str = "m") -> IndexEntry:
    return IndexEntry(key, model, tokens, size, last_used)


def test_the_longest_shared_prefix_of_the_same_model_is_chosen() -> None:
    short = _entry("short", DOC[:800])
    long = _entry("long", (*DOC[:1500], 1, 2, 3))  # shares 1500 tokens, then parts from the prompt
    other = _entry("other", DOC, model="x")  # shares everything, but belongs to another model
    prompt = (*DOC[:1800], 7, 7)
    choice = choose_entry([short, long, other], "m", prompt, live=0)
    assert choice is not None and choice.entry.key == "long" and choice.n_shared == 1500


def test_nothing_is_loaded_for_a_short_prefix_or_a_small_gain() -> None:
    entry = _entry("e", DOC[:1000])
    assert choose_entry([entry], "m", DOC[: MIN_PREFIX_TOKENS - 1], live=0) is None
    assert choose_entry([entry], "m", DOC, live=1000 - MIN_GAIN_TOKENS + 1) is None
    assert choose_entry([entry], "m", DOC, live=1000 - MIN_GAIN_TOKENS) is not None
    assert choose_entry([], "m", DOC, live=0) is None
    assert choose_entry([entry], "other model", DOC, live=0) is None


def test_saving_needs_a_long_prefix_that_no_entry_covers() -> None:
    assert not worth_saving([], "m", DOC[: MIN_PREFIX_TOKENS - 1])
    assert worth_saving([], "m", DOC[:MIN_PREFIX_TOKENS])
    covered = _entry("c", DOC[:1000])
    assert not worth_saving([covered], "m", DOC[: 1000 + MIN_GAIN_TOKENS])  # only a few new tokens
    assert worth_saving([covered], "m", DOC[: 1000 + MIN_GAIN_TOKENS + 1])
    assert worth_saving([_entry("x", DOC[:1000], model="x")], "m", DOC[:1000])


def test_entries_that_begin_the_new_tokens_are_superseded() -> None:
    older = _entry("older", DOC[:900])
    sibling = _entry("sibling", (*DOC[:900], 5, 5))  # parts from the new tokens: kept
    longer = _entry("longer", DOC)  # the new tokens are a prefix of it, not the other way: kept
    other = _entry("other", DOC[:900], model="x")
    gone = superseded([older, sibling, longer, other], "m", DOC[:1200])
    assert [e.key for e in gone] == ["older"]


def test_the_least_recently_used_go_first_until_the_budget_holds() -> None:
    entries = [
        _entry("new", DOC, size=400, last_used=30.0),
        _entry("old", DOC, size=300, last_used=10.0),
        _entry("mid", DOC, size=300, last_used=20.0),
    ]
    assert to_evict(entries, 1000) == []
    assert [e.key for e in to_evict(entries, 999)] == ["old"]
    assert [e.key for e in to_evict(entries, 400)] == ["old", "mid"]
    assert [e.key for e in to_evict(entries, 0)] == ["old", "mid", "new"]
