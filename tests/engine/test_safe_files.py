"""The export writer on real files: never through a link, never over a device or folder, a file only when asked."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from app.core.errors import TandemError
from app.engine.safe_files import Refusal, UnsafeTargetError, make_private, tighten, write_text_safely

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
