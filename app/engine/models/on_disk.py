"""Which Hub files the library already holds: local SHA-256 digests, cached by (path, size, mtime).

Hashing a model file reads all of it, so a digest is computed only for local
files whose size equals a listed file's (see
:func:`app.core.pairing.on_disk.match_on_disk`) and is kept in
``cache_dir()/sha256.json`` until the file changes.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from app.core import stored_json
from app.core.pairing.on_disk import LibraryFile, OfferedFile, match_on_disk
from app.engine.hub.listing import RepoGGUF
from app.engine.models.local import LocalModel, list_local_models
from app.engine.paths import cache_dir

_CHUNK = 1 << 20
_lock = threading.Lock()


def _cache_file() -> Path:
    return cache_dir() / "sha256.json"


def _read_cache() -> dict[str, list[object]]:
    # No cache or a damaged one: hash again.
    return stored_json.as_dict(stored_json.read_file(_cache_file()).value)


def local_sha256(path: Path) -> str | None:
    """The file's SHA-256 (hex), from the cache while its size and mtime are unchanged; ``None`` if unreadable."""
    try:
        stat = path.stat()
    except OSError:
        return None
    key = str(path.absolute())
    with _lock:
        entry = _read_cache().get(key)
    if isinstance(entry, list) and entry[:2] == [stat.st_size, stat.st_mtime_ns] and isinstance(entry[2], str):
        return entry[2]
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        return None
    value = digest.hexdigest()
    with _lock:
        cache = _read_cache()
        cache[key] = [stat.st_size, stat.st_mtime_ns, value]
        target = _cache_file()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(".json.partial")
            partial.write_text(json.dumps(cache), encoding="utf-8")
            partial.replace(target)
        except OSError:
            pass  # the digest is still right; it is only computed again next time
    return value


def find_on_disk(files: list[RepoGGUF], local: list[LocalModel] | None = None) -> dict[str, Path]:
    """``{spec: local path}`` for each listed model whose (first) file the library already holds."""
    models = list_local_models() if local is None else local
    library = [LibraryFile(m.path.name, m.file_size) for m in models]
    found: dict[str, Path] = {}
    for model in files:
        if not model.parts:
            continue
        first = model.parts[0]
        offered = OfferedFile(first.filename, first.size, first.sha256)
        index = match_on_disk(offered, library, lambda i: local_sha256(models[i].path))
        if index is not None:
            found[model.spec] = models[index].path
    return found
