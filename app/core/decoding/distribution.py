"""Sparse next-token distributions shared by the target (p) and the draft (q).

A distribution keeps only the tokens that survived the sampling transform
(top-k, top-p, min-p, temperature), so most operations cost O(support)
instead of O(vocabulary). At temperature 0 the support is a single token.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class TokenDistribution:
    """Probabilities over a subset of token ids; every other id has probability 0.

    ``ids`` are unique and ``probs`` sum to 1. The order is not meaningful.
    """

    ids: IntArray
    probs: FloatArray

    @classmethod
    def one_hot(cls, token: int) -> TokenDistribution:
        """The degenerate distribution of greedy decoding and of n-gram drafts."""
        return cls(np.array([token], dtype=np.int64), np.ones(1, dtype=np.float64))

    @classmethod
    def from_dense(cls, probs: npt.ArrayLike) -> TokenDistribution:
        """Build from a dense vector over the vocabulary (used by tests and tools)."""
        dense = np.asarray(probs, dtype=np.float64)
        if dense.ndim != 1 or np.any(dense < 0):
            raise ValueError("a dense distribution is a 1-D array of non-negative numbers")
        total = dense.sum()
        if not total > 0:
            raise ValueError("a distribution needs some positive mass")
        ids = np.flatnonzero(dense).astype(np.int64)
        return cls(ids, dense[ids] / total)

    def to_dense(self, n_vocab: int) -> FloatArray:
        """A dense copy over ``n_vocab`` ids (tests and tools only; allocates)."""
        dense = np.zeros(n_vocab, dtype=np.float64)
        dense[self.ids] = self.probs
        return dense

    def prob_of(self, token: int) -> float:
        """Probability of ``token``; 0 when it is outside the support."""
        hit = np.flatnonzero(self.ids == token)
        return float(self.probs[hit[0]]) if hit.size else 0.0

    def argmax(self) -> int:
        """The most likely token (ties go to the first in storage order)."""
        return int(self.ids[int(np.argmax(self.probs))])

    def sample(self, rng: np.random.Generator) -> int:
        """Draw one token by inverse-CDF sampling."""
        if self.ids.size == 1:
            return int(self.ids[0])
        cdf = np.cumsum(self.probs)
        index = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
        return int(self.ids[min(index, self.ids.size - 1)])
