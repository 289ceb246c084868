"""Tandem's models folder as disk space: its total size, and removing a model with the space that frees.

Only files inside the models folder are ever deleted; a model found elsewhere
(added by path, another tool's folder) is forgotten from the library, never
deleted, since Tandem did not put it there. Removing one shard of a split
model removes all its shards, and a download's leftover ``.partial`` files go
with the model they belong to.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import TandemError
from app.engine.models.local import remove_local_model
from app.engine.paths import models_dir

_SHARD = re.compile(r"^(?P<stem>.+)-\d{5}-of-(?P<count>\d{5})\.gguf$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class FolderUsage:
    """What the models folder holds."""

    folder: Path
    total_bytes: int
    model_files: int  # .gguf files, each shard counted
    partial_bytes: int  # unfinished downloads


@dataclass(frozen=True, slots=True)
class Removal:
    """What removing a model did."""

    deleted: tuple[Path, ...]
    freed_bytes: int
    forgotten: bool  # a file outside the models folder, taken off the library's list only


def folder_usage(folder: Path | None = None) -> FolderUsage:
    """The models folder's size in bytes, its model files and its unfinished downloads (hidden folders skipped)."""
    root = folder or models_dir()
    total = partial = count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            try:
                size = (Path(dirpath) / name).stat().st_size
            except OSError:
                continue
            total += size
            if name.endswith(".partial"):
                partial += size
            elif name.lower().endswith(".gguf"):
                count += 1
    return FolderUsage(root, total, count, partial)


def _files_of(path: Path) -> list[Path]:
    """The model's files: all shards of a split model, plus their partial downloads."""
    shard = _SHARD.match(path.name)
    if shard:
        pattern = re.compile(rf"^{re.escape(shard['stem'])}-\d{{5}}-of-{shard['count']}\.gguf$", re.IGNORECASE)
        names = [p for p in path.parent.iterdir() if pattern.match(p.name)]
    else:
        names = [path]
    partials = [p for n in names for p in path.parent.glob(f"{glob_escape(n.name)}.*.partial")]
    return sorted({*names, *partials})


def glob_escape(name: str) -> str:
    """``name`` with glob's special characters bracketed, so it matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def remove_model(path: str | Path, folder: Path | None = None) -> Removal:
    """Delete a model in the models folder (every shard); forget one elsewhere. Returns what was freed.

    Raises :class:`TandemError` when the file does not exist or cannot be deleted.
    """
    root = (folder or models_dir()).resolve()
    target = Path(path).expanduser().absolute()
    if not target.exists():
        if remove_local_model(target):
            return Removal((), 0, True)
        raise TandemError(f"no model file at {target}")
    if target.resolve().parent != root and root not in target.resolve().parents:
        # Not Tandem's to delete: take it off the list, leave the file.
        return Removal((), 0, remove_local_model(target))
    files = _files_of(target.resolve())
    freed = 0
    deleted = []
    for file in files:
        try:
            size = file.stat().st_size
            file.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise TandemError(f"cannot delete {file}: {exc.strerror or exc}") from exc
        freed += size
        deleted.append(file)
    remove_local_model(target)
    return Removal(tuple(deleted), freed, False)
