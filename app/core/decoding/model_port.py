"""The narrow interface the decoder needs from a language model.

The llama.cpp adapter in ``app.engine`` implements it for real models; core
unit tests implement it with hand-written logits. Keeping it this small is
what lets the whole algorithm live in pure Python and numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

Outputs = Literal["none", "last", "all"]


class CausalLM(Protocol):
    """A model with a KV cache that holds exactly ``kv_tokens``."""

    @property
    def n_vocab(self) -> int:
        """Number of logits per row."""
        ...

    @property
    def n_ctx(self) -> int:
        """How many positions the KV cache can hold."""
        ...

    @property
    def kv_tokens(self) -> Sequence[int]:
        """The tokens whose keys and values are in the cache, in position order."""
        ...

    def decode(self, tokens: Sequence[int], outputs: Outputs) -> npt.NDArray[np.float32]:
        """Append ``tokens`` to the cache and return logits rows.

        ``"all"`` returns one row per token, ``"last"`` one row, ``"none"`` an
        empty array. The rows may be a view that the next call overwrites.
        """
        ...

    def truncate(self, n_keep: int) -> None:
        """Drop every cached position from ``n_keep`` on."""
        ...

    def token_bytes(self, token: int) -> bytes:
        """The raw bytes of a token's text piece (may be part of a UTF-8 character)."""
        ...

    def is_eog(self, token: int) -> bool:
        """True for end-of-generation tokens (EOS, EOT, <|im_end|>, ...)."""
        ...


def common_prefix_length(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest shared prefix of two token sequences."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    left = np.asarray(a[:n], dtype=np.int64)
    right = np.asarray(b[:n], dtype=np.int64)
    differ = np.flatnonzero(left != right)
    return int(differ[0]) if differ.size else n


def sync_cache(model: CausalLM, tokens: Sequence[int]) -> None:
    """Make the cache hold exactly ``tokens``, reusing the longest cached prefix."""
    keep = common_prefix_length(model.kv_tokens, tokens)
    if keep < len(model.kv_tokens):
        model.truncate(keep)
    if keep < len(tokens):
        model.decode(tokens[keep:], "none")
