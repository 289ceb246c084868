"""The prefix cache on disk: a model's KV state saved after a reply, restored when a later prompt starts the same way.

One folder (:func:`app.engine.paths.prefix_cache_dir`) holds entries of every
model, each a file in :mod:`app.core.prefix_cache.entry`'s format named by its
key. The index (each entry's model, tokens, size and last use) is read from the
headers when the cache opens; a payload is read and checked only when it is
loaded. Which entry to load or save and which to evict is
:mod:`app.core.prefix_cache.policy`'s.

Failures never reach the reply: a file that is damaged, cut short, foreign or
refused by llama.cpp is removed with one log line and the prompt is prefilled
as without the cache; a folder that cannot be written (no permission, a full
disk) costs one log line and the save. Writes go to a temporary name, are
flushed to disk and renamed over the entry, so a crash leaves either the old
state or the new one, never half of one.

The size limit belongs to the folder, kept beside the entries in
``limit.json``: the window's Settings box sets it, and ``chat``, ``serve``
and ``cache`` open the folder under the same limit (0, "Off", included), not a
default of their own.

Restores and saves run on the thread that owns the models (the window's
engine thread, the CLI's main thread); the Settings box reads the size and
clears from the GUI thread, so every public method holds one lock.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from app.core import stored_json
from app.core.decoding.model_port import common_prefix_length
from app.core.errors import TandemError
from app.core.prefix_cache.entry import (
    PREAMBLE_SIZE,
    EntryError,
    EntryHeader,
    build_header,
    check_model,
    check_payload,
    decode_tokens,
    encode_tokens,
    entry_key,
    model_identity,
)
from app.core.prefix_cache.policy import (
    DEFAULT_BUDGET_BYTES,
    IndexEntry,
    choose_entry,
    superseded,
    to_evict,
    worth_saving,
)
from app.engine.llama.model import FLASH_ATTENTION, LlamaModel
from app.engine.paths import prefix_cache_dir
from app.engine.safe_files import write_text_safely

_LOG = logging.getLogger(__name__)
SUFFIX = ".tkv"
_TEMP_SUFFIX = ".part"
LIMIT_FILE = "limit.json"  # the folder's size limit, beside the entries


def file_identity(path: Path, flash_attn: bool = FLASH_ATTENTION) -> str:
    """A model file as loaded: path, size, modification time, and the option that changes the state's layout."""
    path = path.resolve()
    stat = path.stat()
    return model_identity(str(path), stat.st_size, stat.st_mtime_ns, f"flash_attn={flash_attn}")


def identity_of(model: LlamaModel) -> str:
    """:func:`file_identity` of a loaded model."""
    return file_identity(model.path, model.options.flash_attn)


