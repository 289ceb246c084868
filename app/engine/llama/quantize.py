"""Re-quantise a GGUF with llama.cpp's own quantiser (``llama_model_quantize``).

Used to make the small test pair (a second SmolLM2 at another precision,
same tokenizer), the F16 memory-bound stand-in for benchmarks, and a cheaper
draft: Q4_0 with a Q4_0 output layer. On a CPU a small draft's cost is
dominated by its output layer (a 152k-row matrix for Qwen), which Q4_K_M
files keep at Q6_K; at Q4_0 the demo pair's 0.5B draft cost 31 % less per
token (issue 17). Whether that pays for its lower acceptance is pre-flight's
question (:mod:`app.engine.bench.preflight`).

Every file is written under a temporary name in the destination's folder and
moved into place only once llama.cpp finished and the result reads as a GGUF,
so a failure or an interrupt leaves nothing half-written under the real name.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import llama_cpp
import llama_cpp._logger as llama_logger

from app.core.errors import TandemError
from app.engine.gguf.header import ModelFileError, read_header
from app.engine.paths import models_dir

# The cheaper draft: every tensor, the output layer included, at Q4_0.
CHEAP_DRAFT_TYPE = "Q4_0"
CHEAP_DRAFT_OUTPUT = "Q4_0"
_CHEAP_SUFFIX = f".requantized-{CHEAP_DRAFT_TYPE}-output-{CHEAP_DRAFT_OUTPUT}.gguf"


def file_type(name: str) -> int:
    """llama.cpp's file type (``LLAMA_FTYPE_MOSTLY_*``) for a name like ``Q4_0`` or ``F16``."""
    value = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{name.upper()}", None)
    if value is None:
        raise TandemError(f"unknown quantisation type {name!r}")
    return int(value)


def tensor_type(name: str) -> int:
    """ggml's tensor type (``GGML_TYPE_*``) for a name like ``Q4_0``."""
    value = getattr(llama_cpp, f"GGML_TYPE_{name.upper()}", None)
    if value is None:
        raise TandemError(f"unknown tensor type {name!r}")
    return int(value)


def requantize(source: Path, destination: Path, ftype_name: str, output_type: str | None = None) -> Path:
    """Write ``source`` re-quantised to ``ftype_name`` (e.g. ``Q8_0``, ``F16``) atomically.

    ``output_type`` sets the output layer's tensor type (llama.cpp otherwise
    keeps it at a higher precision than the rest).
    """
    read_header(source)  # a clear message for a bad input before llama.cpp sees it
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = file_type(ftype_name)
    if output_type is not None:
        params.output_tensor_type = tensor_type(output_type)
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    llama_logger.set_verbose(False)  # the quantiser logs every tensor otherwise
    destination.parent.mkdir(parents=True, exist_ok=True)
    # A unique name beside the destination: os.replace stays atomic, and two makers never share a file.
    # llama.cpp creates it, so it gets the usual permissions (a mkstemp file would stay private to this user).
    partial = destination.with_name(f".{destination.name}.{uuid.uuid4().hex[:8]}.partial")
    try:
        rc = llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(), params)
        if rc != 0 or not partial.is_file() or partial.stat().st_size == 0:
            raise TandemError(f"llama.cpp could not quantise {source.name} to {ftype_name} (code {rc})")
        try:
            read_header(partial)
        except ModelFileError as exc:
            raise TandemError(f"the quantised copy of {source.name} does not read as a GGUF: {exc}") from exc
        os.replace(partial, destination)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return destination


def cheaper_draft_path(draft: Path, folder: Path | None = None) -> Path:
    """Where the cheaper copy of ``draft`` lives: the models folder, named for its source and its types."""
    stem = draft.name[: -len(".gguf")] if draft.name.lower().endswith(".gguf") else draft.name
    return (folder or models_dir()) / f"{stem}{_CHEAP_SUFFIX}"


def is_cheaper_draft(path: Path) -> bool:
    """Whether ``path`` is a cheaper draft this module made."""
    return path.name.endswith(_CHEAP_SUFFIX)


def make_cheaper_draft(draft: Path, folder: Path | None = None) -> Path:
    """The Q4_0 copy of ``draft`` with a Q4_0 output layer, made once and then reused."""
    if is_cheaper_draft(draft):
        raise TandemError(f"{draft.name} already is a cheaper draft")
    destination = cheaper_draft_path(draft, folder)
    if destination.is_file():
        try:
            read_header(destination)
            return destination
        except ModelFileError:
            pass  # not ours any more (damaged, replaced): make it again
    return requantize(draft, destination, CHEAP_DRAFT_TYPE, CHEAP_DRAFT_OUTPUT)
