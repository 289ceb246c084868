"""The prefix cache's folder as someone else may have left it: links, FIFOs, other people's files, loose modes.

No model is loaded: opening the cache scans the folder, ``clear`` and the
limit touch it, and that is where a symlinked folder lost a user's files and a
FIFO hung every command. Entries are written here in the file format with a
made-up model identity (the scan reads headers and tokens, not the payload).
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from app.core.prefix_cache.entry import EntryHeader, build_header, encode_tokens, entry_key
from app.core.prefix_cache.policy import DEFAULT_BUDGET_BYTES
from app.engine.llama.prefix_cache import LIMIT_FILE, SUFFIX, PrefixCache

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX links, FIFOs and modes")
MODEL = "f" * 64  # a model identity: the scan does not check it, only a restore does
TOKENS = tuple(range(600))


def _entry(folder: Path, tokens: tuple[int, ...] = TOKENS) -> Path:
    """A whole entry as Tandem saves one, under its own name."""
    payload = bytes(range(256)) * 8
    path = folder / f"{entry_key(MODEL, tokens)}{SUFFIX}"
    path.write_bytes(build_header(MODEL, tokens, payload).to_bytes() + encode_tokens(tokens) + payload)
    return path


def _within(seconds: float, work: Callable[[], object]) -> None:
    """Run ``work`` aside and fail (not hang) if it has not returned after ``seconds``."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:
            failure.append(exc)

    worker = threading.Thread(target=run, daemon=True)  # a FIFO's blocking open keeps it, never the test
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "hung (a FIFO opened as a file?)"
    if failure:
        raise failure[0]