class PrefixCache:
    """The entries in one folder, under a byte budget (least recently used first out)."""

    def __init__(self, folder: Path, budget_bytes: int | None = None) -> None:
        """``budget_bytes`` None: the limit kept in the folder (:meth:`set_budget`), else the default."""
        self.folder = folder
        self._kept_budget = _read_limit(folder)
        self.budget_bytes = self._kept_budget if budget_bytes is None else budget_bytes
        self._entries: dict[str, IndexEntry] = {}
        self._identities: weakref.WeakKeyDictionary[LlamaModel, str] = weakref.WeakKeyDictionary()
        self._lock = threading.RLock()
        self._scan()

    # -- what the Settings box shows ---------------------------------------

    @property
    def entries(self) -> tuple[IndexEntry, ...]:
        """The entries known now."""
        with self._lock:
            return tuple(self._entries.values())

    def size_bytes(self) -> int:
        """Bytes the entries take on disk."""
        with self._lock:
            return sum(e.size for e in self._entries.values())

    def clear(self) -> None:
        """Remove every entry (and any temporary file a crash left)."""
        with self._lock:
            for entry in list(self._entries.values()):
                self._remove(entry.key)
            with contextlib.suppress(OSError):
                for path in self.folder.glob(f"*{_TEMP_SUFFIX}"):
                    path.unlink(missing_ok=True)

    def set_budget(self, budget_bytes: int) -> None:
        """A new limit, applied at once (0: nothing is kept, nothing saved) and kept for whoever opens the folder."""
        with self._lock:
            self.budget_bytes = max(0, budget_bytes)
            self._evict()
            if self.budget_bytes != self._kept_budget and _write_limit(self.folder, self.budget_bytes):
                self._kept_budget = self.budget_bytes

    # -- restore and save ----------------------------------------------------

    def restore(self, model: LlamaModel, prompt: Sequence[int]) -> int:
        """Load the entry sharing the longest prefix with ``prompt`` into ``model`` (see :meth:`_restore`)."""
        with self._lock:
            return self._restore(model, prompt)

    def save(self, model: LlamaModel) -> bool:
        """Save the state of the tokens ``model`` holds, if worth it; False when nothing was written."""
        with self._lock:
            return self._save(model)

    def _restore(self, model: LlamaModel, prompt: Sequence[int]) -> int:
        """Load the entry sharing the longest prefix with ``prompt`` into ``model`` when it beats the live cache.

        Returns the number of tokens loaded (0: nothing loaded, the cache as it was).
        ``prompt`` is what the model should end up holding (the decoder keeps the last
        prompt token for its first step), so the loaded state is cut back to what it shares.
        """
        identity = self._identity(model)
        live = common_prefix_length(model.kv_tokens, prompt)
        choice = choose_entry(self._entries.values(), identity, prompt, live)
        if choice is None:
            return 0
        entry = choice.entry
        try:
            payload = self._read_payload(entry, identity)
        except (OSError, EntryError) as exc:
            _LOG.warning("prefix cache: dropped %s: %s", entry.key[:12], exc)
            self._remove(entry.key)
            return 0
        if not model.load_state(payload, entry.tokens):
            _LOG.warning("prefix cache: dropped %s: llama.cpp refused the state for %s", entry.key[:12], model.name)
            self._remove(entry.key)
            return 0
        model.truncate(choice.n_shared)
        self._touch(entry)
        return choice.n_shared

    def _save(self, model: LlamaModel) -> bool:
        tokens = tuple(model.kv_tokens)
        identity = self._identity(model)
        if self.budget_bytes <= 0 or not worth_saving(self._entries.values(), identity, tokens):
            return False
        payload = model.state_bytes()
        header = build_header(identity, tokens, payload)
        if header.file_size() > self.budget_bytes:
            return False
        key = entry_key(identity, tokens)
        path = self._path(key)
        temp = path.with_name(path.name + _TEMP_SUFFIX)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(temp, "wb") as out:
                out.write(header.to_bytes())
                out.write(encode_tokens(tokens))
                out.write(payload)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, path)
            _fsync_folder(self.folder)
        except OSError as exc:
            _LOG.warning(
                "prefix cache: could not save %d tokens of %s in %s: %s", len(tokens), model.name, self.folder, exc
            )
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            return False
        old = superseded(self._entries.values(), identity, tokens)
        self._entries[key] = IndexEntry(key, identity, tokens, header.file_size(), time.time())
        for entry in old:
            if entry.key != key:
                self._remove(entry.key)
        self._evict()
        return True

    # -- the folder ----------------------------------------------------------

    def _identity(self, model: LlamaModel) -> str:
        found = self._identities.get(model)
        if found is None:
            found = identity_of(model)  # a stat per model, not per reply
            self._identities[model] = found
        return found

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}{SUFFIX}"

    def _scan(self) -> None:
        """Read every entry's header and tokens; a file that is not a whole entry is removed with one log line."""
        try:
            paths = sorted(self.folder.glob(f"*{SUFFIX}"))
        except OSError:
            return
        for path in paths:
            try:
                header, tokens = _read_head(path)
                stat = path.stat()
                if stat.st_size != header.file_size():
                    raise EntryError(f"truncated: {stat.st_size} of {header.file_size()} bytes")
            except (OSError, EntryError) as exc:
                _LOG.warning("prefix cache: dropped %s: %s", path.name, exc)
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)
                continue
            key = path.name.removesuffix(SUFFIX)
            if key != entry_key(header.model, tokens):  # renamed or copied in from elsewhere: not what it claims
                _LOG.warning("prefix cache: dropped %s: its name does not match its contents", path.name)
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)
                continue
            self._entries[key] = IndexEntry(key, header.model, tokens, stat.st_size, stat.st_mtime)

    def _read_payload(self, entry: IndexEntry, identity: str) -> bytearray:
        """The entry's payload, after every check of its header, tokens and bytes."""
        path = self._path(entry.key)
        with open(path, "rb") as f:
            header, tokens = _read_head_from(f)
            check_model(header, identity)
            if tokens != entry.tokens:
                raise EntryError("tokens changed since the cache was opened")
            payload = bytearray(header.payload_size)
            read = f.readinto(payload)
            if read != header.payload_size or f.read(1):
                raise EntryError(f"truncated or grown: payload of {read} bytes, header says {header.payload_size}")
        check_payload(header, payload)
        return payload

    def _touch(self, entry: IndexEntry) -> None:
        """Mark ``entry`` used now (its file's time too, so the order survives a restart)."""
        now = time.time()
        with contextlib.suppress(OSError):
            os.utime(self._path(entry.key), (now, now))
        self._entries[entry.key] = IndexEntry(entry.key, entry.model, entry.tokens, entry.size, now)

    def _evict(self) -> None:
        for entry in to_evict(self._entries.values(), self.budget_bytes):
            self._remove(entry.key)

    def _remove(self, key: str) -> None:
        self._entries.pop(key, None)
        try:
            self._path(key).unlink(missing_ok=True)
        except OSError as exc:
            _LOG.warning("prefix cache: could not remove %s: %s", key[:12], exc)


