"""The on-disk match: same size first, then SHA-256; name and size only when the Hub gives no digest."""

from __future__ import annotations

from app.core.pairing.on_disk import LibraryFile, OfferedFile, match_on_disk, on_disk_text

LIBRARY = [LibraryFile("a.gguf", 100), LibraryFile("renamed.gguf", 200), LibraryFile("other.gguf", 200)]
DIGESTS = {0: "aa", 1: "BB", 2: "cc"}


def test_a_renamed_copy_is_found_by_its_digest_and_only_same_size_files_are_hashed() -> None:
    asked: list[int] = []

    def digest(i: int) -> str | None:
        asked.append(i)
        return DIGESTS[i]

    assert match_on_disk(OfferedFile("org/x/model-Q4_0.gguf", 200, "bb"), LIBRARY, digest) == 1
    assert asked == [1]


def test_same_size_with_another_digest_is_not_on_disk() -> None:
    assert match_on_disk(OfferedFile("a.gguf", 100, "ff"), LIBRARY, DIGESTS.get) is None


def test_without_a_digest_name_and_size_decide() -> None:
    assert match_on_disk(OfferedFile("sub/A.gguf", 100, None), LIBRARY, DIGESTS.get) == 0
    assert match_on_disk(OfferedFile("a.gguf", 101, None), LIBRARY, DIGESTS.get) is None
    assert match_on_disk(OfferedFile("b.gguf", 100, None), LIBRARY, DIGESTS.get) is None


def test_an_unreadable_local_file_never_matches() -> None:
    assert match_on_disk(OfferedFile("a.gguf", 100, "aa"), LIBRARY, lambda _i: None) is None
    assert on_disk_text("renamed.gguf") == "already on disk as renamed.gguf"
