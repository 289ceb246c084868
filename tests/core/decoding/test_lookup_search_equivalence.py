"""The lookup's fast searches against plain loops on random token sequences, and the context's array copy.

The per-step searches (``find_match``, the realignment after an edit) were
rewritten as shifted comparisons for speed; these tests pin them to what a
direct reading of their definitions gives, including ties and edges.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.core.decoding.copy_tracking import _longest_tail
from app.core.decoding.lookup import ContextArray, find_match


def _tail_by_loops(window: list[int], tokens: list[int], longest: int) -> tuple[int, int] | None:
    for m in range(min(longest, len(window)), 0, -1):
        tail = tokens[len(tokens) - m :]
        for start in range(len(window) - m + 1):
            if window[start : start + m] == tail:
                return m, start + m - 1
    return None


def _match_by_loops(tokens: list[int], min_n: int, max_extent: int) -> tuple[int, int] | None:
    size = len(tokens)
    tail = tokens[size - min_n :]
    best: tuple[int, int] | None = None
    for i in range(size - min_n):
        if tokens[i : i + min_n] != tail:
            continue
        start, length = i + min_n, min_n
        while length < max_extent and start - length - 1 >= 0:
            if tokens[start - length - 1] != tokens[size - length - 1]:
                break
            length += 1
        if best is None or length >= best[1]:
            best = (start, length)
    return best


@pytest.mark.parametrize("seed", range(60))
def test_longest_tail_equals_the_plain_search(seed: int) -> None:
    rng = np.random.default_rng(seed)
    alphabet = int(rng.integers(2, 6))  # few symbols: many partial matches and ties
    window = rng.integers(0, alphabet, size=int(rng.integers(0, 30))).astype(np.int64)
    tokens = rng.integers(0, alphabet, size=int(rng.integers(1, 20))).astype(np.int64)
    longest = int(rng.integers(0, 10))
    expected = _tail_by_loops(window.tolist(), tokens.tolist(), min(longest, tokens.size))
    assert _longest_tail(window, tokens, min(longest, tokens.size, window.size)) == expected


@pytest.mark.parametrize("seed", range(60))
def test_find_match_equals_the_plain_search(seed: int) -> None:
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, int(rng.integers(2, 5)), size=int(rng.integers(2, 60))).astype(np.int64)
    min_n = int(rng.integers(1, 4))
    max_extent = min_n + int(rng.integers(0, 6))
    found = find_match(tokens, min_n, max_extent)
    expected = _match_by_loops(tokens.tolist(), min_n, max_extent) if tokens.size >= min_n + 1 else None
    assert (None if found is None else (found.start, found.length)) == expected


def test_context_array_follows_appends_and_rebuilds_for_another_context() -> None:
    copy = ContextArray()
    context = list(range(10))
    assert copy.view(context).tolist() == context
    context += list(range(100, 3000))  # past the first buffer: it grows, keeping what it had
    assert copy.view(context).tolist() == context
    other = [7] * 50  # shorter: another context
    assert copy.view(other).tolist() == other
    same_length = [8] * 50  # as long, but its last copied token differs
    assert copy.view(same_length).tolist() == same_length
    copy.clear()
    assert copy.view([1, 2]).tolist() == [1, 2]
