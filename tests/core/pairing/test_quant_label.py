"""Quantisation labels from general.file_type, with the dominant tensor type only when the key is absent."""

from __future__ import annotations

from app.core.pairing.quant_label import quant_label

NAMES = {0: "ALL_F32", 1: "MOSTLY_F16", 2: "MOSTLY_Q4_0", 15: "MOSTLY_Q4_K_M"}


def test_file_type_names_lose_llama_cpp_prefixes() -> None:
    assert quant_label(15, NAMES, "Q6_K") == "Q4_K_M"  # the key wins over the tensors' majority
    assert quant_label(0, NAMES, "") == "F32"
    assert quant_label(2, NAMES, "") == "Q4_0"


def test_unknown_numbers_are_named_by_number_and_absent_keys_by_the_tensors() -> None:
    assert quant_label(999, NAMES, "Q4_0") == "type999"
    assert quant_label(None, NAMES, "Q5_K") == "Q5_K"
    assert quant_label(None, NAMES, "") == "unknown"
