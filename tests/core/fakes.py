"""Hand-built language models for the pure core's unit tests.

A :class:`BigramLM` predicts the next token from the previous one through a
fixed logits table, and keeps a real list of cached tokens, so the decoder's
cache bookkeeping is checked as strictly as with llama.cpp.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from app.core.decoding.model_port import Outputs


class BigramLM:
    """Logits for position i+1 are ``table[token_i]``; token ``eog`` ends generation."""

    def __init__(self, table: npt.ArrayLike, n_ctx: int = 512, eog: int | None = None) -> None:
        self.table = np.asarray(table, dtype=np.float32)
        self._n_ctx = n_ctx
        self._tokens: list[int] = []
        self.eog = eog
        self.decode_calls: list[tuple[int, str]] = []

    @property
    def n_vocab(self) -> int:
        return int(self.table.shape[1])

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    @property
    def kv_tokens(self) -> Sequence[int]:
        return self._tokens

    def decode(self, tokens: Sequence[int], outputs: Outputs) -> npt.NDArray[np.float32]:
        if len(self._tokens) + len(tokens) > self._n_ctx:
            raise RuntimeError("context overflow")
        self.decode_calls.append((len(tokens), outputs))
        self._tokens.extend(int(t) for t in tokens)
        rows = self.table[np.asarray(tokens, dtype=np.int64)]
        if outputs == "all":
            return rows
        if outputs == "last":
            return rows[-1:]
        return rows[:0]

    def truncate(self, n_keep: int) -> None:
        del self._tokens[n_keep:]

    def token_bytes(self, token: int) -> bytes:
        return f"<{token}>".encode()

    def is_eog(self, token: int) -> bool:
        return token == self.eog


def random_table(n_vocab: int, seed: int, scale: float = 3.0) -> npt.NDArray[np.float32]:
    """A random bigram logits table."""
    return (np.random.default_rng(seed).normal(size=(n_vocab, n_vocab)) * scale).astype(np.float32)
