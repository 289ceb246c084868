"""Downloading any Hub model by ``owner/name/path.gguf``, split models as one, against the stand-in Hub.

Real huggingface_hub client, real HTTP server on 127.0.0.1 (tests/engine/hub_server.py),
real GGUF shards written by the ``gguf`` package; nothing of Tandem's is mocked.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.engine.gguf.header import read_header
from app.engine.models.library import DownloadError, DownloadProgress, download_hub_file, list_local_models
from tests.engine.hub_server import FakeHub, running_hub
from tests.engine.model_files import write_gguf

REPO = "tandem-test/Split-GGUF"
SHARDS = [f"Q8_0/tiny-Q8_0-0000{i}-of-00003.gguf" for i in (1, 2, 3)]


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Iterator[FakeHub]:
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        yield state


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "models"
    path.mkdir()
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(path))
    return path


def _shard(tmp_path: Path, number: int, count: int) -> bytes:
    """One part of a split model, with the split keys llama.cpp's gguf-split writes."""
    rng = np.random.default_rng(number)
    path = write_gguf(
        tmp_path / f"shard{number}-{count}.gguf",
        tensors={f"blk.{number}.weight": rng.standard_normal((64, 2000)).astype(np.float32)},
        extra_uint32={"split.no": number, "split.count": count},
    )
    return path.read_bytes()


def _serve_split(hub: FakeHub, tmp_path: Path, stated_count: int = 3) -> list[bytes]:
    data = [_shard(tmp_path, n, stated_count) for n in range(3)]
    for name, blob in zip(SHARDS, data, strict=True):
        hub.add(REPO, name, blob)
    return data


