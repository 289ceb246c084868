"""A model's tokenizer facts, read from its GGUF header for the compatibility rules."""

from __future__ import annotations

from pathlib import Path
from typing import SupportsInt

from app.core.pairing.compatibility import CompatibilityReport, VocabInfo, check_pair
from app.engine.gguf.header import GGUFHeader, read_header


def _optional_int(value: SupportsInt | None) -> int | None:
    return None if value is None else int(value)


def _optional_bool(value: object) -> bool | None:
    return None if value is None else bool(value)


def vocab_info(header: GGUFHeader) -> VocabInfo:
    """The tokenizer fields of ``header`` (absent keys become ``None``)."""
    tokens = header.get("tokenizer.ggml.tokens") or []
    return VocabInfo(
        tokenizer_model=str(header.get("tokenizer.ggml.model", "unknown")),
        tokens=tokens,
        bos_id=_optional_int(header.get("tokenizer.ggml.bos_token_id")),
        eos_id=_optional_int(header.get("tokenizer.ggml.eos_token_id")),
        add_bos=_optional_bool(header.get("tokenizer.ggml.add_bos_token")),
        add_eos=_optional_bool(header.get("tokenizer.ggml.add_eos_token")),
        pre_tokenizer=header.get("tokenizer.ggml.pre"),
    )


def check_files(target: str | Path | GGUFHeader, draft: str | Path | GGUFHeader) -> CompatibilityReport:
    """Compatibility of two GGUF files, from their headers alone."""
    t = target if isinstance(target, GGUFHeader) else read_header(target)
    d = draft if isinstance(draft, GGUFHeader) else read_header(draft)
    return check_pair(vocab_info(t), vocab_info(d))
