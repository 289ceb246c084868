"""The byte-size formatter shared by the GUI, the CLI and the memory verdict."""

from __future__ import annotations

from app.core.display.units import GIB, KIB, MIB, format_bytes, format_rate


def test_each_unit_and_its_precision() -> None:
    assert format_bytes(512) == "512 B"
    assert format_bytes(12 * KIB) == "12 KiB"
    assert format_bytes(491_400_064) == "469 MiB"
    assert format_bytes(1_117_320_768) == "1.04 GiB"
    assert format_bytes(3 * 2**40) == "3.00 TiB"


def test_boundaries_belong_to_the_larger_unit() -> None:
    assert format_bytes(KIB - 1) == "1023 B"
    assert format_bytes(MIB) == "1 MiB"
    assert format_bytes(GIB) == "1.00 GiB"


def test_negative_sizes_keep_their_sign() -> None:
    # Headroom below zero is how a "does not fit" verdict reads.
    assert format_bytes(-2 * GIB) == "-2.00 GiB"


def test_rates() -> None:
    assert format_rate(0) == "0 B/s"
    assert format_rate(12.34 * MIB) == "12.3 MiB/s"
