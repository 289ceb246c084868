"""The memory verdict, its advice and the auto offload line as words: English unchanged, sizes localisable."""

from __future__ import annotations

from app.core.display.units import GIB, MIB, bytes_words, format_bytes, format_rate, rate_words
from app.core.memory.estimate import Device
from app.core.memory.offload import OffloadPlan
from app.core.memory.verdict import DeviceVerdict, MemoryVerdict


def _comma(value: int | float, spec: str) -> str:
    """A reader who writes decimal commas."""
    return format(value, spec).replace(".", ",")


def test_sizes_as_words_print_as_format_bytes() -> None:
    for n in (0, 512, 12 * 1024, 469 * MIB, 1.04 * GIB, 3 * 2**40):
        assert str(bytes_words(n)) == format_bytes(n)
    for rate in (0, 512, 12.3 * MIB):
        assert str(rate_words(rate)) == format_rate(rate)
    assert bytes_words(1.5 * GIB).render(lambda _c, s: s, _comma) == "1,50 GiB"


def test_the_verdict_line_reads_as_before_and_renames_devices_for_the_window() -> None:
    verdict = MemoryVerdict(
        (
            DeviceVerdict(Device.CPU, "fits", int(0.5 * GIB), 8 * GIB, int(7.5 * GIB)),
            DeviceVerdict(Device.GPU, "does_not_fit", 2 * GIB, None, None),
        )
    )
    assert verdict.message == "cpu: 512 MiB of 8.00 GiB (fits); gpu: 2.00 GiB needed, no budget known"
    window = verdict.message_words({"cpu": "RAM", "gpu": "GPU"}).render(lambda _c, s: s, _comma)
    assert window == "RAM: 512 MiB of 8,00 GiB (fits); GPU: 2,00 GiB needed, no budget known"


def test_the_auto_offload_line_reads_as_before() -> None:
    plan = OffloadPlan(20, 31, 31, 31, 3 * GIB, 4 * GIB)
    assert plan.describe() == "auto: 20 of 31 target layers, 31 of 31 draft layers on the GPU"
    alone = OffloadPlan(20, 31, 0, 0, 3 * GIB, 4 * GIB)
    assert alone.describe() == "auto: 20 of 31 target layers on the GPU"
