"""One reader for a model's architecture numbers: the model list and the memory estimate agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.engine.gguf.architecture import read_architecture
from app.engine.gguf.header import read_header
from app.engine.gguf.inspection import inspect_header
from app.engine.memory.shape import shape_from_header
from tests.engine.model_files import write_gguf


def _both(path: Path) -> tuple[int, int]:
    header = read_header(path)
    return inspect_header(header).n_vocab, shape_from_header(header).n_vocab


def test_a_declared_vocab_size_wins_over_the_token_list_as_in_llama_cpp(tmp_path: Path) -> None:
    # Converters pad the embedding beyond the tokenizer; llama.cpp reads {arch}.vocab_size first.
    path = write_gguf(tmp_path / "padded.gguf", extra_uint32={"{arch}.vocab_size": 80})
    assert read_architecture(read_header(path)).n_vocab == 80
    assert _both(path) == (80, 80)


def test_the_token_list_counts_when_no_size_is_declared(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "plain.gguf", tokens=[f"t{i}" for i in range(50)])
    assert _both(path) == (50, 50)


def test_the_embedding_width_is_the_last_resort(tmp_path: Path) -> None:
    tensors = {"token_embd.weight": np.zeros((40, 8), dtype=np.float32)}
    path = write_gguf(tmp_path / "no-tokens.gguf", tokens=[], tensors=tensors)
    assert _both(path) == (40, 40)


def test_head_fallbacks_follow_llama_cpp(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "heads.gguf", n_embd=16, n_head=4, n_head_kv=None)
    arch = read_architecture(read_header(path))
    assert (arch.n_head_kv, arch.head_dim, arch.head_dim_v) == (4, 4, 4)  # no grouping; width / heads
    path = write_gguf(
        tmp_path / "mla.gguf",
        n_embd=16,
        n_head=4,
        extra_uint32={"{arch}.attention.key_length": 6, "{arch}.attention.value_length": 5},
    )
    arch = read_architecture(read_header(path))
    assert (arch.n_head_kv, arch.head_dim, arch.head_dim_v) == (1, 6, 5)


def test_inspection_and_shape_agree_on_a_real_model(small_pair: tuple[Path, Path]) -> None:
    header = read_header(small_pair[0])
    info, shape = inspect_header(header), shape_from_header(header)
    got = (info.n_layers, info.n_embd, info.n_head, info.n_head_kv, info.head_dim, info.n_vocab, info.n_ctx_train)
    want = (shape.n_layers, shape.n_embd, shape.n_head, shape.n_head_kv, shape.head_dim, shape.n_vocab)
    assert got == (*want, shape.n_ctx_train)
    assert shape.n_vocab == 49_152
