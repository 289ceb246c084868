"""GGUF files written for the model-library tests, with the ``gguf`` package's own writer.

Small files with exactly the metadata a test needs, and copies of a real
model's tokenizer with one token changed. Not a test module: the tests import it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gguf import GGUFWriter, LlamaFileType

from app.engine.gguf.header import read_header


def write_gguf(
    path: Path,
    *,
    arch: str = "llama",
    tokens: list[str] | None = None,
    tokenizer_model: str = "gpt2",
    pre: str | None = "test",
    bos: int | None = 1,
    eos: int | None = 2,
    add_bos: bool | None = False,
    n_layers: int = 2,
    n_embd: int = 8,
    n_head: int = 2,
    n_head_kv: int | None = 1,
    n_ctx: int = 512,
    chat_template: str | None = "{{ messages }}",
    file_type: LlamaFileType | None = LlamaFileType.ALL_F32,
    name: str | None = "Tiny Test",
    basename: str | None = None,
    tensors: dict[str, np.ndarray] | None = None,
    token_types: Any = None,
    merges: list[str] | None = None,
    extra_uint32: dict[str, int] | None = None,
) -> Path:
    """A complete, valid GGUF file with tiny F32 tensors (``extra_uint32``: more keys, ``{arch}`` expanded)."""
    tokens = tokens if tokens is not None else [f"tok{i}" for i in range(64)]
    writer = GGUFWriter(str(path), arch)
    if name:
        writer.add_name(name)
    if basename:
        writer.add_basename(basename)
    if file_type is not None:
        writer.add_file_type(int(file_type))
    writer.add_block_count(n_layers)
    writer.add_context_length(n_ctx)
    writer.add_embedding_length(n_embd)
    writer.add_feed_forward_length(4 * n_embd)
    writer.add_head_count(n_head)
    if n_head_kv is not None:
        writer.add_head_count_kv(n_head_kv)
    writer.add_tokenizer_model(tokenizer_model)
    if pre is not None:
        writer.add_tokenizer_pre(pre)
    writer.add_token_list(tokens)
    if token_types is not None:
        writer.add_token_types([int(t) for t in token_types])
    if merges:
        writer.add_token_merges(merges)
    if bos is not None:
        writer.add_bos_token_id(bos)
    if eos is not None:
        writer.add_eos_token_id(eos)
    if add_bos is not None:
        writer.add_add_bos_token(add_bos)
    if chat_template:
        writer.add_chat_template(chat_template)
    for key, value in (extra_uint32 or {}).items():
        writer.add_uint32(key.format(arch=arch), value)
    if tensors is None:
        tensors = {
            "token_embd.weight": np.zeros((len(tokens), n_embd), dtype=np.float32),
            "output_norm.weight": np.ones(n_embd, dtype=np.float32),
        }
    for tensor_name, data in tensors.items():
        writer.add_tensor(tensor_name, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def copy_tokenizer(
    source: Path,
    path: Path,
    *,
    changes: dict[int, str] | None = None,
    tensors: dict[str, np.ndarray] | None = None,
    chat_template: str | None = "{{ messages }}",
    bos: int | None = None,
    add_bos: bool | None = None,
) -> Path:
    """A small GGUF with ``source``'s tokenizer (tokens, types, merges, BOS/EOS), some tokens rewritten.

    ``bos`` and ``add_bos`` replace the source's when given; ``chat_template`` is written as is.
    """
    header = read_header(source, keep_merges=True)
    tokens = list(header.get("tokenizer.ggml.tokens"))
    for token_id, text in (changes or {}).items():
        tokens[token_id] = text
    return write_gguf(
        path,
        arch=header.architecture,
        tokens=tokens,
        tokenizer_model=header.get("tokenizer.ggml.model"),
        pre=header.get("tokenizer.ggml.pre"),
        bos=header.get("tokenizer.ggml.bos_token_id") if bos is None else bos,
        eos=header.get("tokenizer.ggml.eos_token_id"),
        add_bos=header.get("tokenizer.ggml.add_bos_token") if add_bos is None else add_bos,
        token_types=header.get("tokenizer.ggml.token_type"),
        merges=header.get("tokenizer.ggml.merges"),
        name="Tokenizer copy",
        chat_template=chat_template,
        file_type=None,  # the quantisation then reads from the tensors actually written
        tensors=tensors or {"output_norm.weight": np.ones(8, dtype=np.float32)},
    )