def _visible(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


def test_a_split_model_is_downloaded_verified_and_listed_as_one(hub: FakeHub, folder: Path, tmp_path: Path) -> None:
    data = _serve_split(hub, tmp_path)
    reports: list[DownloadProgress] = []
    path = download_hub_file(f"{REPO}/{SHARDS[1]}", reports.append)  # naming any shard fetches the model
    assert path == folder / "tiny-Q8_0-00001-of-00003.gguf"
    assert _visible(folder) == [Path(s).name for s in SHARDS]
    for name, blob in zip(SHARDS, data, strict=True):
        assert hashlib.sha256((folder / Path(name).name).read_bytes()).digest() == hashlib.sha256(blob).digest()
    # The first shard, the one that is listed and loaded, came last.
    order = [r.path.rsplit("/", 1)[-1] for r in hub.gets() if "/resolve/" in r.path]
    assert order == [Path(s).name for s in reversed(SHARDS)]
    assert {(r.file_index, r.file_count) for r in reports if r.stage == "done"} == {(1, 3), (2, 3), (3, 3)}
    listed = [m for m in list_local_models() if m.path.parent == folder]
    assert [m.path.name for m in listed] == ["tiny-Q8_0-00001-of-00003.gguf"]
    assert read_header(path).get("split.count") == 3


def test_parts_that_do_not_form_one_model_are_deleted(hub: FakeHub, folder: Path, tmp_path: Path) -> None:
    _serve_split(hub, tmp_path, stated_count=2)  # three files that each claim to be one of two
    with pytest.raises(DownloadError, match=r"do not form one model: .* part 1 of 2; the parts were deleted"):
        download_hub_file(f"{REPO}/{SHARDS[0]}", None)
    assert _visible(folder) == []


def test_a_checksum_mismatch_is_deleted_not_installed(hub: FakeHub, folder: Path, tmp_path: Path) -> None:
    hub.add("tandem-test/One-GGUF", "one-F32.gguf", _shard(tmp_path, 0, 1))
    hub.digests[("tandem-test/One-GGUF", "one-F32.gguf")] = "0" * 64  # the Hub's LFS record disagrees
    with pytest.raises(DownloadError, match="did not match its SHA-256 checksum; it was deleted"):
        download_hub_file("tandem-test/One-GGUF/one-F32.gguf", None)
    assert _visible(folder) == []


def test_the_whole_split_model_must_fit_before_anything_is_fetched(hub: FakeHub, folder: Path, tmp_path: Path) -> None:
    _serve_split(hub, tmp_path)
    hub.announced_sizes[(REPO, SHARDS[2])] = 10**16  # one part of 10 PB: more than any disk
    with pytest.raises(DownloadError, match=r"not enough disk space for .*: it needs 9094\.95 TiB more .* nothing was"):
        download_hub_file(f"{REPO}/{SHARDS[0]}", None)
    assert not [r for r in hub.log if "/resolve/" in r.path]  # only the file listing was asked for
    assert _visible(folder) == []


def test_unknown_files_repos_and_gated_repos_get_clear_messages(hub: FakeHub, folder: Path, tmp_path: Path) -> None:
    _serve_split(hub, tmp_path)
    with pytest.raises(DownloadError, match=r"has no GGUF file 'nope\.gguf' \(its GGUF files: Q8_0/tiny"):
        download_hub_file(f"{REPO}/nope.gguf", None)
    with pytest.raises(DownloadError, match="repository tandem-test/Missing was not found"):
        download_hub_file("tandem-test/Missing/x.gguf", None)
    hub.gated[REPO] = "hf_secret"
    with pytest.raises(DownloadError, match=r"is gated: accept its licence .* pass a token"):
        download_hub_file(f"{REPO}/{SHARDS[0]}", None)
    with pytest.raises(DownloadError, match="is not a Hub file"):
        download_hub_file("just-a-name.gguf", None)
    assert _visible(folder) == []
    assert download_hub_file(f"{REPO}/{SHARDS[0]}", None, token="hf_secret").is_file()


def test_a_failed_shard_leaves_no_listed_model(hub: FakeHub, folder: Path, tmp_path: Path) -> None:
    _serve_split(hub, tmp_path)
    hub.plans = [("normal", 0), ("status", 404)]  # the last shard arrives, the middle one fails
    with pytest.raises(DownloadError):
        download_hub_file(f"{REPO}/{SHARDS[0]}", None)
    assert "tiny-Q8_0-00001-of-00003.gguf" not in _visible(folder)
    assert [m for m in list_local_models() if m.path.parent == folder] == []
    path = download_hub_file(f"{REPO}/{SHARDS[0]}", None)  # the next call completes it
    assert path.is_file() and len(_visible(folder)) == 3


def test_a_revision_downloads_that_revisions_file(hub: FakeHub, folder: Path, tmp_path: Path) -> None:
    hub.add("tandem-test/One-GGUF", "one-F32.gguf", _shard(tmp_path, 0, 1))
    older = _shard(tmp_path, 1, 1)
    hub.add("tandem-test/One-GGUF", "one-F32.gguf", older, revision="v1")
    path = download_hub_file("tandem-test/One-GGUF@v1/one-F32.gguf", None)
    assert path.read_bytes() == older
    assert all("/resolve/v1/" in r.path for r in hub.gets() if "/resolve/" in r.path)
    with pytest.raises(DownloadError, match="has no revision 'v7'"):
        download_hub_file("tandem-test/One-GGUF@v7/one-F32.gguf", None)


def test_offline_a_split_model_comes_whole_from_the_hugging_face_cache(
    hub: FakeHub, folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import hf_hub_download

    cache = tmp_path / "hf-cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    _serve_split(hub, tmp_path)
    for name in SHARDS[:2]:  # what an earlier online session left in the cache: two of the three parts
        hf_hub_download(REPO, name, cache_dir=cache, endpoint=hub.url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    served = len(hub.log)
    with pytest.raises(DownloadError, match=r"offline mode is on .* tiny-Q8_0-00003-of-00003\.gguf is not on this"):
        download_hub_file(f"{REPO}/{SHARDS[0]}", None)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    hf_hub_download(REPO, SHARDS[2], cache_dir=cache, endpoint=hub.url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    served = len(hub.log)
    path = download_hub_file(f"{REPO}/{SHARDS[1]}", None)  # any shard names the model
    assert path.name == "tiny-Q8_0-00001-of-00003.gguf" and cache in path.parents
    assert read_header(path).get("split.count") == 3
    assert len(hub.log) == served  # nothing was asked of the network
    assert _visible(folder) == []  # used where it lies in the cache, nothing copied
