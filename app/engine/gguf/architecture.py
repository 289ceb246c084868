"""A model's architecture numbers, read from its GGUF header in one place with llama.cpp's fallbacks.

The model list, ``models inspect`` and the memory estimate all need the layer
count, widths, head counts, vocabulary size and trained context. Reading
them twice let the two answers drift (the vocabulary came from different
keys); :func:`read_architecture` is now the only reader. Missing keys fall
back the way llama.cpp's loader does:

* ``head_count_kv`` absent means no grouping: as many KV heads as heads;
* ``key_length`` absent means ``embedding_length / head_count``, and
  ``value_length`` absent means ``key_length``;
* the vocabulary size is ``{arch}.vocab_size`` when stated, else the length of
  ``tokenizer.ggml.tokens`` (llama.cpp's ``get_key(VOCAB_SIZE) ||
  get_arr_n(TOKENIZER_LIST)``), else the width of the token embedding tensor.

Per-layer arrays (architectures whose head counts vary by layer) count as
their largest entry, which is what sizes the KV cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gguf import Keys

from app.engine.gguf.header import GGUFHeader


@dataclass(frozen=True, slots=True)
class Architecture:
    """The numbers that shape a model; ``None`` where the header does not say and no fallback applies."""

    n_layers: int | None
    n_embd: int | None
    n_ff: int | None
    n_head: int | None
    n_head_kv: int | None
    head_dim: int | None
    head_dim_v: int | None
    n_vocab: int  # 0 when neither key, token list nor embedding tensor says
    n_ctx_train: int | None


def read_architecture(header: GGUFHeader) -> Architecture:
    """The architecture numbers of the model whose header this is."""

    def archmetadata_int(template: str) -> int | None:
        return metadata_int(header.get(template.format(arch=header.architecture)))

    n_embd = archmetadata_int(Keys.LLM.EMBEDDING_LENGTH)
    n_head = archmetadata_int(Keys.Attention.HEAD_COUNT)
    head_dim = archmetadata_int(Keys.Attention.KEY_LENGTH)
    if head_dim is None and n_embd and n_head:
        head_dim = n_embd // n_head
    return Architecture(
        n_layers=archmetadata_int(Keys.LLM.BLOCK_COUNT),
        n_embd=n_embd,
        n_ff=archmetadata_int(Keys.LLM.FEED_FORWARD_LENGTH),
        n_head=n_head,
        n_head_kv=archmetadata_int(Keys.Attention.HEAD_COUNT_KV) or n_head,
        head_dim=head_dim,
        head_dim_v=archmetadata_int(Keys.Attention.VALUE_LENGTH) or head_dim,
        n_vocab=_vocab_size(header, archmetadata_int(Keys.LLM.VOCAB_SIZE)),
        n_ctx_train=archmetadata_int(Keys.LLM.CONTEXT_LENGTH),
    )


def _vocab_size(header: GGUFHeader, declared: int | None) -> int:
    if declared:
        return declared
    tokens = header.get(Keys.Tokenizer.LIST)
    if tokens is not None and len(tokens):
        return len(tokens)
    embedding = next((t for t in header.tensors if t.name == "token_embd.weight"), None)
    return int(embedding.shape[-1]) if embedding is not None and embedding.shape else 0


def metadata_int(value: Any) -> int | None:
    """An int from a scalar or, for per-layer arrays, their maximum; ``None`` when absent or not a number."""
    if value is None:
        return None
    if isinstance(value, np.ndarray | list | tuple):
        return int(max(value)) if len(value) else None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
