"""Downloading any GGUF model from the Hub by ``owner/name/path.gguf``: one file, or every shard of a split one.

The repository's file tree gives each part's exact size and SHA-256 (the
Hub's LFS metadata), so the free space is checked for the whole model before
the first byte moves, and each part is verified against its own checksum by
:func:`app.engine.hub.download.download_model` (resumable, one ``.partial``
per part). Naming any shard of a split model fetches all of them.

The shards are fetched last to first. The first shard is the file that is
listed and loaded (later shards are hidden from the model list), so it
appears only when every other part is already complete: a cancelled or
failed split download never shows up as a model that cannot load. Once all
parts are present, their headers must agree that they form one model
(``split.count`` and each part's ``split.no``); if they do not, the parts are
deleted.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path, PurePosixPath

from gguf import Keys

from app.core.display.units import format_bytes
from app.engine.gguf.architecture import metadata_int
from app.engine.gguf.header import ModelFileError, read_header
from app.engine.hub.listing import split_part_names
from app.engine.hub.progress import DownloadError, ProgressCallback
from app.engine.models.remote import RemoteSpec
from app.engine.paths import models_dir


def _local_name(filename: str) -> str:
    return PurePosixPath(filename).name


def _bytes_still_needed(folder: Path, parts: list[tuple[str, int]]) -> int:
    """Bytes the parts not yet complete still need, counting what their partial files hold."""
    needed = 0
    for filename, size in parts:
        name = _local_name(filename)
        if (folder / name).is_file():
            continue
        held = max((p.stat().st_size for p in folder.glob(f"{name}.*.partial")), default=0)
        needed += max(size - held, 0)
    return needed


def _verify_split(paths: list[Path], spec: RemoteSpec, remove: bool = True) -> None:
    count = len(paths)
    for number, path in enumerate(paths):
        try:
            header = read_header(path)
        except ModelFileError as exc:
            raise DownloadError(f"part {number + 1} of {spec} is not a usable GGUF file ({exc})") from exc
        stated = metadata_int(header.get(Keys.Split.LLM_KV_SPLIT_COUNT))
        index = metadata_int(header.get(Keys.Split.LLM_KV_SPLIT_NO))
        if stated != count or index != number:
            if remove:
                for part in paths:
                    part.unlink(missing_ok=True)
            raise DownloadError(
                f"the {count} parts of {spec} do not form one model: {path.name} says it is part "
                f"{'?' if index is None else index + 1} of {stated or '?'}"
                + ("; the parts were deleted" if remove else "")
            )


def _from_cache_offline(
    spec: RemoteSpec, progress: ProgressCallback | None, cancel: threading.Event | None, token: str | None, target: Path
) -> Path:
    """Offline, the Hub's tree cannot be asked: a split model's part names follow from its name's pattern,
    and every part must already be in the Hugging Face cache (or the models folder)."""
    from app.engine.hub import download

    names = split_part_names(spec.filename) or [spec.filename]
    paths = [
        download.download_model(
            spec.repo_id,
            name,
            progress,
            cancel,
            token,
            revision=spec.revision,
            folder=target,
            file_index=index,
            file_count=len(names),
        )
        for index, name in enumerate(names, 1)
    ]
    if len(paths) > 1:
        _verify_split(paths, spec, remove=False)  # never delete from the Hugging Face cache
    return paths[0]


def download_hub_model(
    spec: RemoteSpec,
    progress: ProgressCallback | None,
    cancel: threading.Event | None = None,
    token: str | None = None,
    *,
    folder: str | Path | None = None,
) -> Path:
    """Fetch the model ``spec`` names (all shards of a split model) into the models folder; return its first file.

    Raises :class:`DownloadError` with a clear reason (unknown repository or
    file, gated, offline, not enough space, checksum mismatch, parts that do
    not belong together) and :class:`~app.engine.hub.progress.DownloadCancelledError`.
    """
    from app.engine.hub import download, search  # the HTTP stack only when a download is asked for

    target = Path(folder) if folder is not None else models_dir()
    target.mkdir(parents=True, exist_ok=True)
    if download.offline_mode():
        return _from_cache_offline(spec, progress, cancel, token, target)
    models = search.list_gguf_files(spec.repo_id, revision=spec.revision, token=token)
    model = next((m for m in models if any(p.filename == spec.filename for p in m.parts)), None)
    if model is None:
        listed = ", ".join(m.filename for m in models[:5]) or "none"
        raise DownloadError(
            f"{spec.repo_id} has no GGUF file {spec.filename!r} (its GGUF files: {listed}"
            f"{', ...' if len(models) > 5 else ''}); see `models files {spec.repo_id}`"
        )
    needed = _bytes_still_needed(target, [(p.filename, p.size) for p in model.parts])
    free = shutil.disk_usage(target).free
    if needed > free:
        raise DownloadError(
            f"not enough disk space for {model.spec}: it needs {format_bytes(needed)} more "
            f"but {target} has {format_bytes(free)} free; nothing was downloaded"
        )
    paths: list[Path] = [target / _local_name(p.filename) for p in model.parts]
    count = len(model.parts)
    for order, part in enumerate(reversed(model.parts), 1):
        download.download_model(
            spec.repo_id,
            part.filename,
            progress,
            cancel,
            token,
            revision=spec.revision,
            folder=target,
            sha256=part.sha256,
            file_index=order,
            file_count=count,
        )
    if count > 1:
        _verify_split(paths, spec)
    return paths[0]
