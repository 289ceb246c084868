"""The call mask: free text outside calls, a call's grammar from its opener on, rolled back through call boundaries."""

from __future__ import annotations

import random

import numpy as np

from app.core.decoding.call_mask import CallMask
from app.core.decoding.constraint import BoolArray

N_VOCAB = 12
OPENER = 9
BODY = (5, 6, 7)  # the only call this grammar allows: 5 6 7 (7 is its closer)


class ScriptGrammar:
    """A call grammar that allows exactly ``BODY`` (then only token 0, standing for end of generation)."""

    def __init__(self) -> None:
        self.done: list[int] = []

    def allowed(self) -> BoolArray:
        flags = np.zeros(N_VOCAB, dtype=np.bool_)
        flags[BODY[len(self.done)] if len(self.done) < len(BODY) else 0] = True
        return flags

    def consume(self, token: int) -> None:
        assert self.allowed()[token]
        self.done.append(token)

    def rollback(self, n_tokens: int) -> None:
        del self.done[len(self.done) - n_tokens :]

    @property
    def accepting(self) -> bool:
        return len(self.done) >= len(BODY)


def _mask(closes: bool = True) -> CallMask:
    return CallMask(N_VOCAB, frozenset({OPENER}), ScriptGrammar, closes)


def test_text_is_free_and_a_call_is_held_from_its_opener_to_its_close() -> None:
    mask = _mask()
    assert mask.allowed().all()
    for token in (1, 2, OPENER):
        mask.consume(token)
    assert mask.inside and list(np.flatnonzero(mask.allowed())) == [5]
    for token in BODY:
        mask.consume(token)
    assert not mask.inside and mask.allowed().all()  # free again after the closer
    mask.consume(OPENER)
    assert mask.calls_opened == 2 and list(np.flatnonzero(mask.allowed())) == [5]


def test_a_call_without_a_closer_holds_the_rest_of_the_reply() -> None:
    mask = _mask(closes=False)
    for token in (OPENER, *BODY):
        mask.consume(token)
    assert mask.inside and list(np.flatnonzero(mask.allowed())) == [0]


def test_a_steered_reply_starts_inside_its_call() -> None:
    inside = ScriptGrammar()
    inside.consume(5)
    mask = CallMask(N_VOCAB, frozenset({OPENER}), ScriptGrammar, True, inside)
    assert mask.inside and list(np.flatnonzero(mask.allowed())) == [6]


def _replayed(tokens: list[int]) -> CallMask:
    mask = _mask()
    for token in tokens:
        mask.consume(token)
    return mask


def test_the_mask_after_any_rollback_is_the_mask_of_the_tokens_kept() -> None:
    # Speculation stays exact only if the mask depends on the kept tokens alone, whatever was drafted and undone.
    rng = random.Random(7)
    mask, kept = _mask(), []
    for _ in range(400):
        if kept and rng.random() < 0.3:
            n = rng.randint(1, len(kept))
            mask.rollback(n)
            del kept[len(kept) - n :]
        else:
            allowed = np.flatnonzero(mask.allowed())
            token = int(rng.choice([OPENER, *allowed.tolist()]) if mask.allowed()[OPENER] else rng.choice(allowed))
            mask.consume(token)
            kept.append(token)
        fresh = _replayed(kept)
        assert (mask.inside, mask.calls_opened) == (fresh.inside, fresh.calls_opened)
        assert np.array_equal(mask.allowed(), fresh.allowed()), kept
