"""GGUF inspection from the header: real model files, files written here, and broken files."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from gguf import LlamaFileType

from app.engine.gguf.header import ModelFileError
from app.engine.models.cache import cached_entry_path
from app.engine.models.library import inspect_model
from tests.engine.model_files import write_gguf
from tests.paths import REPO_ROOT


def test_qwen_coder_15b_facts(demo_pair: tuple[Path, Path], data_dir: Path) -> None:
    target, _ = demo_pair
    start = time.perf_counter()
    info = inspect_model(target)
    elapsed = time.perf_counter() - start
    print(f"\ninspection of {target.name}: {elapsed * 1000:.0f} ms (uncached)")
    assert info.architecture == "qwen2"
    assert info.quant == "Q4_K_M" and info.file_type == 15
    assert info.tensor_types == {"Q4_K": 169, "F32": 141, "Q6_K": 29}
    assert info.file_size == 1_117_320_768
    assert info.n_params == 1_777_088_000  # includes the untied 151936 x 1536 output matrix
    assert 4.5 < info.bits_per_weight < 5.5
    assert (info.n_layers, info.n_embd, info.n_ff) == (28, 1536, 8960)
    assert (info.n_head, info.n_head_kv, info.head_dim) == (12, 2, 128)
    assert info.n_ctx_train == 32768
    assert (info.tokenizer_model, info.pre_tokenizer, info.n_vocab) == ("gpt2", "qwen2", 151_936)
    assert (info.bos_id, info.eos_id, info.add_bos) == (151_643, 151_645, False)
    assert info.has_chat_template
    assert info.basename == "Qwen2.5-Coder" and info.size_label == "1.5B"
    assert elapsed < 10  # header only: the 1.1 GB of weights are never read


def test_smollm2_facts(small_pair: tuple[Path, Path], data_dir: Path) -> None:
    target, draft = small_pair
    info = inspect_model(target)
    assert (info.architecture, info.quant, info.n_vocab) == ("llama", "Q4_1", 49_152)
    assert (info.n_layers, info.n_embd, info.n_head, info.n_head_kv, info.head_dim) == (30, 576, 9, 3, 64)
    assert info.n_ctx_train == 8192
    assert inspect_model(draft).quant == "Q4_0"
    # The converter title-cased the family in the file's own name; shown, it is spelt as its makers spell it.
    assert info.name == "Smollm2 135M 8k Lc100K Mix1 Ep2"
    assert info.display_name == "SmolLM2 135M 8k Lc100K Mix1 Ep2"


def test_written_file_reports_what_was_written(tmp_path: Path, data_dir: Path) -> None:
    path = write_gguf(
        tmp_path / "tiny.gguf",
        n_layers=3,
        n_embd=16,
        n_head=4,
        n_head_kv=2,
        n_ctx=1024,
        bos=7,
        eos=9,
        add_bos=True,
        chat_template=None,
        file_type=LlamaFileType.MOSTLY_F16,
        basename="Tiny",
        tensors={
            "token_embd.weight": np.zeros((64, 16), dtype=np.float16),
            "output_norm.weight": np.ones(16, dtype=np.float32),
        },
    )
    info = inspect_model(path)
    assert info.quant == "F16"
    assert info.tensor_types == {"F16": 1, "F32": 1}
    assert info.n_params == 64 * 16 + 16
    assert (info.n_layers, info.n_embd, info.n_head, info.n_head_kv, info.head_dim) == (3, 16, 4, 2, 4)
    assert (info.n_ctx_train, info.n_vocab, info.bos_id, info.eos_id, info.add_bos) == (1024, 64, 7, 9, True)
    assert not info.has_chat_template
    assert info.basename == "Tiny" and info.gguf_version == 3
    assert info.file_size == path.stat().st_size


def test_quantisation_falls_back_to_the_dominant_tensor_type(tmp_path: Path, data_dir: Path) -> None:
    path = write_gguf(
        tmp_path / "untyped.gguf",
        file_type=None,
        n_head_kv=None,
        tensors={
            "token_embd.weight": np.zeros((64, 32), dtype=np.float16),
            "output_norm.weight": np.ones(8, dtype=np.float32),
        },
    )
    info = inspect_model(path)
    assert info.file_type is None and info.quant == "F16"
    assert info.n_head_kv == info.n_head  # absent KV head count means plain multi-head attention


def test_not_gguf(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "notes.gguf"
    path.write_bytes(b"This is a text file, not a model. " * 10)
    with pytest.raises(ModelFileError, match=r"notes\.gguf is not a GGUF model file \(it starts with b'This'"):
        inspect_model(path)


def test_truncated_download(small_pair: tuple[Path, Path], tmp_path: Path, data_dir: Path) -> None:
    source = small_pair[0]
    path = tmp_path / "half.gguf"
    with source.open("rb") as src:
        path.write_bytes(src.read(20_000_000))  # the header and part of the weights
    with pytest.raises(ModelFileError, match=r"half\.gguf is truncated: its tensors need 98,36.* bytes but the file"):
        inspect_model(path)


def test_truncated_inside_the_header(small_pair: tuple[Path, Path], tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "stub.gguf"
    with small_pair[0].open("rb") as src:
        path.write_bytes(src.read(4096))
    with pytest.raises(ModelFileError, match=r"stub\.gguf is truncated: its header ends early"):
        inspect_model(path)


def test_unsupported_version(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "future.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 99, 0, 0) + bytes(64))
    with pytest.raises(ModelFileError, match=r"future\.gguf is GGUF version 99; Tandem reads versions 2 and 3"):
        inspect_model(path)


def test_missing_and_tiny_files(tmp_path: Path, data_dir: Path) -> None:
    with pytest.raises(ModelFileError, match="model file not found"):
        inspect_model(tmp_path / "absent.gguf")
    (tmp_path / "empty.gguf").write_bytes(b"")
    with pytest.raises(ModelFileError, match=r"empty\.gguf is not a GGUF model file \(only 0 bytes\)"):
        inspect_model(tmp_path / "empty.gguf")


def test_inspection_is_cached_until_the_file_changes(
    demo_pair: tuple[Path, Path], tmp_path: Path, data_dir: Path
) -> None:
    # A real 152k-token header, copied so the test can change the file afterwards.
    path = tmp_path / "draft.gguf"
    os.link(demo_pair[1], path) if _same_device(demo_pair[1], tmp_path) else path.write_bytes(demo_pair[1].read_bytes())
    start = time.perf_counter()
    first = inspect_model(path)
    cold = time.perf_counter() - start
    entry = cached_entry_path(path)
    assert entry.is_file() and str(data_dir) in str(entry)  # the cache lives in the data folder
    start = time.perf_counter()
    assert inspect_model(path) == first
    warm = time.perf_counter() - start
    print(f"\ninspection of a 152k-vocab file: {cold * 1000:.0f} ms cold, {warm * 1000:.2f} ms cached")
    assert warm < cold / 10
    # Replacing the file with a different model invalidates the entry.
    path.unlink()
    write_gguf(path, n_layers=5)
    assert inspect_model(path).n_layers == 5


def test_the_cache_is_shared_between_processes(tmp_path: Path, data_dir: Path) -> None:
    path = write_gguf(tmp_path / "shared.gguf", name="Written Name")
    assert inspect_model(path).name == "Written Name"
    # Mark the cache entry, then ask a fresh process: it must answer from the entry, not the file.
    entry = cached_entry_path(path)
    data = json.loads(entry.read_text())
    data["inspection"]["name"] = "From The Cache"
    entry.write_text(json.dumps(data))
    assert _name_in_fresh_process(path, data_dir) == "From The Cache"
    # A changed modification time means a changed file: the header is read again.
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert _name_in_fresh_process(path, data_dir) == "Written Name"


def _name_in_fresh_process(path: Path, data_dir: Path) -> str:
    code = "import sys; from app.engine.models.library import inspect_model; print(inspect_model(sys.argv[1]).name)"
    result = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "TANDEM_DATA_DIR": str(data_dir)},
        cwd=REPO_ROOT,
        timeout=60,
        check=True,
    )
    return result.stdout.strip()


def _same_device(a: Path, b: Path) -> bool:
    return a.stat().st_dev == b.stat().st_dev


def test_the_quantisation_is_the_files_own_whatever_its_name_says(
    small_pair: tuple[Path, Path], tmp_path: Path, data_dir: Path
) -> None:
    misnamed = tmp_path / "SmolLM2-135M-Instruct-Q8_0.gguf"
    misnamed.symlink_to(small_pair[1])  # a Q4_0 file under a Q8_0 name
    info = inspect_model(misnamed)
    assert info.file_type == int(LlamaFileType.MOSTLY_Q4_0)
    assert info.quant == "Q4_0"
