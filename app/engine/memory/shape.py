"""Build a :class:`~app.core.memory.estimate.ModelShape` from a GGUF file's header.

Only the header is read (no weights), so this is cheap enough to run for
every model the picker shows. The numbers, and their fallbacks for missing
keys, come from :func:`app.engine.gguf.architecture.read_architecture`, the
same reader the model list and ``models inspect`` use.
"""

from __future__ import annotations

from pathlib import Path

from app.core.memory.estimate import ModelShape, TensorBytes
from app.engine.gguf.architecture import read_architecture
from app.engine.gguf.header import GGUFHeader, ModelFileError, read_header


def shape_from_gguf(path: str | Path) -> ModelShape:
    """The memory-relevant sizes of the model in ``path``; :class:`ModelFileError` if unreadable."""
    return shape_from_header(read_header(path))


def shape_from_header(header: GGUFHeader) -> ModelShape:
    """The memory-relevant sizes from an already parsed header."""
    arch = read_architecture(header)
    if not (arch.n_layers and arch.n_embd and arch.n_head):
        raise ModelFileError(
            f"{header.path.name} lacks the layer count, width or head count of a "
            f"{header.architecture!r} model, so its memory cannot be estimated"
        )
    # read_architecture fills the head sizes and KV heads whenever n_embd and n_head are known.
    assert arch.n_head_kv is not None and arch.head_dim is not None and arch.head_dim_v is not None
    return ModelShape(
        n_layers=arch.n_layers,
        n_embd=arch.n_embd,
        n_head=arch.n_head,
        n_head_kv=arch.n_head_kv,
        head_dim=arch.head_dim,
        head_dim_v=arch.head_dim_v,
        n_vocab=arch.n_vocab,
        n_ctx_train=arch.n_ctx_train or 0,
        n_ff=arch.n_ff,
        tensors=tuple(TensorBytes(t.name, t.n_bytes, t.type_name) for t in header.tensors),
        n_params=sum(t.n_elements for t in header.tensors),
        file_size=header.file_size,
        name=header.path.name,
    )
