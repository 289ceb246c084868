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

Only Tandem's own files are read or removed: entries named as it names them
(a key and ``.tkv``) that are regular files and begin with its header, and
its own temporary files. Anything else there (a user's ``my-notes.tkv``, a
FIFO, a device, a link) is skipped with a note and left as it is; a file is
opened without following a link or waiting on a FIFO
(:func:`app.engine.safe_files.open_regular`). A folder that is itself a
symbolic link is refused (one log line; the cache is off): following it would
read and remove files wherever it points, and the place of the whole data
folder is set with ``TANDEM_DATA_DIR``, which may be a link. A payload is read
only after its size was checked against the file's real size and the most a
state of its tokens can take in the loading model
(:meth:`~app.engine.llama.model.LlamaModel.state_size_limit`), so a header
that claims gigabytes costs nothing but the entry. Entries, their temporary
files and the limit are written 0600 in a 0700 folder: they hold the prompts'
tokens in the clear.

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
import re
import stat
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
    NotAnEntryError,
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
from app.engine.safe_files import (
    PRIVATE_FOLDER,
    UnreadableFileError,
    create_private,
    open_regular,
    tighten,
    write_text_safely,
)

_LOG = logging.getLogger(__name__)
SUFFIX = ".tkv"
_TEMP_SUFFIX = ".part"
LIMIT_FILE = "limit.json"  # the folder's size limit, beside the entries
_LIMIT_MAX_BYTES = 4096  # the file holds one number
# The names Tandem gives its entries (a SHA-256 key) and their temporary files: the only ones it reads or removes.
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}" + re.escape(SUFFIX))
_TEMP_NAME = re.compile(r"[0-9a-f]{64}" + re.escape(SUFFIX + _TEMP_SUFFIX))


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
        # Why the folder is not used (a link, a file in its place); empty when it is.
        self.refusal = folder_refusal(folder)
        if self.refusal:
            _LOG.warning("prefix cache: %s", self.refusal)
        self._kept_budget = DEFAULT_BUDGET_BYTES if self.refusal else _read_limit(folder)
        self.budget_bytes = self._kept_budget if budget_bytes is None else budget_bytes
        self._entries: dict[str, IndexEntry] = {}
        self._identities: weakref.WeakKeyDictionary[LlamaModel, str] = weakref.WeakKeyDictionary()
        self._lock = threading.RLock()
        if not self.refusal:
            tighten(folder)  # entries an older Tandem saved in a folder others could read
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
        """Remove every entry (and any temporary file a crash left); nothing at all in a refused folder."""
        with self._lock:
            if folder_refusal(self.folder):  # looked at again: a link may have taken the folder's place since
                self._entries.clear()
                return
            for entry in list(self._entries.values()):
                self._remove(entry.key)
            for name in _own_names(self.folder, _TEMP_NAME):
                path = self.folder / name
                with contextlib.suppress(OSError):
                    if stat.S_ISREG(os.lstat(path).st_mode):
                        path.unlink()

    def set_budget(self, budget_bytes: int) -> None:
        """A new limit, applied at once (0: nothing is kept, nothing saved) and kept for whoever opens the folder."""
        with self._lock:
            self.budget_bytes = max(0, budget_bytes)
            self._evict()
            if (
                self.budget_bytes != self._kept_budget
                and not folder_refusal(self.folder)
                and _write_limit(self.folder, self.budget_bytes)
            ):
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
            payload = self._read_payload(entry, identity, model)
        except UnreadableFileError as exc:  # swapped for a link or a FIFO since the scan: not Tandem's to remove
            _LOG.warning("prefix cache: skipped %s: %s", exc.path, exc.what)
            self._entries.pop(entry.key, None)
            return 0
        except (OSError, EntryError, MemoryError) as exc:
            _LOG.warning("prefix cache: dropped %s: %s", entry.key[:12], exc or type(exc).__name__)
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
        if self.budget_bytes <= 0 or self.refusal or not worth_saving(self._entries.values(), identity, tokens):
            return False
        payload = model.state_bytes()
        header = build_header(identity, tokens, payload)
        if header.file_size() > self.budget_bytes:
            return False
        key = entry_key(identity, tokens)
        path = self._path(key)
        temp = path.with_name(path.name + _TEMP_SUFFIX)
        try:
            self._make_folder()
            temp.unlink(missing_ok=True)  # a crash's leftover (or a link planted under the name): the name only
            with create_private(temp) as out:
                out.write(header.to_bytes())
                out.write(encode_tokens(tokens))
                out.write(payload)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, path)
            _fsync_folder(self.folder)
        except (OSError, TandemError) as exc:
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

    def _make_folder(self) -> None:
        """The folder, made 0700 (or tightened); :class:`TandemError` when a link holds its place."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER)
        refusal = folder_refusal(self.folder)
        if refusal:
            raise TandemError(refusal)
        tighten(self.folder)

    def _scan(self) -> None:
        """Read every entry's header and tokens.

        A damaged entry of Tandem's (its name, its header) is removed with one
        log line; anything else is skipped with one and left where it is.
        """
        for name in sorted(_own_names(self.folder, _ENTRY_NAME)):
            path = self.folder / name
            try:
                with open_regular(path) as f:
                    size = os.fstat(f.fileno()).st_size
                    header, tokens = _read_head_from(f, size)
                if size != header.file_size():
                    raise EntryError(f"truncated: {size} of {header.file_size()} bytes")
            except FileNotFoundError:
                continue
            except UnreadableFileError as exc:
                _LOG.warning("prefix cache: skipped %s: %s", path, exc.what)
                continue
            except NotAnEntryError as exc:
                _LOG.warning("prefix cache: skipped %s: %s", path, exc)
                continue
            except (OSError, EntryError) as exc:
                _LOG.warning("prefix cache: dropped %s: %s", path.name, exc)
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)
                continue
            tighten(path)
            key = path.name.removesuffix(SUFFIX)
            if key != entry_key(header.model, tokens):  # renamed or copied in from elsewhere: not what it claims
                _LOG.warning("prefix cache: dropped %s: its name does not match its contents", path.name)
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)
                continue
            self._entries[key] = IndexEntry(key, header.model, tokens, size, path.stat().st_mtime)

    def _read_payload(self, entry: IndexEntry, identity: str, model: LlamaModel) -> bytearray:
        """The entry's payload, after every check of its header, tokens and bytes.

        Its size is checked against the file's and against the most ``model``'s
        state of its tokens can take before a byte of it is allocated.
        """
        path = self._path(entry.key)
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            header, tokens = _read_head_from(f, size)
            check_model(header, identity)
            if tokens != entry.tokens:
                raise EntryError("tokens changed since the cache was opened")
            if size != header.file_size():
                raise EntryError(f"truncated or grown: {size} of {header.file_size()} bytes")
            if len(tokens) > model.n_ctx:
                raise EntryError(f"{len(tokens)} tokens do not fit {model.name}'s context of {model.n_ctx}")
            limit = model.state_size_limit(len(tokens))
            if header.payload_size > limit:
                raise EntryError(
                    f"header claims a state of {header.payload_size} bytes; {model.name}'s state of "
                    f"{len(tokens)} tokens takes at most {limit}"
                )
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
            os.utime(self._path(entry.key), (now, now), follow_symlinks=False)
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


def _read_head_from(f: BinaryIO, size: int) -> tuple[EntryHeader, tuple[int, ...]]:
    """The header and tokens of the open entry of ``size`` bytes; tokens it claims beyond its size are not read."""
    read = f.read
    preamble = read(PREAMBLE_SIZE)
    length = EntryHeader.header_length(preamble)
    body = read(length)
    if len(body) != length:
        raise EntryError("truncated header")
    header = EntryHeader.parse(body)
    if PREAMBLE_SIZE + length + header.tokens_size > size:
        raise EntryError(f"truncated: {size} bytes, the header claims {header.n_tokens} tokens")
    return header, decode_tokens(header, read(header.tokens_size))


def folder_refusal(folder: Path) -> str:
    """Why the cache does not use ``folder`` (a symbolic link, or one that cannot be looked at); empty when it can."""
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return ""  # made when first written
    except OSError as exc:
        return f"{folder} cannot be read: {exc.strerror or exc}"
    if stat.S_ISLNK(mode):
        return f"{folder} is a symbolic link: Tandem does not follow it, the prefix cache is off"
    return ""  # a file in its place: the save that cannot make the folder says so


def _own_names(folder: Path, pattern: re.Pattern[str]) -> list[str]:
    """The names in ``folder`` that Tandem gives its files of one kind (none when the folder cannot be listed)."""
    try:
        return [name for name in os.listdir(folder) if pattern.fullmatch(name)]
    except OSError:
        return []


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
    """The cache in Tandem's cache folder (:func:`app.engine.paths.prefix_cache_dir`).

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
    stored = stored_json.read_file(path, _LIMIT_MAX_BYTES)
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
        folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER)
        write_text_safely(path, json.dumps({"budget_bytes": budget_bytes}), overwrite=True)
        tighten(path)  # a replaced file keeps its mode: an older Tandem's 0644
    except (OSError, TandemError) as exc:
        _LOG.warning("prefix cache: could not keep the limit in %s: %s", path, exc)
        return False
    return True
