"""Remembered inspections, so listing models and ranking drafts does not re-read every header.

Reading a header costs 0.2-0.5 s for a 50k-150k token vocabulary (most of it
the token and merge lists). Each file's :class:`ModelInspection` and
:class:`VocabSummary` are kept in memory and in ``cache_dir()/models``,
one small JSON file per model path, and reused while the file's size and
modification time are unchanged; a re-downloaded or edited file is simply
read again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from app.core import stored_json
from app.core.pairing.compatibility import VocabSummary, summarize_vocab
from app.engine.gguf.header import ModelFileError, read_header
from app.engine.gguf.inspection import ModelInspection, inspect_header
from app.engine.gguf.vocab import vocab_info
from app.engine.paths import cache_dir

# Bump when ModelInspection, VocabSummary or the digest scheme change: older
# entries are then ignored rather than misread.
CACHE_VERSION = 1


@dataclass(frozen=True, slots=True)
class DescribedModel:
    """A file's inspection and tokenizer summary, as cached."""

    inspection: ModelInspection
    vocab: VocabSummary


_memory: dict[tuple[str, str, int, int], DescribedModel] = {}
_lock = threading.Lock()


def cache_folder() -> Path:
    """Where the per-model cache files live."""
    return cache_dir() / "models"


def _cache_file(folder: Path, path: Path) -> Path:
    return folder / (hashlib.sha1(str(path).encode("utf-8")).hexdigest() + ".json")


def _stat(path: Path) -> os.stat_result:
    try:
        return path.stat()
    except FileNotFoundError:
        raise ModelFileError(f"model file not found: {path}") from None
    except OSError as exc:
        raise ModelFileError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _load(file: Path, size: int, mtime_ns: int) -> DescribedModel | None:
    data = stored_json.as_dict(stored_json.read_file(file).value)
    try:
        if data.get("version") != CACHE_VERSION or data.get("size") != size or data.get("mtime_ns") != mtime_ns:
            return None
        return DescribedModel(ModelInspection.from_dict(data["inspection"]), VocabSummary.from_dict(data["vocab"]))
    except (ValueError, KeyError, TypeError):
        return None  # a missing or damaged cache entry just means reading the header again


def _store(file: Path, size: int, mtime_ns: int, described: DescribedModel) -> None:
    payload = {
        "version": CACHE_VERSION,
        "size": size,
        "mtime_ns": mtime_ns,
        "inspection": described.inspection.to_dict(),
        "vocab": described.vocab.to_dict(),
    }
    tmp = file.with_name(f"{file.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(payload), encoding="utf-8")
        os.replace(tmp, file)  # readers never see half a file
    except OSError:
        # The cache is an optimisation: a read-only or full disk must not break listing.
        with contextlib.suppress(OSError):
            tmp.unlink()


def describe_file(path: str | Path) -> DescribedModel:
    """The inspection and vocabulary summary of ``path``, from the cache when the file is unchanged.

    Raises :class:`ModelFileError` for missing, non-GGUF or truncated files.
    """
    path = Path(path).expanduser().absolute()
    st = _stat(path)
    folder = cache_folder()
    key = (str(folder), str(path), st.st_size, st.st_mtime_ns)
    with _lock:
        hit = _memory.get(key)
    if hit is not None:
        return hit
    file = _cache_file(folder, path)
    described = _load(file, st.st_size, st.st_mtime_ns)
    if described is None or described.inspection.path != path:
        header = read_header(path)
        described = DescribedModel(inspect_header(header), summarize_vocab(vocab_info(header)))
        _store(file, st.st_size, st.st_mtime_ns, described)
    with _lock:
        _memory[key] = described
    return described


def cached_entry_path(path: str | Path) -> Path:
    """The cache file that holds ``path``'s entry (it may not exist yet)."""
    return _cache_file(cache_folder(), Path(path).expanduser().absolute())
