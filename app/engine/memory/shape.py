"""Build a :class:`~app.core.memory.estimate.ModelShape` from a GGUF file's header.

Only the header is read (no weights), so this is cheap enough to run for
every model the picker shows. Missing metadata falls back the way llama.cpp
does: ``head_count_kv`` defaults to ``head_count``, the head size to
``embedding_length / head_count``, the vocabulary size to the token list.
"""

from __future__ import annotations

from pathlib import Path

from app.core.memory.estimate import ModelShape, TensorBytes
from app.engine.gguf.header import GGUFHeader, ModelFileError, read_header


def shape_from_gguf(path: str | Path) -> ModelShape:
    """The memory-relevant sizes of the model in ``path``; :class:`ModelFileError` if unreadable."""
    return shape_from_header(read_header(path))


def shape_from_header(header: GGUFHeader) -> ModelShape:
    """The memory-relevant sizes from an already parsed header."""
    n_layers = _int(header.arch_value("block_count"))
    n_embd = _int(header.arch_value("embedding_length"))
    n_head = _int(_first(header.arch_value("attention.head_count")))
    if not (n_layers and n_embd and n_head):
        raise ModelFileError(
            f"{header.path.name} lacks the layer count, width or head count of a "
            f"{header.architecture!r} model, so its memory cannot be estimated"
        )
    n_head_kv = _int(_first(header.arch_value("attention.head_count_kv"))) or n_head
    head_dim = _int(header.arch_value("attention.key_length")) or n_embd // n_head
    head_dim_v = _int(header.arch_value("attention.value_length")) or head_dim
    n_vocab = _int(header.arch_value("vocab_size")) or len(header.get("tokenizer.ggml.tokens", ()))
    if not n_vocab:
        embedding = next((t for t in header.tensors if t.name == "token_embd.weight"), None)
        n_vocab = int(embedding.shape[-1]) if embedding is not None and embedding.shape else 0
    return ModelShape(
        n_layers=n_layers,
        n_embd=n_embd,
        n_head=n_head,
        n_head_kv=n_head_kv,
        head_dim=head_dim,
        head_dim_v=head_dim_v,
        n_vocab=n_vocab,
        n_ctx_train=_int(header.arch_value("context_length")),
        n_ff=_int(_first(header.arch_value("feed_forward_length"))) or None,
        tensors=tuple(TensorBytes(t.name, t.n_bytes, t.type_name) for t in header.tensors),
        n_params=sum(t.n_elements for t in header.tensors),
        file_size=header.file_size,
        name=header.path.name,
    )


def _first(value: object) -> object:
    """Per-layer arrays (some architectures vary heads per layer): the largest entry."""
    if hasattr(value, "tolist"):
        items = list(value.tolist())
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        return value
    return max(items) if items else None


def _int(value: object) -> int:
    try:
        return int(value)  # type: ignore[call-overload]  # any metadata value: what int() rejects is caught below
    except (TypeError, ValueError):
        return 0
