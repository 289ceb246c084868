"""How a failed llama.cpp load is told: its error log read without taking it from other listeners.

The out-of-memory cases themselves run for real under an address-space limit in
``tests/cli/test_chat_cli.py``; here the log tap is checked on the real SmolLM2
file, and the wording of each error on its own.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import llama_cpp
import pytest

from app.core.errors import ContextSizeError, OutOfMemoryError
from app.engine.llama.model import LlamaModel, LoadOptions
from app.engine.memory.measure import capture_load_log


def current_log_callback() -> int | None:
    callback, user_data = llama_cpp.llama_log_callback(), ctypes.c_void_p()
    llama_cpp.llama_log_get(ctypes.byref(callback), ctypes.byref(user_data))
    return ctypes.cast(callback, ctypes.c_void_p).value


def test_a_load_leaves_the_log_to_whoever_listened_before(small_pair: tuple[Path, Path]) -> None:
    before = current_log_callback()
    with capture_load_log() as log:  # the window records the load log to measure memory
        outer = current_log_callback()
        model = LlamaModel(small_pair[0], LoadOptions(n_ctx=64, n_threads=1))
        assert current_log_callback() == outer  # put back after the load
    model.close()
    assert current_log_callback() == before
    # Every line still reached the outer listener through the load's own tap.
    assert any("CPU KV buffer size" in line for line in log.lines)
    assert any("load_tensors" in line for line in log.lines)


def test_the_out_of_memory_sentence() -> None:
    hint = "close other programs, or choose a smaller model or context size"
    assert str(OutOfMemoryError("loading m.gguf")) == f"out of memory loading m.gguf: {hint}"
    assert str(OutOfMemoryError()) == f"out of memory: {hint}"


@pytest.mark.parametrize(
    ("n_ctx", "out_of_memory", "expected"),
    [
        (4096, True, ": out of memory: close other programs, or lower --ctx, or choose a smaller model"),
        (4096, False, ": most likely out of memory: close other programs, or lower --ctx, or choose a smaller model"),
        (10**8, False, "; the model was trained for 8192: set --ctx to 8192 or less"),
        (10**8, True, ": out of memory; the model was trained for 8192: set --ctx to 8192 or less"),
    ],
)
def test_a_context_that_could_not_be_made(n_ctx: int, out_of_memory: bool, expected: str) -> None:
    error = ContextSizeError("m.gguf", n_ctx, 8192, out_of_memory)
    assert error.worded("--ctx") == f"a context of {n_ctx} tokens could not be created for m.gguf{expected}"
    assert "the context size" in str(error)