def test_a_cache_folder_that_is_a_link_is_refused_and_nothing_where_it_points_is_touched(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Case 5: the scan deleted a user's my-notes.tkv where the link pointed, and clear a .part file."""
    elsewhere = tmp_path / "my-documents"
    elsewhere.mkdir()
    notes = elsewhere / "my-notes.tkv"
    notes.write_text("my notes", encoding="utf-8")
    draft = elsewhere / "letter.part"
    draft.write_text("a letter", encoding="utf-8")
    ours = _entry(elsewhere)  # even a file in the cache's own format is not read through the link
    (elsewhere / LIMIT_FILE).write_text('{"budget_bytes": 5}', encoding="utf-8")
    folder = tmp_path / "data" / "prefix-cache"
    folder.parent.mkdir()
    folder.symlink_to(elsewhere)
    with caplog.at_level(logging.WARNING, logger="app.engine.llama.prefix_cache"):
        cache = PrefixCache(folder)
        assert cache.entries == () and cache.budget_bytes == DEFAULT_BUDGET_BYTES
        cache.set_budget(1024)
        cache.clear()
    assert sorted(p.name for p in elsewhere.iterdir()) == sorted([notes.name, draft.name, ours.name, LIMIT_FILE])
    assert notes.read_text(encoding="utf-8") == "my notes" and draft.read_text(encoding="utf-8") == "a letter"
    assert (elsewhere / LIMIT_FILE).read_text(encoding="utf-8") == '{"budget_bytes": 5}'
    assert folder.is_symlink()
    (line,) = {r.getMessage() for r in caplog.records}
    assert str(folder) in line and "symbolic link" in line


def test_only_tandems_own_regular_files_are_read_or_removed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Case 4 and 5 inside a real folder: a FIFO entry hung the scan; a user's file with the suffix was deleted."""
    folder = tmp_path / "prefix-cache"
    folder.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("someone's file", encoding="utf-8")
    notes = folder / "my-notes.tkv"
    notes.write_text("my notes", encoding="utf-8")
    user_part = folder / "download.part"
    user_part.write_text("half a download", encoding="utf-8")
    fifo = folder / f"{'a' * 64}{SUFFIX}"
    os.mkfifo(fifo)
    fifo_part = folder / f"{'b' * 64}{SUFFIX}.part"
    os.mkfifo(fifo_part)
    link = folder / f"{'c' * 64}{SUFFIX}"
    link.symlink_to(outside)
    foreign = folder / f"{'d' * 64}{SUFFIX}"
    foreign.write_text("not an entry at all", encoding="utf-8")
    good = _entry(folder)
    damaged = _entry(folder, tuple(range(700)))
    damaged.write_bytes(damaged.read_bytes()[:-10])  # Tandem's own, cut short: dropped as before
    leftover = folder / f"{'e' * 64}{SUFFIX}.part"  # a crash's temporary file: Tandem's own
    leftover.write_bytes(b"TANDEMKV")
    caches: list[PrefixCache] = []
    with caplog.at_level(logging.WARNING, logger="app.engine.llama.prefix_cache"):
        _within(60, lambda: caches.append(PrefixCache(folder)))
        (cache,) = caches
        assert [e.key for e in cache.entries] == [good.name.removesuffix(SUFFIX)]
        _within(60, cache.clear)
    left = {p.name for p in folder.iterdir()}
    assert left == {notes.name, user_part.name, fifo.name, fifo_part.name, link.name, foreign.name}
    assert outside.read_text(encoding="utf-8") == "someone's file" and link.is_symlink()
    skipped = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
    assert len(skipped) == 3 and all("\n" not in line for line in skipped)
    assert any("is a FIFO" in line for line in skipped) and any("symbolic link" in line for line in skipped)
    assert sum("dropped" in r.getMessage() for r in caplog.records) == 1  # the damaged entry, by its name


@pytest.mark.parametrize("n_tokens", [1 << 40, 1 << 21])
def test_a_header_claiming_more_tokens_than_the_file_holds_is_dropped_unread(tmp_path: Path, n_tokens: int) -> None:
    """Case 7: the scan read as many token bytes as the header claimed (4 TiB: a MemoryError at every start)."""
    folder = tmp_path / "prefix-cache"
    folder.mkdir()
    path = folder / f"{entry_key(MODEL, TOKENS)}{SUFFIX}"
    real = build_header(MODEL, TOKENS, b"payload")
    claim = EntryHeader(MODEL, n_tokens, real.tokens_sha256, real.payload_size, real.payload_sha256)
    path.write_bytes(claim.to_bytes() + encode_tokens(TOKENS) + b"payload")
    cache = PrefixCache(folder)
    assert cache.entries == () and not path.exists()  # Tandem's own header, damaged: dropped


def test_entries_and_the_limit_are_made_private_in_a_folder_others_could_read(tmp_path: Path) -> None:
    """Case 7: an older Tandem's entries were 0644 in a 0755 folder (prompt tokens in the clear)."""
    folder = tmp_path / "prefix-cache"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    entry = _entry(folder)
    os.chmod(entry, 0o644)
    limit = folder / LIMIT_FILE
    limit.write_text('{"budget_bytes": 1048576}', encoding="utf-8")
    os.chmod(limit, 0o644)
    cache = PrefixCache(folder)
    assert len(cache.entries) == 1 and cache.budget_bytes == 1024 * 1024
    cache.set_budget(2 * 1024 * 1024)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert stat.S_IMODE(limit.stat().st_mode) == 0o600


@pytest.mark.parametrize("kind", ["fifo", "device link", "link out", "bomb", "deep"])
def test_a_limit_file_that_is_not_one_is_ignored_in_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    """Case 4 and 7 for limit.json: read only when it is a small regular file, never through a link."""
    folder = tmp_path / "prefix-cache"
    folder.mkdir()
    limit = folder / LIMIT_FILE
    if kind == "fifo":
        os.mkfifo(limit)
    elif kind == "device link":
        limit.symlink_to("/dev/zero")
    elif kind == "link out":
        elsewhere = tmp_path / "settings-of-another-program.json"
        elsewhere.write_text('{"budget_bytes": 5}', encoding="utf-8")
        limit.symlink_to(elsewhere)
    elif kind == "bomb":
        with limit.open("w", encoding="utf-8") as out:  # 2 MB of empty objects: 200 MB once parsed
            out.write('{"budget_bytes": 5, "x": [' + "{}," * 700_000 + "{}]}")
    else:
        limit.write_text('{"budget_bytes": 5, "x": ' + "[" * 100 + "]" * 100 + "}", encoding="utf-8")
    caches: list[PrefixCache] = []
    with caplog.at_level(logging.WARNING, logger="app.engine.llama.prefix_cache"):
        _within(60, lambda: caches.append(PrefixCache(folder)))
    assert caches[0].budget_bytes == DEFAULT_BUDGET_BYTES
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith(f"prefix cache: ignored {limit}: ") and "\n" not in line
