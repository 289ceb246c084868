"""The export writer on real files: never through a link, never over a device or folder, a file only when asked."""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from app.core.errors import TandemError
from app.engine import safe_files
from app.engine.safe_files import (
    Refusal,
    Unreadable,
    UnreadableFileError,
    UnsafeTargetError,
    make_private,
    read_regular_bytes,
    tighten,
    write_text_safely,
)

posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX links, FIFOs and modes")


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


def test_a_new_file_is_written_whole_and_private(tmp_path: Path) -> None:
    target = tmp_path / "chat.md"
    assert write_text_safely(target, "# Colours 🎨\n") == len("# Colours 🎨\n".encode())
    assert target.read_text(encoding="utf-8") == "# Colours 🎨\n"
    if os.name != "nt":
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert _leftovers(tmp_path) == []


def test_an_existing_file_needs_overwrite_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "chat.md"
    target.write_text("old")
    os.chmod(target, 0o644)
    with pytest.raises(UnsafeTargetError) as refused:
        write_text_safely(target, "new")
    assert refused.value.refusal is Refusal.EXISTS and target.read_text() == "old"
    write_text_safely(target, "new", overwrite=True)
    assert target.read_text() == "new" and _leftovers(tmp_path) == []
    if os.name != "nt":
        assert stat.S_IMODE(target.stat().st_mode) == 0o644


@posix_only
@pytest.mark.parametrize("overwrite", [False, True])
def test_a_symlink_is_never_replaced_nor_followed(tmp_path: Path, overwrite: bool) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "export.md"
    link.symlink_to(victim)
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "nowhere")
    for path in (link, dangling):
        with pytest.raises(UnsafeTargetError, match="symbolic link") as refused:
            write_text_safely(path, "attacker text", overwrite=overwrite)
        assert refused.value.refusal is Refusal.SYMLINK and path.is_symlink()
    assert victim.read_text() == "precious" and not (tmp_path / "nowhere").exists()
    assert _leftovers(tmp_path) == []


@posix_only
@pytest.mark.parametrize("overwrite", [False, True])
def test_folders_devices_and_fifos_are_refused(tmp_path: Path, overwrite: bool) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    fifo = tmp_path / "a-fifo"
    os.mkfifo(fifo)
    cases = {folder: "a folder", fifo: "a FIFO", Path("/dev/null"): "a device"}
    for path, what in cases.items():
        before = os.lstat(path)
        with pytest.raises(UnsafeTargetError, match=what) as refused:
            write_text_safely(path, "x", overwrite=overwrite)
        assert refused.value.refusal is Refusal.NOT_A_FILE
        after = os.lstat(path)
        assert (after.st_ino, after.st_mode, after.st_rdev) == (before.st_ino, before.st_mode, before.st_rdev)
    assert _leftovers(tmp_path) == []


def test_a_write_that_cannot_be_made_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(TandemError, match="cannot write") as failed:
        write_text_safely(tmp_path / "no-such-folder" / "chat.md", "x")
    assert "\n" not in str(failed.value) and not isinstance(failed.value, UnsafeTargetError)


@posix_only
def test_private_files_are_created_0600_and_looser_ones_tightened(tmp_path: Path) -> None:
    new = tmp_path / "new.ini"
    make_private(new)
    assert new.read_bytes() == b"" and stat.S_IMODE(new.stat().st_mode) == 0o600
    old = tmp_path / "old.ini"
    old.write_text("kept")
    os.chmod(old, 0o664)
    make_private(old)
    assert old.read_text() == "kept" and stat.S_IMODE(old.stat().st_mode) == 0o600
    folder = tmp_path / "open-folder"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    tighten(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    victim = tmp_path / "victim"
    victim.write_text("x")
    os.chmod(victim, 0o644)
    (tmp_path / "link").symlink_to(victim)
    tighten(tmp_path / "link")  # a link is left alone: what it points to is not ours to change through it
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644


# -- read_regular_bytes ------------------------------------------------------------------


def _read_in_thread(path: Path, max_bytes: int, **options: bool) -> bytes | BaseException:
    """What ``read_regular_bytes`` gives or raises, from a thread so that a hang fails the test instead."""
    result: list[bytes | BaseException] = []

    def read() -> None:
        try:
            result.append(read_regular_bytes(path, max_bytes, **options))
        except BaseException as exc:
            result.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), f"reading {path} hung"
    return result[0]


def test_a_regular_file_is_read_whole_up_to_its_cap(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"ten bytes!")
    assert read_regular_bytes(notes, 10) == b"ten bytes!"
    refused = _read_in_thread(notes, 9)
    assert isinstance(refused, UnreadableFileError) and refused.reason is Unreadable.TOO_BIG
    assert "notes.txt" in str(refused) and "\n" not in str(refused)


def test_a_sparse_file_claiming_gigabytes_is_refused_from_its_size(tmp_path: Path) -> None:
    huge = tmp_path / "huge.bin"
    with huge.open("wb") as handle:
        handle.truncate(10 * 1024**3)  # sparse: no disk used
    refused = _read_in_thread(huge, 1_000_000)
    assert isinstance(refused, UnreadableFileError) and refused.reason is Unreadable.TOO_BIG


@posix_only
def test_a_fifo_a_device_a_socket_and_a_folder_are_never_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    server = socket.socket(socket.AF_UNIX)
    sock = tmp_path / "sock"
    server.bind(str(sock))
    zero_link = tmp_path / "zero-link"
    zero_link.symlink_to("/dev/zero")
    try:
        for path, what in (
            (fifo, "a FIFO"),
            (Path("/dev/zero"), "a device"),
            (zero_link, "a device"),
            (sock, "a socket"),
            (tmp_path, "a folder"),
        ):
            refused = _read_in_thread(path, 1_000_000)
            assert isinstance(refused, UnreadableFileError), path
            assert refused.reason is Unreadable.NOT_A_FILE and what in str(refused) and str(path) in str(refused)
    finally:
        server.close()


@posix_only
def test_links_are_refused_when_not_to_be_followed(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("{}")
    link = tmp_path / "limit.json"
    link.symlink_to(real)
    assert read_regular_bytes(link, 100) == b"{}"
    refused = _read_in_thread(link, 100, follow_links=False)
    assert isinstance(refused, UnreadableFileError) and refused.reason is Unreadable.SYMLINK
    missing = _read_in_thread(tmp_path / "gone.json", 100)
    assert isinstance(missing, UnreadableFileError) and missing.reason is Unreadable.MISSING


@posix_only
def test_a_fifo_swapped_in_after_the_check_is_refused_from_the_open_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "notes.txt"
    os.mkfifo(fifo)
    looked_at = os.stat(Path(__file__))  # the check sees a regular file; the open finds the FIFO
    monkeypatch.setattr(safe_files.os, "stat", lambda path: looked_at)
    refused = _read_in_thread(fifo, 10_000_000)
    assert isinstance(refused, UnreadableFileError) and refused.reason is Unreadable.NOT_A_FILE
