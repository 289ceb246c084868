"""Downloads through huggingface_hub against a real HTTP server on 127.0.0.1 standing in for the Hub.

The server (tests/engine/hub_server.py) answers HEAD and GET on
``/{repo}/resolve/{revision}/{filename}`` as the Hub does, honours Range
requests, and can cut a connection mid-file, answer 503, or trickle bytes.
HF_ENDPOINT points the code at it; nothing of Tandem's is mocked.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.core.display.units import format_bytes
from app.core.pairing.catalog import CatalogError
from app.engine.gguf.header import read_header
from app.engine.hub.download import partial_path
from app.engine.models.library import (
    DownloadCancelledError,
    DownloadError,
    DownloadProgress,
    download_model,
    download_pair,
    load_catalog,
)
from tests.engine.hub_server import COMMIT, FakeHub, running_hub
from tests.engine.model_files import write_gguf

REPO = "tandem-test/Tiny-GGUF"
FILE = "tiny-q8_0.gguf"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A running stand-in Hub, with HF_ENDPOINT pointing at it."""
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        yield state


@pytest.fixture
def model_bytes(tmp_path: Path) -> bytes:
    """A valid GGUF of about 3 MB (big enough for several 1 MiB chunks)."""
    rng = np.random.default_rng(7)
    path = write_gguf(
        tmp_path / "source.gguf",
        tensors={"token_embd.weight": rng.standard_normal((64, 12_000)).astype(np.float32)},
    )
    return path.read_bytes()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "models"
    path.mkdir()
    return path


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


def test_download_completes_with_progress_and_verified_content(hub: FakeHub, model_bytes: bytes, folder: Path) -> None:
    digest = hub.add(REPO, FILE, model_bytes)
    reports: list[DownloadProgress] = []
    path = download_model(REPO, FILE, reports.append, None, folder=folder)
    assert path == folder / FILE
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert _leftovers(folder) == [FILE]  # no partial file left behind
    downloading = [r for r in reports if r.stage == "downloading"]
    assert downloading and all(r.bytes_total == len(model_bytes) for r in downloading)
    done = [r.bytes_done for r in downloading]
    assert done == sorted(done) and 0 < done[0] <= len(model_bytes)
    assert reports[-1].stage == "done" and reports[-1].bytes_done == len(model_bytes)
    assert {r.filename for r in reports} == {FILE}
    # A second call finds the complete file and asks the server nothing.
    before = len(hub.log)
    assert download_model(REPO, FILE, None, None, folder=folder) == path
    assert len(hub.log) == before


def test_progress_reports_speed_and_eta(hub: FakeHub, model_bytes: bytes, folder: Path) -> None:
    hub.add(REPO, FILE, model_bytes)
    hub.plans = [("slow", 0.03)]  # about 0.4 s for 3 MB: several reports
    reports: list[DownloadProgress] = []
    download_model(REPO, FILE, reports.append, None, folder=folder)
    moving = [r for r in reports if r.stage == "downloading" and r.speed_bps > 0]
    assert moving, "no report carried a speed"
    assert all(r.eta_s is not None and r.eta_s >= 0 for r in moving)
    # 256 KiB every 0.03 s is under 9 MB/s; the measured speed must be in that range, not "infinite".
    assert all(0 < r.speed_bps < 20e6 for r in moving)


def test_interrupted_download_resumes_with_a_range_request(hub: FakeHub, model_bytes: bytes, folder: Path) -> None:
    digest = hub.add(REPO, FILE, model_bytes)
    # The connection drops after 1.5 MB and the retry is refused: the first call fails.
    hub.plans = [("cut", 1_500_000), ("status", 503)]
    with pytest.raises(DownloadError, match=r"503.*download again to resume"):
        download_model(REPO, FILE, None, None, folder=folder)
    partial = partial_path(folder / FILE, digest)
    kept = partial.stat().st_size
    assert 0 < kept < len(model_bytes)
    assert not (folder / FILE).exists()
    # The second call continues from the kept bytes.
    path = download_model(REPO, FILE, None, None, folder=folder)
    last_get = hub.gets()[-1]
    assert last_get.headers.get("range") == f"bytes={kept}-"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert _leftovers(folder) == [FILE]


def test_a_dropped_connection_is_resumed_within_the_same_call(hub: FakeHub, model_bytes: bytes, folder: Path) -> None:
    digest = hub.add(REPO, FILE, model_bytes)
    hub.plans = [("cut", 2_200_000)]
    path = download_model(REPO, FILE, None, None, folder=folder)
    gets = hub.gets()
    assert len(gets) == 2
    assert "range" not in gets[0].headers and gets[1].headers["range"].startswith("bytes=")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_a_server_ignoring_range_restarts_cleanly(hub: FakeHub, model_bytes: bytes, folder: Path) -> None:
    digest = hub.add(REPO, FILE, model_bytes)
    hub.plans = [("cut", 1_500_000), ("status", 503), ("ignore-range", 0)]
    with pytest.raises(DownloadError):
        download_model(REPO, FILE, None, None, folder=folder)
    path = download_model(REPO, FILE, None, None, folder=folder)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest  # not kept bytes + whole file


