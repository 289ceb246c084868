"""Whether a file offered for download is already in the library, decided from sizes and SHA-256 digests.

A local file can only be the same as a Hub file of the same byte size, so
digests are asked for (through ``digest``, which may hash a multi-gigabyte
file) only for local files of exactly that size. When the Hub gives no
SHA-256, the same file name and size count as the same file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.core.display.wording import QT_TRANSLATE_NOOP, Words


@dataclass(frozen=True, slots=True)
class OfferedFile:
    """A file the Hub lists: its name, exact size and (for LFS files) SHA-256."""

    name: str
    size: int
    sha256: str | None


@dataclass(frozen=True, slots=True)
class LibraryFile:
    """A local file the library knows: the name shown and its size in bytes."""

    name: str
    size: int


def match_on_disk(
    offered: OfferedFile, library: Sequence[LibraryFile], digest: Callable[[int], str | None]
) -> int | None:
    """The index in ``library`` of a file with ``offered``'s content, or ``None``.

    ``digest(i)`` gives library file ``i``'s SHA-256 (``None`` when it cannot be read).
    """
    for index, local in enumerate(library):
        if local.size != offered.size or offered.size <= 0:
            continue
        if offered.sha256 is None:
            if local.name.lower() == offered.name.rsplit("/", 1)[-1].lower():
                return index
            continue
        found = digest(index)
        if found is not None and found.lower() == offered.sha256.lower():
            return index
    return None


def on_disk_words(local_name: str) -> Words:
    """:func:`on_disk_text` as words the window renders in its language."""
    return QT_TRANSLATE_NOOP("PairingReasons", "already on disk as {name}").fill(name=local_name)


def on_disk_text(local_name: str) -> str:
    """What Discover says instead of downloading a file the library already has."""
    return str(on_disk_words(local_name))
