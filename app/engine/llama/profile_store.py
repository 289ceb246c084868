"""What the adaptive controller learned about a pair on this machine, kept on disk across restarts.

A loaded pair's :class:`~app.core.adaptive.profile.PairProfile` (verify and
draft costs, typical acceptance, confidence calibration) took its first reply
to learn: on a 2-core CPU the F16 demo pair's first code reply needed 25-29
verify steps where later ones needed 19-27. Closing the app threw that away.
:class:`ProfileStore` keeps one profile per pair of model files (path, size,
modification time) and machine (processor, core count, llama.cpp version,
GPU layers) in one JSON file in Tandem's cache folder, saved after every reply.
A restored figure weighs as little as a pre-flight seed, so a machine that got
slower or busier since corrects it within a few steps.

The file is data: a damaged or foreign file, or an entry that is not a state
this version wrote, is dropped with one log line and the pair learns from
scratch, as it did before. An entry also keeps what the thread-count policy
learned (which counts ran clearly slower), so a new process's first reply does
not spend steps looking at them again. Writes go to a temporary name, are flushed and
renamed over the file, created 0600 and never through a name planted before
it; a folder that cannot be written costs one log line. The file is read only
when it is a regular file (no link, FIFO or device) of at most
:data:`MAX_FILE_BYTES` nested a few levels: anything else is ignored with one
log line, as damage is.
The window's engine thread saves and the Settings box may clear from the GUI
thread, so every public method holds one lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import platform
import threading
import time
from pathlib import Path
from typing import Any

import llama_cpp

from app.core import stored_json
from app.core.adaptive.profile import PairProfile
from app.engine.llama.prefix_cache import file_identity
from app.engine.paths import controller_profiles_file
from app.engine.safe_files import PRIVATE_FOLDER, create_private

_LOG = logging.getLogger(__name__)
_FILE_VERSION = 1
# Pairs kept: the ones used longest ago go first. One entry is a few kilobytes.
MAX_ENTRIES = 32
# MAX_ENTRIES entries of a few kilobytes fit many times over; a larger file is not one Tandem wrote.
MAX_FILE_BYTES = 4 * 1024 * 1024


def pair_key(target: Path, draft: Path | None, gpu_layers: tuple[int, int]) -> str:
    """The entry a pair's profile is kept under: both files as they are on disk, and this machine as it decodes."""
    # A file's identity as the prefix cache ties its states to it: path, size, modification time.
    parts = [file_identity(path) if path is not None else None for path in (target, draft)]
    machine = [platform.machine(), platform.processor(), os.cpu_count(), llama_cpp.__version__, list(gpu_layers)]
    return hashlib.sha256(json.dumps([parts, machine]).encode("utf-8")).hexdigest()


class ProfileStore:
    """One JSON file of controller profiles, each under its :func:`pair_key`, the least recently used evicted."""

    def __init__(self, path: Path, max_entries: int = MAX_ENTRIES) -> None:
        self.path = path
        self.max_entries = max_entries
        self._lock = threading.Lock()

    def load(self, key: str) -> PairProfile | None:
        """The profile kept under ``key`` (None: none, or a damaged one, which is dropped)."""
        with self._lock:
            entries = self._read()
            entry = entries.get(key)
            if entry is None:
                return None
            try:
                return PairProfile.restore(entry["profile"])
            except (ValueError, KeyError, TypeError) as exc:
                _LOG.warning("dropped a damaged controller profile in %s: %s", self.path, exc)
                del entries[key]
                self._write(entries)
                return None

    def threads(self, key: str) -> Any:
        """The thread policy's state kept under ``key`` (None: none); the policy checks it (AdaptiveThreads.restore)."""
        with self._lock:
            entry = self._read().get(key)
            return entry.get("threads") if entry is not None else None

    def save(self, key: str, profile: PairProfile, threads: dict[str, Any] | None = None) -> None:
        """Keep ``profile`` and the thread policy's ``threads`` under ``key``, evicting the oldest beyond the limit.

        ``threads`` None (a count the user forced) keeps what an automatic
        policy learned before, for when the count is automatic again.
        """
        with self._lock:
            entries = self._read()
            old = entries.get(key)
            if threads is None and old is not None:
                threads = old.get("threads")
            entries[key] = {"used": time.time(), "profile": profile.state()}
            if threads is not None:
                entries[key]["threads"] = threads
            newest = sorted(entries, key=lambda k: _used(entries[k]), reverse=True)[: self.max_entries]
            self._write({k: entries[k] for k in newest})

    def clear(self) -> None:
        """Forget every profile (the next replies learn from scratch).

        The file's name is removed whatever holds it (a link or a FIFO goes,
        never what a link points to); a folder there is left, with one log line.
        """
        with self._lock:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:  # a folder in its place (IsADirectoryError, or EPERM on macOS), no permission
                _LOG.warning("could not remove the controller profiles %s: %s", self.path, exc.strerror or exc)

    def __len__(self) -> int:
        with self._lock:
            return len(self._read())

    def _read(self) -> dict[str, Any]:
        stored = stored_json.read_file(self.path, MAX_FILE_BYTES)
        if stored.missing:
            return {}
        if stored.problem:
            _LOG.warning("ignored an unreadable controller profile file %s: %s", self.path, stored.problem)
            return {}
        data = stored_json.as_dict(stored.value)
        entries = data.get("entries")
        if not isinstance(entries, dict) or data.get("version") != _FILE_VERSION:
            _LOG.warning("ignored a controller profile file of another format: %s", self.path)
            return {}
        return {k: v for k, v in entries.items() if isinstance(k, str) and isinstance(v, dict)}

    def _write(self, entries: dict[str, Any]) -> None:
        temp = self.path.with_name(f"{self.path.name}.{os.getpid()}.{threading.get_ident()}.part")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER)
            temp.unlink(missing_ok=True)  # a crash's leftover, or a link planted under the name: the name only
            with create_private(temp) as out:
                out.write(json.dumps({"version": _FILE_VERSION, "entries": entries}).encode("utf-8"))
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, self.path)
        except OSError as exc:
            # Learned costs are an optimisation: a full or read-only disk must not fail the reply.
            _LOG.warning("could not save the controller profiles to %s: %s", self.path, exc)
            with contextlib.suppress(OSError):
                temp.unlink()


def _used(entry: dict[str, Any]) -> float:
    used = entry.get("used")
    return float(used) if isinstance(used, int | float) else 0.0


def open_profile_store() -> ProfileStore:
    """The store in Tandem's cache folder (:func:`app.engine.paths.controller_profiles_file`)."""
    return ProfileStore(controller_profiles_file())
