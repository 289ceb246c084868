"""Moving the settings and the cache out of the data folder (where older versions kept them) to their own folders.

:func:`relocate` runs at each start (:func:`app.cli.main`) and does its work
once: a stamp in the config folder (:data:`STAMP_NAME`) says the move was
made, and from then on a start costs one ``stat`` (where nothing is in the
old places, nothing is written and a start costs a few). Each file or folder of
:data:`MOVES` is moved by rename where both places are on one file system,
else copied whole to a temporary name beside its new place and renamed into
it (a copy cut short never looks finished) before the old one is removed.
Nothing is lost on the way:

* a new place that is already taken (a half-finished earlier move, or a
  newer Tandem run before) keeps both: the old one stays where it was and a
  note says so;
* an old place that cannot be changed (a read-only folder) is copied and left
  as it was, with a note;
* a failed copy leaves the old one as it was, with a note, and writes no
  stamp: the next start tries again.

Where the two places are one (``TANDEM_DATA_DIR``'s ``cache`` subfolder was
the old place too, or Windows, whose config folder is the data folder), there
is nothing to do. A file lock in the config folder keeps two starting
processes (the window and ``serve``) from moving the same files at once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import filelock

from app.engine import paths

_LOG = logging.getLogger(__name__)

STAMP_NAME = ".moved-from-data-folder"
LOCK_NAME = ".moving.lock"
# Another process moving gigabytes of prefix cache may hold the lock a while; past this, start without moving.
LOCK_WAIT_S = 60.0


@dataclass(frozen=True, slots=True)
class Move:
    """One file or folder older versions kept in the data folder, and the folder it belongs in now."""

    name: str  # its name in the data folder
    new_folder: Callable[[], Path]  # paths.config_dir or paths.cache_dir
    new_name: str  # its name there


# Every name Tandem kept in the data folder that is a setting or a cache; the rest (chats, models,
# the model library, keys) is data and stays.
MOVES: tuple[Move, ...] = (
    Move(name="settings.ini", new_folder=paths.config_dir, new_name="settings.ini"),
    Move(name="prefix-cache", new_folder=paths.cache_dir, new_name="prefix-cache"),
    Move(name="controller-profiles.json", new_folder=paths.cache_dir, new_name="controller-profiles.json"),
    Move(name="catalog-sizes.json", new_folder=paths.cache_dir, new_name="catalog-sizes.json"),
    Move(name="cache/models", new_folder=paths.cache_dir, new_name="models"),
    Move(name="cache/remote", new_folder=paths.cache_dir, new_name="remote"),
    Move(name="cache/sha256.json", new_folder=paths.cache_dir, new_name="sha256.json"),
)


@dataclass(slots=True)
class Relocation:
    """What one start's :func:`relocate` did: the moves made and what a person should know (one line each)."""

    moved: list[tuple[Path, Path]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stamped: bool = False  # the stamp was there or was written: later starts do nothing
    failed: bool = False  # something could not be copied: no stamp, the next start tries again


def relocate(data: Path | None = None) -> Relocation:
    """Move what :data:`MOVES` names from ``data`` (the data folder) to the config and cache folders, once.

    The notes are the caller's to show (the command line prints them on stderr).
    """
    data = paths.data_dir() if data is None else data
    config = paths.config_dir()
    report = Relocation()
    stamp = config / STAMP_NAME
    if stamp.is_file():
        report.stamped = True
        return report
    if not _pending(data):  # a new installation, or a portable folder already in order: nothing to write
        return report
    try:
        with filelock.FileLock(config / LOCK_NAME, timeout=LOCK_WAIT_S):
            if stamp.is_file():  # another process finished while this one waited
                report.stamped = True
                return report
            for old, new in _pending(data):
                _move_one(old, new, report)
            old_cache = data / "cache"
            if not _same_place(old_cache, paths.cache_dir()):
                with contextlib.suppress(OSError):  # the old cache folder, once emptied (never when anything is left)
                    old_cache.rmdir()
            if not report.failed:
                stamp.write_text("settings and cache moved out of the data folder\n", encoding="utf-8")
                report.stamped = True
    except filelock.Timeout:
        report.notes.append(f"another Tandem is moving files into {config}; this one starts without waiting for it")
    except OSError as exc:  # the config folder cannot be written: the next start tries again
        report.notes.append(f"could not finish moving the settings and cache out of {data}: {exc.strerror or exc}")
    for old, new in report.moved:
        _LOG.info("moved %s to %s", old, new)
    return report


def _pending(data: Path) -> list[tuple[Path, Path]]:
    """The old and new places of what is still in the data folder and belongs elsewhere."""
    places = [(data / move.name, move.new_folder() / move.new_name) for move in MOVES]
    return [(old, new) for old, new in places if (old.exists() or old.is_symlink()) and not _same_place(old, new)]


def _same_place(old: Path, new: Path) -> bool:
    """True when both name one file or folder (a portable data folder, a case-blind file system, Windows)."""
    with contextlib.suppress(OSError):
        if new.exists() or new.is_symlink():
            return os.path.samefile(old, new) if not old.is_symlink() else old.absolute() == new.absolute()
    return os.path.normcase(os.path.abspath(old)) == os.path.normcase(os.path.abspath(new))


def _move_one(old: Path, new: Path, report: Relocation) -> None:
    """Move ``old`` to ``new`` as the module docstring says; what happened goes into ``report``."""
    if new.exists() or new.is_symlink():
        report.notes.append(f"{old} and {new} both exist; kept both, Tandem uses {new}; the other is yours to remove")
        return
    try:
        new.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.rename(old, new)
    except OSError:
        pass  # another file system or a read-only old folder: copy instead
    else:
        report.moved.append((old, new))
        return
    try:
        _copy_into_place(old, new)
    except OSError as exc:
        report.notes.append(f"could not move {old} to {new} ({exc.strerror or exc}); left it where it was")
        report.failed = True
        return
    try:
        # Renamed aside first: a folder that cannot be changed refuses this at once, before any of it is removed.
        aside = old.with_name(f".{old.name}.moved-{os.getpid()}")
        os.rename(old, aside)
    except OSError:
        report.notes.append(f"copied {old} to {new}; the old copy cannot be removed (read-only?), remove it by hand")
    else:
        _remove(aside)
    report.moved.append((old, new))


def _remove(path: Path) -> None:
    """Delete a file, link or folder; what cannot be deleted stays (it was copied already)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def _copy_into_place(old: Path, new: Path) -> None:
    """A whole copy of ``old`` at ``new``, made under a temporary name beside it and renamed: never a partial ``new``.

    The copy is made writable by this user: a read-only old folder must not
    give a cache Tandem cannot write to.
    """
    for left in new.parent.glob(f".{new.name}.moving-*"):  # a start killed while copying (the lock is held)
        _remove(left)
    partial = new.with_name(f".{new.name}.moving-{os.getpid()}")
    try:
        if old.is_dir() and not old.is_symlink():
            shutil.copytree(old, partial, symlinks=True)
            for folder, _, files in os.walk(partial):
                os.chmod(folder, os.stat(folder).st_mode | 0o700)
                for name in files:
                    file = os.path.join(folder, name)
                    if not os.path.islink(file):
                        os.chmod(file, os.stat(file).st_mode | 0o600)
        else:
            shutil.copy2(old, partial, follow_symlinks=False)
            if not partial.is_symlink():
                os.chmod(partial, partial.stat().st_mode | 0o600)
        os.rename(partial, new)
    except OSError:
        _remove(partial)
        raise
