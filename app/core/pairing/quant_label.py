"""The quantisation label shown for a model, from its GGUF metadata alone (never from its file name).

``general.file_type`` is a llama.cpp file-type number; the caller passes the
names of those numbers (the ``gguf`` package's ``LlamaFileType``), so this
module needs no GGUF library. Files written without the key are labelled by
the tensor type holding the most bytes, which the caller measured.
"""

from __future__ import annotations

from collections.abc import Mapping

_PREFIXES = ("MOSTLY_", "ALL_")  # llama.cpp's enum spelling: "MOSTLY_Q4_K_M" is shown as "Q4_K_M"


def quant_label(file_type: int | None, file_type_names: Mapping[int, str], dominant_type: str) -> str:
    """``15`` -> ``"Q4_K_M"``; an unknown number -> ``"type<N>"``; no file type -> ``dominant_type``."""
    if file_type is None:
        return dominant_type or "unknown"
    name = file_type_names.get(file_type)
    if name is None:
        return f"type{file_type}"
    for prefix in _PREFIXES:
        name = name.removeprefix(prefix)
    return name
