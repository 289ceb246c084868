"""A model's own MTP (NextN) layers as a small causal language model that drafts for it, in-process.

llama.cpp runs the NextN block in a context of its own (``LLAMA_CONTEXT_TYPE_MTP``
on the model loaded with ``load_mtp``). Each token it reads is paired with the
target's last hidden state at the position before (``h_nextn``), as llama.cpp's
own ``draft-mtp`` does: the target's rows come from
:class:`~app.engine.llama.hidden_rows.HiddenRows`, and while drafting past
what the target has read, the block's own output state of the previous
position takes their place. :class:`MtpHead` implements the
:class:`~app.core.decoding.model_port.CausalLM` port, so the draft-model
drafter (:class:`~app.core.decoding.drafters.ModelDrafter`) drafts with it
unchanged and keeps each proposal's full ``q_draft`` for rejection sampling.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import llama_cpp
import numpy as np
import numpy.typing as npt
from llama_cpp import llama_cpp_ext

from app.core.decoding.model_port import Outputs
from app.core.errors import TandemError
from app.engine.llama.model import DecodeError, LlamaModel


class MtpHead:
    """The target's NextN block with its own KV cache, reading the target's hidden states; a ``CausalLM``."""

    def __init__(self, target: LlamaModel, n_batch: int = 512) -> None:
        self.target = target
        self._hidden = target.keep_hidden_rows()
        self.n_embd = self._hidden.n_embd
        params = llama_cpp.llama_model_default_params()
        params.load_mtp = True
        params.n_gpu_layers = 0
        # A second handle on the same file: the binding's Llama cannot ask for the MTP layers. The weights are
        # mapped, so the trunk's pages are shared with the target's.
        self._model = llama_cpp.llama_model_load_from_file(str(target.path).encode(), params)
        if not self._model:
            raise TandemError(f"llama.cpp could not load the MTP layers of {target.path.name}")
        if int(llama_cpp.llama_model_n_layer_nextn(self._model)) < 1:
            llama_cpp.llama_model_free(self._model)
            raise TandemError(f"{target.path.name} has no MTP layers")
        self._n_ctx = target.n_ctx
        self._n_batch = min(n_batch, self._n_ctx)
        cparams = llama_cpp.llama_context_default_params()
        cparams.n_ctx = self._n_ctx
        cparams.n_batch = self._n_batch
        cparams.n_ubatch = self._n_batch
        cparams.n_threads = cparams.n_threads_batch = target.threads
        cparams.ctx_type = llama_cpp.LLAMA_CONTEXT_TYPE_MTP
        self._ctx = llama_cpp.llama_init_from_model(self._model, cparams)
        if not self._ctx:
            llama_cpp.llama_model_free(self._model)
            raise TandemError(f"llama.cpp could not make an MTP context for {target.path.name}")
        llama_cpp_ext.llama_set_embeddings_nextn(self._ctx, True, True)  # the block's own state, per output row
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        # llama_batch_init allocates either token ids or embeddings; this batch carries both, so the ids live here.
        self._batch = llama_cpp.llama_batch_init(self._n_batch, self.n_embd, 1)
        self._batch_ids = (llama_cpp.llama_token * self._n_batch)()
        self._batch.token = ctypes.cast(self._batch_ids, ctypes.POINTER(llama_cpp.llama_token))
        for i in range(self._n_batch):
            self._batch.n_seq_id[i] = 1
            self._batch.seq_id[i][0] = 0
        self._embd = np.ctypeslib.as_array(self._batch.embd, shape=(self._n_batch, self.n_embd))
        self._tokens: list[int] = []
        self._own_state: tuple[int, npt.NDArray[np.float32]] | None = None  # (position, the block's output state)
        self._closed = False

    @property
    def n_vocab(self) -> int:
        """Logits per row (the target's vocabulary: the block shares its head)."""
        return self.target.n_vocab

    @property
    def n_ctx(self) -> int:
        """KV cache capacity in positions."""
        return self._n_ctx

    @property
    def kv_tokens(self) -> Sequence[int]:
        """Tokens in the block's KV cache."""
        return self._tokens

    def _state_before(self, position: int) -> npt.NDArray[np.float32]:
        """The hidden state the token at ``position`` is paired with: the target's, else the block's own, else zeros."""
        before = position - 1
        if before < 0:
            return np.zeros(self.n_embd, dtype=np.float32)
        target_tokens = self.target.kv_tokens
        row = self._hidden.row(before)
        if row is not None and before < len(target_tokens) and target_tokens[before] == self._tokens[before]:
            return row
        if self._own_state is not None and self._own_state[0] == before:
            return self._own_state[1]
        return np.zeros(self.n_embd, dtype=np.float32)

    def decode(self, tokens: Sequence[int], outputs: Outputs) -> npt.NDArray[np.float32]:
        """Append ``tokens``, each paired with the state before it; logits for the rows asked for."""
        n = len(tokens)
        if n == 0:
            return np.empty((0, self.n_vocab), dtype=np.float32)
        if outputs == "all" and n > self._n_batch:
            raise ValueError(f"cannot return logits for {n} rows in one batch of {self._n_batch}")
        for start in range(0, n, self._n_batch):
            chunk = tokens[start : start + self._n_batch]
            m = len(chunk)
            n_past = len(self._tokens)
            self._tokens.extend(int(t) for t in chunk)  # before the states are read: a pairing checks them
            for i in range(m):
                self._batch_ids[i] = int(chunk[i])
                self._batch.pos[i] = n_past + i
                self._batch.logits[i] = 1 if outputs == "all" or i == m - 1 else 0
                self._embd[i] = self._state_before(n_past + i)
            self._batch.n_tokens = m
            rc = llama_cpp.llama_decode(self._ctx, self._batch)
            if rc != 0:
                del self._tokens[n_past:]
                llama_cpp.llama_memory_seq_rm(self._memory, 0, n_past, -1)
                raise DecodeError(f"llama_decode of the MTP layers failed with code {rc}")
            state = llama_cpp_ext.llama_get_embeddings_nextn_ith(self._ctx, m - 1)
            last = n_past + m - 1
            self._own_state = (last, np.ctypeslib.as_array(state, shape=(self.n_embd,)).copy()) if state else None
        if outputs == "none":
            return np.empty((0, self.n_vocab), dtype=np.float32)
        if outputs == "all":
            return np.ctypeslib.as_array(llama_cpp.llama_get_logits(self._ctx), shape=(n, self.n_vocab))
        return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(self._ctx, -1), shape=(1, self.n_vocab))

    def truncate(self, n_keep: int) -> None:
        """Drop the cached positions from ``n_keep`` on."""
        if n_keep >= len(self._tokens):
            return
        llama_cpp.llama_memory_seq_rm(self._memory, 0, n_keep, -1)
        del self._tokens[n_keep:]
        if self._own_state is not None and self._own_state[0] >= n_keep:
            self._own_state = None

    def set_threads(self, n_threads: int) -> None:
        """Threads for the block's decodes (the target's own count: drafting and verifying alternate)."""
        llama_cpp.llama_set_n_threads(self._ctx, n_threads, n_threads)

    def token_bytes(self, token: int) -> bytes:
        """The target's piece for ``token``."""
        return self.target.token_bytes(token)

    def is_eog(self, token: int) -> bool:
        """The target's end-of-generation tokens."""
        return self.target.is_eog(token)

    def close(self) -> None:
        """Free the batch, the MTP context and the second model handle (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._batch.token = None  # these ids are Python's: llama_batch_free must not free() them
        llama_cpp.llama_batch_free(self._batch)
        llama_cpp.llama_free(self._ctx)
        llama_cpp.llama_model_free(self._model)
