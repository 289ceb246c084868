"""Byte sizes for people: the one formatter every window, report and message uses.

Binary units throughout (KiB, MiB, GiB, TiB), as system monitors and
llama.cpp's own load log print them, so the size of a model file in the
library and the weights segment of the memory meter read the same.
"""

from __future__ import annotations

from app.core.display.wording import QT_TRANSLATE_NOOP, Words

KIB = 2**10
MIB = 2**20
GIB = 2**30
TIB = 2**40

_UNITS = (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB))


def format_bytes(n: float) -> str:
    """``1.04 GiB``, ``469 MiB``, ``12 KiB``, ``512 B``: two decimals from GiB up, whole numbers below."""
    for unit, size in _UNITS:
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}" if size >= GIB else f"{n / size:.0f} {unit}"
    return f"{n:.0f} B"


def format_rate(bytes_per_second: float) -> str:
    """A transfer speed: ``12.3 MiB/s``, one decimal so a slow download still shows movement."""
    for unit, size in _UNITS:
        if abs(bytes_per_second) >= size:
            return f"{bytes_per_second / size:.1f} {unit}/s"
    return f"{bytes_per_second:.0f} B/s"


# The same sizes as words the window renders in its language ("1,04 GiB" in German): numbers kept as numbers.
_SIZE_WORDS = (
    (TIB, QT_TRANSLATE_NOOP("MemorySizes", "{size:.2f} TiB")),
    (GIB, QT_TRANSLATE_NOOP("MemorySizes", "{size:.2f} GiB")),
    (MIB, QT_TRANSLATE_NOOP("MemorySizes", "{size:.0f} MiB")),
    (KIB, QT_TRANSLATE_NOOP("MemorySizes", "{size:.0f} KiB")),
)
_RATE_WORDS = (
    (TIB, QT_TRANSLATE_NOOP("MemorySizes", "{rate:.1f} TiB/s")),
    (GIB, QT_TRANSLATE_NOOP("MemorySizes", "{rate:.1f} GiB/s")),
    (MIB, QT_TRANSLATE_NOOP("MemorySizes", "{rate:.1f} MiB/s")),
    (KIB, QT_TRANSLATE_NOOP("MemorySizes", "{rate:.1f} KiB/s")),
)


def bytes_words(n: float) -> Words:
    """:func:`format_bytes` as :class:`Words`: ``str()`` is the same text, the window localises the number."""
    for size, phrase in _SIZE_WORDS:
        if abs(n) >= size:
            return phrase.fill(size=n / size)
    return QT_TRANSLATE_NOOP("MemorySizes", "{size:.0f} B").fill(size=n)


def rate_words(bytes_per_second: float) -> Words:
    """:func:`format_rate` as :class:`Words`."""
    for size, phrase in _RATE_WORDS:
        if abs(bytes_per_second) >= size:
            return phrase.fill(rate=bytes_per_second / size)
    return QT_TRANSLATE_NOOP("MemorySizes", "{rate:.0f} B/s").fill(rate=bytes_per_second)
