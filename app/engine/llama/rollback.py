"""Cutting back a context whose state is partly recurrent (gated delta-net, Mamba layers), as a KV cache is cut.

llama.cpp cannot remove the last positions of a recurrent state: a partial
``llama_memory_seq_rm`` refuses, and the next decode at the cut position
fails. Speculative decoding cuts the target back after every rejected draft,
so :class:`RecurrentRollback` saves the recurrent part of the state
(``LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY``) before each decode. A cut back to a
position at or after the saved one restores it and removes the attention
cache from there; the tokens between are then read again by the model
before its next decode. A cut further back clears the sequence.
"""

from __future__ import annotations

import ctypes

import llama_cpp

_PARTIAL = llama_cpp.LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY


def has_recurrent_state(model: llama_cpp.llama_model_p) -> bool:
    """Whether the model keeps a recurrent state that a partial cut cannot shorten."""
    return bool(llama_cpp.llama_model_is_recurrent(model)) or bool(llama_cpp.llama_model_is_hybrid(model))


class RecurrentRollback:
    """The recurrent part of sequence 0's state at one position, to cut the context back to it."""

    def __init__(self, ctx: llama_cpp.llama_context_p, memory: llama_cpp.llama_memory_t) -> None:
        self._ctx = ctx
        self._memory = memory
        self._saved = bytearray()
        self._saved_at = -1  # the position count the saved state is for (-1: none saved)
        self._size = 0  # bytes of ``_saved`` in use

    def save(self, n_past: int) -> None:
        """Keep the recurrent state as it stands with ``n_past`` positions read."""
        if n_past == 0:
            self._saved_at = 0  # an empty sequence needs no bytes: clearing it is allowed
            return
        size = int(llama_cpp.llama_state_seq_get_size_ext(self._ctx, 0, _PARTIAL))
        if len(self._saved) < size:
            self._saved = bytearray(size)
        buffer = (ctypes.c_uint8 * size).from_buffer(self._saved)
        written = int(llama_cpp.llama_state_seq_get_data_ext(self._ctx, buffer, size, 0, _PARTIAL))
        del buffer
        self._saved_at = n_past if written > 0 else -1
        self._size = written

    def cut(self, n_keep: int) -> int:
        """Remove positions from ``n_keep`` on; returns how many positions the context holds now (at most ``n_keep``).

        The positions between the returned count and ``n_keep`` are to be read again.
        """
        saved_at = self._saved_at
        if 0 < saved_at <= n_keep:
            buffer = (ctypes.c_uint8 * self._size).from_buffer(self._saved)
            read = int(llama_cpp.llama_state_seq_set_data_ext(self._ctx, buffer, self._size, 0, _PARTIAL))
            del buffer
            if read > 0 and llama_cpp.llama_memory_seq_rm(self._memory, 0, saved_at, -1):
                return saved_at
        llama_cpp.llama_memory_seq_rm(self._memory, 0, -1, -1)  # the whole sequence: always allowed
        self._saved_at = 0
        return 0

    def forget(self) -> None:
        """The context was replaced (a loaded state): what was saved no longer belongs to it."""
        self._saved_at = -1
