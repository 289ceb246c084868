"""Structured output: a grammar's token mask applied to both ``q_draft`` and ``p_target``.

A :class:`TokenMask` says which token ids the grammar allows next, advances
on each token consumed and rolls back the last ``n`` of them. The decoder
masks every row it verifies by the grammar state after the accepted prefix
and the draft tokens before it; the model drafter drafts from masked
``q_draft`` rows, advancing the mask as it drafts and undoing that before it
returns; a lookup's proposals are cut at the first token the mask refuses.
Rejection sampling on masked ``p_target`` against masked ``q_draft`` then
emits tokens distributed exactly as the masked target (the guarantee of
:mod:`app.core.decoding.verification` holds for any pair of distributions),
and after a rejection the mask is rolled back to the last accepted token.

Masking happens on the logits, before the sampling transform: top-k, top-p
and min-p choose among the tokens the grammar allows, as llama.cpp does, so
a grammar never leaves an empty support after the cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.sampling import LogitsWarper

BoolArray = npt.NDArray[np.bool_]


class ConstraintError(ValueError):
    """The grammar allows no next token (its state is broken): a one-line reason for the user."""


class TokenMask(Protocol):
    """A grammar's state over token ids, with undo."""

    def allowed(self) -> BoolArray:
        """One flag per token id for the next position (ids past its end are refused)."""
        ...

    def consume(self, token: int) -> None:
        """Advance past ``token`` (which :meth:`allowed` allowed)."""
        ...

    def rollback(self, n_tokens: int) -> None:
        """Undo the last ``n_tokens`` consumed."""
        ...


def masked_row(logits: npt.NDArray[np.float32], allowed: BoolArray) -> npt.NDArray[np.float32]:
    """A copy of ``logits`` with every refused id at -inf (the logits view is never written)."""
    n = logits.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    m = min(n, allowed.shape[0])
    keep[:m] = allowed[:m]
    if not keep.any():
        raise ConstraintError("the output grammar allows no next token")
    row = np.full(n, -np.inf, dtype=np.float32)
    row[keep] = logits[keep]
    return row


def warp_masked(
    warper: LogitsWarper, logits: npt.NDArray[np.float32], history: Sequence[int], allowed: BoolArray
) -> TokenDistribution:
    """The sampling transform of ``logits`` restricted to the ``allowed`` ids (renormalised)."""
    dist = warper.warp(masked_row(logits, allowed), history)
    # The transform may keep refused ids with probability 0 (no top-k cut): drop them.
    positive = dist.probs > 0.0
    if bool(positive.all()):
        return dist
    probs = dist.probs[positive]
    return TokenDistribution(dist.ids[positive], probs / probs.sum())


def allowed_prefix(mask: TokenMask, tokens: Sequence[int]) -> int:
    """How many of ``tokens`` the grammar accepts in a row from its state; the state is left unchanged."""
    n = 0
    for token in tokens:
        flags = mask.allowed()
        if not (0 <= token < flags.shape[0] and flags[token]):
            break
        mask.consume(token)
        n += 1
    mask.rollback(n)
    return n


def advance_through(mask: TokenMask, tokens: Sequence[int]) -> tuple[int, list[BoolArray]]:
    """Consume the prefix of ``tokens`` the grammar allows; returns its length and the mask at each position.

    The masks are one more than the length: row i is the state after
    ``tokens[:i]``, the last one the position after the kept prefix (the
    bonus, or the resample at the first refused token).
    """
    masks: list[BoolArray] = []
    n = 0
    for token in tokens:
        flags = mask.allowed()
        masks.append(flags)
        if not (0 <= token < flags.shape[0] and flags[token]):
            return n, masks
        mask.consume(token)
        n += 1
    masks.append(mask.allowed())
    return n, masks
