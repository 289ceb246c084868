"""The target's last hidden state per position, kept for a drafter that reads it (the model's own MTP layers).

llama.cpp hands out the state a NextN/MTP block continues from (``h_nextn``,
the final norm's output) for every row of a decode once
``llama_set_embeddings_nextn`` is on. :class:`HiddenRows` copies those rows
by position after each decode of the target and forgets the positions the
target drops, so a row is only ever read for the tokens it was computed from.
"""

from __future__ import annotations

import llama_cpp
import numpy as np
import numpy.typing as npt
from llama_cpp import llama_cpp_ext


class HiddenRows:
    """``n_ctx`` rows of ``n_embd`` floats, each known only while the target holds the position it was computed at.

    Positions the target holds without having decoded them here (cached before
    the rows were kept, or loaded from the prefix cache) have no row.
    """

    def __init__(self, ctx: llama_cpp.llama_context_p, n_ctx: int, n_embd: int) -> None:
        self._ctx = ctx
        self.n_embd = n_embd
        self._rows = np.zeros((n_ctx, n_embd), dtype=np.float32)
        self._known = np.zeros(n_ctx, dtype=bool)
        llama_cpp_ext.llama_set_embeddings_nextn(ctx, True, False)  # every row, not only those with logits

    def record(self, first: int, count: int) -> None:
        """Copy the rows of the decode that just put ``count`` tokens at positions ``first`` on."""
        pointer = llama_cpp_ext.llama_get_embeddings_nextn(self._ctx)
        if not pointer:
            return
        self._rows[first : first + count] = np.ctypeslib.as_array(pointer, shape=(count, self.n_embd))
        self._known[first : first + count] = True

    def cut(self, n_keep: int) -> None:
        """The target dropped the positions from ``n_keep`` on."""
        self._known[max(0, n_keep) :] = False

    def row(self, position: int) -> npt.NDArray[np.float32] | None:
        """The state after the token at ``position``, or None when the target has not computed it."""
        return self._rows[position] if 0 <= position < len(self._known) and self._known[position] else None
