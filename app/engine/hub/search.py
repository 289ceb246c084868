"""Finding GGUF models on the Hub: search with sort and paging, and a repository's GGUF files with exact sizes.

Both go through huggingface_hub's ``HfApi``: ``list_models(search=...,
filter="gguf", sort=..., limit=...)`` and ``list_repo_tree(recursive=True)``,
whose entries carry the LFS metadata (the exact size and the SHA-256 of the
content), so a listed size is the one a download will verify. The endpoint
and offline mode are read at call time, as in :mod:`app.engine.hub.download`.

A split model (``name-00001-of-00003.gguf`` ...) is listed once, as its first
shard, with the parts and their total size; the quantisation is read from the
file name (the Hub states it nowhere else before the header is read).
"""

from __future__ import annotations

import re
import socket
from collections import defaultdict
from itertools import islice
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx2
from huggingface_hub import HfApi
from huggingface_hub.errors import (
    HfHubHTTPError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.hf_api import RepoFile

from app.core.display.wording import QT_TRANSLATE_NOOP
from app.engine.hub.auth import auth_error
from app.engine.hub.download import hub_endpoint, offline_mode
from app.engine.hub.listing import SPLIT_NAME, FilePart, RepoGGUF, RepoResult, SearchPage
from app.engine.hub.progress import DownloadError

SortKey = Literal["downloads", "likes", "updated"]
SORTS: dict[str, Literal["downloads", "likes", "last_modified"]] = {
    "downloads": "downloads",
    "likes": "likes",
    "updated": "last_modified",
}
_EXPAND: list[Any] = ["downloads", "likes", "lastModified", "gated", "tags", "gguf", "baseModels"]
# Quantisation names as llama.cpp's tools write them into file names.
_QUANT = re.compile(
    r"(?<![a-z0-9])(iq\d_[a-z]+|q\d_k(?:_[sml])?|q\d_[01]|tq\d_0|bf16|fp16|f16|f32|mxfp4)(?![a-z0-9])", re.IGNORECASE
)


def quant_from_filename(filename: str) -> str | None:
    """``qwen2.5-coder-1.5b-instruct-q4_k_m.gguf`` -> ``Q4_K_M``; ``None`` when the name does not say."""
    stem = re.sub(r"(-\d{5}-of-\d{5})?\.gguf$", "", filename.rsplit("/", 1)[-1], flags=re.IGNORECASE)
    found = _QUANT.findall(stem)
    return found[-1].upper().replace("FP16", "F16") if found else None


def _repo_error(
    exc: Exception, repo_id: str, what: str, revision: str = "main", token_sent: bool = False
) -> DownloadError:
    endpoint = hub_endpoint()
    refused = auth_error(exc, repo_id, endpoint, token_sent)
    if refused is not None:
        return refused
    if isinstance(exc, RepositoryNotFoundError):
        return DownloadError(
            QT_TRANSLATE_NOOP(
                "HubErrors", "repository {repo} was not found on {endpoint} (if it is private, pass a token)"
            ).fill(repo=repo_id, endpoint=endpoint)
        )
    if isinstance(exc, RevisionNotFoundError):
        return DownloadError(f"{repo_id} has no revision {revision!r} (a branch, tag or commit)")
    return _network_error(exc, what)


def _network_error(exc: Exception, what: str, token_sent: bool = False) -> DownloadError:
    endpoint = hub_endpoint()
    refused = auth_error(exc, None, endpoint, token_sent)
    if refused is not None:
        return refused
    if isinstance(exc, OfflineModeIsEnabled):
        return _offline(what)
    if isinstance(exc, httpx2.TransportError):
        return DownloadError(
            QT_TRANSLATE_NOOP(
                "HubErrors", "cannot reach {endpoint} ({error}); check the network connection or HF_ENDPOINT"
            ).fill(endpoint=endpoint, error=str(exc))
        )
    if isinstance(exc, HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else "an error"
        return DownloadError(f"the Hub answered {status} to {what}; try again later")
    return DownloadError(f"{what} failed: {exc}")


def _offline(what: str) -> DownloadError:
    return DownloadError(
        QT_TRANSLATE_NOOP("HubErrors", "offline mode is on (HF_HUB_OFFLINE): {what} needs the network").fill(what=what)
    )


def _check_reachable(what: str) -> None:
    """Fail at once when nothing answers at the endpoint.

    huggingface_hub retries a refused or unresolvable connection five times
    with backoff (about 24 s) before it gives up; a search box should say
    "no network" in a moment instead.
    """
    endpoint = hub_endpoint()
    parts = urlsplit(endpoint)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=5):
            pass
    except OSError as exc:
        raise DownloadError(
            f"cannot reach {endpoint} ({exc.strerror or exc}) for {what}; check the network connection or HF_ENDPOINT"
        ) from exc


def _api(token: str | None) -> HfApi:
    return HfApi(endpoint=hub_endpoint(), token=token)


def _result(info: Any) -> RepoResult:
    gguf = info.gguf if isinstance(info.gguf, dict) else {}
    base = getattr(info, "base_models", None) or []
    if not base and isinstance(info.card_data, dict):
        base = info.card_data.get("base_model") or []
    return RepoResult(
        repo_id=info.id,
        downloads=int(info.downloads or 0),
        likes=int(info.likes or 0),
        last_modified=info.last_modified,
        gated=bool(info.gated),
        tags=tuple(info.tags or ()),
        architecture=gguf.get("architecture"),
        n_params=int(gguf["total"]) if isinstance(gguf.get("total"), int) else None,
        base_models=tuple([base] if isinstance(base, str) else base),
    )


def search_models(
    query: str, *, sort: str = "downloads", limit: int = 20, page: int = 0, token: str | None = None
) -> SearchPage:
    """Page ``page`` (from 0) of GGUF repositories matching ``query``, sorted by ``sort``, best first.

    ``sort`` is ``downloads``, ``likes`` or ``updated``. Raises
    :class:`DownloadError` offline, or when the Hub cannot be reached.
    """
    if sort not in SORTS:
        raise DownloadError(f"unknown sort {sort!r}: use one of {', '.join(SORTS)}")
    if limit < 1 or page < 0:
        raise DownloadError("the page size must be at least 1 and the page number at least 0")
    what = f"searching the Hub for {query!r}"
    if offline_mode():
        raise _offline(what)
    _check_reachable(what)
    try:
        # The client pages by following the Hub's Link cursor; asking for one more
        # than this page needs says whether another page exists.
        found = _api(token).list_models(
            search=query or None, filter="gguf", sort=SORTS[sort], limit=(page + 1) * limit + 1, expand=_EXPAND
        )
        rows = [_result(info) for info in islice(found, page * limit, (page + 1) * limit + 1)]
    except Exception as exc:
        raise _network_error(exc, what, bool(token)) from exc
    return SearchPage(query, sort, page, rows[:limit], len(rows) > limit)


def _group(repo_id: str, files: list[RepoFile]) -> list[RepoGGUF]:
    singles: list[RepoGGUF] = []
    shards: dict[tuple[str, int], list[tuple[int, FilePart]]] = defaultdict(list)
    for entry in files:
        lfs = entry.lfs
        part = FilePart(entry.path, int(lfs.size if lfs else entry.size), lfs.sha256 if lfs else None)
        split = SPLIT_NAME.match(entry.path)
        if split:
            shards[(split["stem"], int(split["count"]))].append((int(split["index"]), part))
        else:
            singles.append(RepoGGUF(repo_id, entry.path, quant_from_filename(entry.path), (part,)))
    for (stem, count), numbered in shards.items():
        numbered.sort(key=lambda item: item[0])
        if [n for n, _ in numbered] != list(range(1, count + 1)):
            continue  # an incomplete set of shards cannot be loaded: not offered
        parts = tuple(p for _, p in numbered)
        singles.append(RepoGGUF(repo_id, parts[0].filename, quant_from_filename(stem + ".gguf"), parts))
    singles.sort(key=lambda m: (m.size, m.filename))
    return singles


def list_gguf_files(repo_id: str, *, revision: str = "main", token: str | None = None) -> list[RepoGGUF]:
    """The GGUF models in ``repo_id``, smallest first, with exact sizes and SHA-256 from the LFS metadata."""
    what = f"listing the files of {repo_id}"
    if offline_mode():
        raise _offline(what)
    _check_reachable(what)
    try:
        tree = list(_api(token).list_repo_tree(repo_id, recursive=True, revision=revision))
    except Exception as exc:
        raise _repo_error(exc, repo_id, what, revision, bool(token)) from exc
    files = [e for e in tree if isinstance(e, RepoFile) and e.path.lower().endswith(".gguf")]
    return _group(repo_id, files)