def _read_head(path: Path) -> tuple[EntryHeader, tuple[int, ...]]:
    with open(path, "rb") as f:
        return _read_head_from(f)


def _read_head_from(f: BinaryIO) -> tuple[EntryHeader, tuple[int, ...]]:
    read = f.read
    preamble = read(PREAMBLE_SIZE)
    length = EntryHeader.header_length(preamble)
    body = read(length)
    if len(body) != length:
        raise EntryError("truncated header")
    header = EntryHeader.parse(body)
    return header, decode_tokens(header, read(header.tokens_size))


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; Windows has no directory handles to sync)."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def restore_pair(cache: PrefixCache, models: Sequence[LlamaModel | None], prompt: Sequence[int]) -> tuple[int, ...]:
    """:meth:`PrefixCache.restore` for each loaded model of a pair (target first); 0 for a missing one."""
    return tuple(cache.restore(m, prompt) if m is not None else 0 for m in models)


def save_pair(cache: PrefixCache, models: Sequence[LlamaModel | None]) -> None:
    """:meth:`PrefixCache.save` for each loaded model of a pair."""
    for model in models:
        if model is not None:
            cache.save(model)


def open_prefix_cache(budget_bytes: int | None = None) -> PrefixCache:
    """The cache in Tandem's data folder (:func:`app.engine.paths.prefix_cache_dir`).

    ``budget_bytes`` (the window's Settings) becomes the folder's limit; None
    opens it under the limit kept there.
    """
    cache = PrefixCache(prefix_cache_dir())
    if budget_bytes is not None:
        cache.set_budget(budget_bytes)
    return cache


def _read_limit(folder: Path) -> int:
    """The limit kept in ``folder`` (the default when none is, or when the file is not one this code wrote)."""
    path = folder / LIMIT_FILE
    stored = stored_json.read_file(path)
    if stored.missing:
        return DEFAULT_BUDGET_BYTES
    if stored.problem:
        _LOG.warning("prefix cache: ignored %s: %s", path, stored.problem)
        return DEFAULT_BUDGET_BYTES
    value = stored_json.field(stored_json.as_dict(stored.value), "budget_bytes", int, -1)
    if value < 0:
        _LOG.warning("prefix cache: ignored %s: no byte limit in it", path)
        return DEFAULT_BUDGET_BYTES
    return value


def _write_limit(folder: Path, budget_bytes: int) -> bool:
    """Keep ``budget_bytes`` in ``folder``, whole or not at all; False (and one log line) when it could not be."""
    path = folder / LIMIT_FILE
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_text_safely(path, json.dumps({"budget_bytes": budget_bytes}), overwrite=True)
    except (OSError, TandemError) as exc:
        _LOG.warning("prefix cache: could not keep the limit in %s: %s", path, exc)
        return False
    return True