def test_a_resume_at_the_wrong_byte_is_discarded_not_appended(hub: FakeHub, model_bytes: bytes, folder: Path) -> None:
    digest = hub.add(REPO, FILE, model_bytes)
    hub.plans = [("cut", 1_500_000), ("shift", 1000)]
    with pytest.raises(DownloadError, match=r"resumed tiny-q8_0\.gguf at byte [0-9,]+ instead of [0-9,]+"):
        download_model(REPO, FILE, None, None, folder=folder)
    assert partial_path(folder / FILE, digest).stat().st_size == 0
    path = download_model(REPO, FILE, None, None, folder=folder)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_missing_file_and_missing_repo_give_clear_messages(hub: FakeHub, model_bytes: bytes, folder: Path) -> None:
    hub.add(REPO, FILE, model_bytes)
    with pytest.raises(DownloadError, match=rf"{REPO} has no file 'nope.gguf'"):
        download_model(REPO, "nope.gguf", None, None, folder=folder)
    with pytest.raises(DownloadError, match=r"repository someone/absent was not found on http://127\.0\.0\.1"):
        download_model("someone/absent", FILE, None, None, folder=folder)
    assert _leftovers(folder) == []


def test_gated_repo_needs_a_token(
    hub: FakeHub, model_bytes: bytes, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    digest = hub.add(REPO, FILE, model_bytes)
    hub.gated[REPO] = "hf_secret"
    with pytest.raises(DownloadError, match=r"is gated.*HF_TOKEN"):
        download_model(REPO, FILE, None, None, folder=folder)
    with pytest.raises(DownloadError, match="not granted access"):
        download_model(REPO, FILE, None, None, token="hf_wrong", folder=folder)
    path = download_model(REPO, FILE, None, None, token="hf_secret", folder=folder)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert hub.gets()[-1].headers["authorization"] == "Bearer hf_secret"
    # HF_TOKEN from the environment works too.
    path.unlink()
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    assert download_model(REPO, FILE, None, None, folder=folder).is_file()


def test_cancel_keeps_a_partial_file_only_and_a_later_call_resumes(
    hub: FakeHub, model_bytes: bytes, folder: Path
) -> None:
    digest = hub.add(REPO, FILE, model_bytes)
    hub.plans = [("slow", 0.05)]  # a slow line, so the cancel lands mid-file
    cancel = threading.Event()

    def progress(report: DownloadProgress) -> None:
        if report.bytes_done > 0:
            cancel.set()  # as the GUI's Cancel button would, mid-file

    with pytest.raises(DownloadCancelledError, match="cancelled"):
        download_model(REPO, FILE, progress, cancel, folder=folder)
    assert not (folder / FILE).exists()
    assert [p.name for p in folder.glob("*.gguf")] == []  # nothing that looks complete
    kept = partial_path(folder / FILE, digest).stat().st_size
    assert 0 < kept < len(model_bytes)
    # Cancelled before starting: no request at all.
    before = len(hub.log)
    with pytest.raises(DownloadCancelledError):
        download_model(REPO, FILE, None, cancel, folder=folder)
    assert len(hub.log) == before
    path = download_model(REPO, FILE, None, threading.Event(), folder=folder)
    assert hub.gets()[-1].headers["range"] == f"bytes={kept}-"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert _leftovers(folder) == [FILE]


def test_a_second_download_of_the_same_file_is_refused_while_the_first_runs(
    hub: FakeHub, model_bytes: bytes, folder: Path
) -> None:
    hub.add(REPO, FILE, model_bytes)
    hub.plans = [("slow", 0.25)]  # about 3 s for the whole file: the second call lands mid-transfer
    started, errors = threading.Event(), []

    def first() -> None:
        try:
            download_model(REPO, FILE, lambda r: started.set() if r.bytes_done else None, None, folder=folder)
        except Exception as exc:  # reported below
            errors.append(exc)

    worker = threading.Thread(target=first)
    worker.start()
    assert started.wait(30)
    with pytest.raises(DownloadError, match="already being downloaded"):
        download_model(REPO, FILE, None, None, folder=folder)
    worker.join(60)
    assert errors == [] and (folder / FILE).is_file()


def test_corrupted_transfer_is_deleted_not_installed(hub: FakeHub, model_bytes: bytes, folder: Path) -> None:
    hub.add(REPO, FILE, model_bytes)
    with pytest.raises(DownloadError, match="SHA-256"):
        download_model(REPO, FILE, None, None, folder=folder, sha256="0" * 64)
    assert _leftovers(folder) == []


def test_a_file_that_is_not_gguf_is_rejected(hub: FakeHub, folder: Path) -> None:
    hub.add(REPO, "page.gguf", b"<html>captive portal</html>" * 100)
    with pytest.raises(DownloadError, match="not a usable GGUF model"):
        download_model(REPO, "page.gguf", None, None, folder=folder)
    assert _leftovers(folder) == []


def test_offline_mode_is_honoured(
    hub: FakeHub, model_bytes: bytes, folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub.add(REPO, FILE, model_bytes)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    with pytest.raises(DownloadError, match=r"offline mode is on.*unset HF_HUB_OFFLINE"):
        download_model(REPO, FILE, None, None, folder=folder)
    assert hub.log == []  # not one request
    # A copy already in the Hugging Face cache is used where it is.
    repo_dir = tmp_path / "hf-cache" / "models--tandem-test--Tiny-GGUF"
    (repo_dir / "refs").mkdir(parents=True)
    (repo_dir / "refs" / "main").write_text(COMMIT)
    snapshot = repo_dir / "snapshots" / COMMIT / FILE
    snapshot.parent.mkdir(parents=True)
    snapshot.write_bytes(model_bytes)
    assert download_model(REPO, FILE, None, None, folder=folder) == snapshot
    assert hub.log == []


def test_not_enough_disk_space_is_reported_before_downloading(hub: FakeHub, model_bytes: bytes, folder: Path) -> None:
    hub.add(REPO, FILE, model_bytes)
    hub.announced_sizes[(REPO, FILE)] = 10**16  # 10 PB: more than any test machine has
    with pytest.raises(DownloadError, match="not enough disk space"):
        download_model(REPO, FILE, None, None, folder=folder)
    assert hub.gets() == []


def test_a_full_disk_while_writing_is_reported_clearly(hub: FakeHub, model_bytes: bytes, folder: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full to produce a real ENOSPC")
    digest = hub.add(REPO, FILE, model_bytes)
    # The partial file is a link to /dev/full, where every write fails with ENOSPC.
    partial_path(folder / FILE, digest).symlink_to("/dev/full")
    with pytest.raises(DownloadError, match="the disk is full"):
        download_model(REPO, FILE, None, None, folder=folder)
    assert not (folder / FILE).exists()


def test_download_pair_fetches_both_files_of_a_catalog_pair(hub: FakeHub, folder: Path, tmp_path: Path) -> None:
    pair = load_catalog().pair("qwen2.5-7b+0.5b")
    digests = {}
    for n, model in enumerate((pair.target, pair.draft)):
        assert model.repo_id is not None
        data = write_gguf(tmp_path / f"m{n}.gguf", n_embd=8 + 8 * n).read_bytes()
        digests[model.filename] = hub.add(model.repo_id, model.filename, data)
    reports: list[DownloadProgress] = []
    target, draft = download_pair(pair.id, reports.append, threading.Event(), folder=folder)
    assert (target.name, draft.name) == (pair.target.filename, pair.draft.filename)
    for path in (target, draft):
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digests[path.name]
        read_header(path)
    assert {(r.file_index, r.file_count, r.filename) for r in reports if r.stage == "done"} == {
        (1, 2, pair.target.filename),
        (2, 2, pair.draft.filename),
    }


def test_approximate_catalog_sizes_are_corrected_at_download_for_good(
    hub: FakeHub, folder: Path, tmp_path: Path, data_dir: Path
) -> None:
    pair = load_catalog().pair("qwen2.5-7b+0.5b")
    assert pair.target.size_approximate and pair.target.file_size == 4_680_000_000
    sizes = {}
    for n, model in enumerate((pair.target, pair.draft)):
        assert model.repo_id is not None
        data = write_gguf(tmp_path / f"m{n}.gguf", n_embd=8 + 8 * n).read_bytes()
        hub.add(model.repo_id, model.filename, data)
        sizes[model.id] = len(data)
    notes: list[str] = []
    download_pair(pair.id, None, threading.Event(), folder=folder, notes=notes)
    assert notes[0] == (
        f"catalog size corrected: {pair.target.filename} is {sizes[pair.target.id]:,} bytes "
        f"({format_bytes(sizes[pair.target.id])}); the catalog said about 4.36 GiB"
    )
    corrected = load_catalog()  # every later reader sees the exact sizes
    for model_id, size in sizes.items():
        assert corrected.models[model_id].file_size == size
        assert not corrected.models[model_id].size_approximate
    assert corrected.pair(pair.id).download_size == sum(sizes.values())
    notes.clear()
    download_pair(pair.id, None, threading.Event(), folder=folder, notes=notes)
    assert notes == []  # nothing left to correct
    (data_dir / "cache" / "catalog-sizes.json").write_text("{not json", encoding="utf-8")
    assert load_catalog().models[pair.target.id].file_size == 4_680_000_000  # a damaged file: the catalog's own


def test_unknown_pair_lists_the_known_ones() -> None:
    with pytest.raises(CatalogError, match=r"no pair 'nope' in the catalog; known pairs: demo-qwen2\.5-coder"):
        download_pair("nope", None, None)
