"""Re-quantise a GGUF with llama.cpp's own quantiser.

Used to make the small test pair (a second SmolLM2 at another precision,
same tokenizer) and the F16 memory-bound stand-in for benchmarks.
"""

from __future__ import annotations

import os
from pathlib import Path

import llama_cpp
import llama_cpp._logger as llama_logger

from app.core.errors import TandemError
from app.engine.gguf.header import read_header


def requantize(source: Path, destination: Path, ftype_name: str) -> Path:
    """Write ``source`` re-quantised to ``ftype_name`` (e.g. ``Q8_0``, ``F16``) atomically."""
    read_header(source)  # a clear message for a bad input before llama.cpp sees it
    ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{ftype_name.upper()}", None)
    if ftype is None:
        raise TandemError(f"unknown quantisation type {ftype_name!r}")
    llama_logger.set_verbose(False)  # the quantiser logs every tensor otherwise
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    partial = destination.with_name(destination.name + ".partial")
    rc = llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(), params)
    if rc != 0 or not partial.exists():
        partial.unlink(missing_ok=True)
        raise TandemError(f"llama.cpp could not quantise {source.name} to {ftype_name} (code {rc})")
    os.replace(partial, destination)
    return destination
