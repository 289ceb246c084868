"""Inspecting and checking GGUF files on the Hub from their headers alone, before any download.

The stand-in Hub (tests/engine/hub_server.py) serves the real Qwen2.5-Coder
and SmolLM2 files from the models folder, read from disk only where a Range
asks, and counts the body bytes it sends; HF_ENDPOINT points the real
huggingface_hub client at it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.engine.gguf.header import HeaderIncompleteError, parse_header_bytes, read_header
from app.engine.hub.remote import read_remote_header
from app.engine.models.library import (
    DownloadError,
    ModelFileError,
    check_models,
    inspect_model,
    inspect_remote,
    is_remote,
    parse_remote_spec,
)
from app.engine.models.remote import remote_cache_folder
from tests.engine.hub_server import FakeHub, running_hub
from tests.engine.model_files import write_gguf

QWEN_REPO = "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"
QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN_DRAFT_REPO = "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"
QWEN_DRAFT_FILE = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
SMOL_REPO = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF"
SMOL_FILE = "SmolLM2-135M-Instruct.Q4_0.gguf"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Iterator[FakeHub]:
    """A running stand-in Hub, with HF_ENDPOINT pointing at it and a fresh data folder."""
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        yield state


@pytest.fixture
def served(hub: FakeHub, demo_pair: tuple[Path, Path], small_pair: tuple[Path, Path]) -> FakeHub:
    """The Qwen demo pair and a SmolLM2 file, served from disk."""
    hub.add_path(QWEN_REPO, QWEN_FILE, demo_pair[0])
    hub.add_path(QWEN_DRAFT_REPO, QWEN_DRAFT_FILE, demo_pair[1])
    hub.add_path(SMOL_REPO, SMOL_FILE, small_pair[1])
    return hub


def test_parse_header_bytes_asks_for_more_until_the_header_is_complete(demo_pair: tuple[Path, Path]) -> None:
    local = read_header(demo_pair[0])
    data = demo_pair[0].read_bytes()[: local.header_size]
    with pytest.raises(HeaderIncompleteError) as info:
        parse_header_bytes(data[:1_000_000], "q.gguf", local.file_size)
    assert info.value.have == 1_000_000 and info.value.needed > 1_000_000
    parsed = parse_header_bytes(data, "q.gguf", local.file_size)
    assert parsed.header_size == local.header_size and parsed.tensors == local.tensors
    # A prefix that is the whole (short) file is a truncated file, not a request for more.
    with pytest.raises(ModelFileError, match="truncated") as cut:
        parse_header_bytes(data[:1_000_000], "q.gguf", 1_000_000)
    assert not isinstance(cut.value, HeaderIncompleteError)


def test_a_152k_vocabulary_header_is_read_in_a_few_ranges_and_a_small_fraction_of_the_file(
    served: FakeHub, demo_pair: tuple[Path, Path]
) -> None:
    read = read_remote_header(QWEN_REPO, QWEN_FILE)
    local = read_header(demo_pair[0])
    # Measured: 5,950,506 header bytes for 151,936 tokens and their merges; 8 MiB read in 4 requests.
    assert read.header.header_size == local.header_size == len(read.data)
    assert read.data == demo_pair[0].read_bytes()[: local.header_size]
    sent = served.sent[(QWEN_REPO, QWEN_FILE)]
    assert sent == read.bytes_transferred
    assert local.header_size <= sent <= 2 * local.header_size
    assert sent < 0.01 * local.file_size  # under 1% of a 1.1 GB file
    assert read.requests == 4
    assert all("range" in r.headers for r in served.gets())


def test_remote_inspection_equals_the_local_one_and_is_cached(served: FakeHub, demo_pair: tuple[Path, Path]) -> None:
    spec = f"{QWEN_REPO}/{QWEN_FILE}"
    assert is_remote(spec) and not is_remote(demo_pair[0])
    first = inspect_remote(spec)
    local = inspect_model(demo_pair[0]).to_dict()
    remote = first.inspection.to_dict()
    assert remote.pop("path") == spec and local.pop("path") == str(demo_pair[0])
    assert remote == local
    assert not first.cached and first.bytes_transferred > 0
    gets = len(served.gets())
    again = inspect_remote(spec)
    assert again.cached and again.bytes_transferred == 0
    assert len(served.gets()) == gets  # only the HEAD that checks the ETag
    assert again.inspection == first.inspection
    assert len(list(remote_cache_folder().glob("*.header"))) == 1


def test_a_changed_remote_file_is_read_again(hub: FakeHub, tmp_path: Path) -> None:
    repo, name = "tandem-test/Tiny-GGUF", "tiny.gguf"
    hub.add(repo, name, write_gguf(tmp_path / "a.gguf", name="First").read_bytes())
    assert inspect_remote(f"{repo}/{name}").inspection.name == "First"
    hub.add(repo, name, write_gguf(tmp_path / "b.gguf", name="Second").read_bytes())  # new ETag
    second = inspect_remote(f"{repo}/{name}")
    assert second.inspection.name == "Second" and not second.cached


def test_offline_mode_uses_the_cache_and_explains_what_it_lacks(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = "tandem-test/Tiny-GGUF"
    hub.add(repo, "tiny.gguf", write_gguf(tmp_path / "a.gguf").read_bytes())
    hub.add(repo, "other.gguf", write_gguf(tmp_path / "b.gguf").read_bytes())
    inspect_remote(f"{repo}/tiny.gguf")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    before = len(hub.log)
    assert inspect_remote(f"{repo}/tiny.gguf").cached
    with pytest.raises(DownloadError, match="offline mode is on"):
        inspect_remote(f"{repo}/other.gguf")
    assert len(hub.log) == before  # not one request in offline mode


def test_compatibility_from_remote_headers_gives_the_local_verdict_and_evidence(
    served: FakeHub, demo_pair: tuple[Path, Path], small_pair: tuple[Path, Path]
) -> None:
    target = f"{QWEN_REPO}/{QWEN_FILE}"
    good = check_models(target, f"{QWEN_DRAFT_REPO}/{QWEN_DRAFT_FILE}")
    assert good.compatible
    assert good == check_models(demo_pair[0], demo_pair[1])
    bad = check_models(target, f"{SMOL_REPO}/{SMOL_FILE}")
    assert not bad.compatible
    assert {p.rule for p in bad.problems} >= {"vocabulary size", "token text"}
    assert "token 5 is '&' in the target" in str(bad.problems[-1])
    assert bad == check_models(demo_pair[0], small_pair[1])
    mixed = check_models(target, demo_pair[1])  # a remote target with a local draft
    assert mixed.compatible


def test_a_server_that_ignores_range_is_read_only_as_far_as_needed(
    served: FakeHub, small_pair: tuple[Path, Path]
) -> None:
    served.ignore_range = True
    read = read_remote_header(SMOL_REPO, SMOL_FILE)
    local = read_header(small_pair[1])
    assert read.header.tensors == local.tensors
    # One response, read until the header parsed (at most twice the header, plus a 256 KiB chunk).
    assert read.requests == 1
    assert local.header_size <= read.bytes_transferred <= 2 * local.header_size + 256 * 1024
    # The server counts what it wrote before the hang-up reached it (socket buffers): still not the file.
    assert served.sent[(SMOL_REPO, SMOL_FILE)] < local.file_size


def test_bad_remote_files_get_clear_messages_and_leave_nothing_behind(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(models))
    repo = "tandem-test/Tiny-GGUF"
    good = write_gguf(tmp_path / "a.gguf", tokens=[f"token-{i}" for i in range(5000)]).read_bytes()
    hub.add(repo, "not-gguf.gguf", b"<html>this is a web page</html>" * 100)
    hub.add(repo, "cut.gguf", good[:20_000])  # the file ends inside its vocabulary
    hub.add(repo, "tiny.gguf", good)
    with pytest.raises(ModelFileError, match="not a GGUF model file"):
        inspect_remote(f"{repo}/not-gguf.gguf")
    with pytest.raises(ModelFileError, match="truncated"):
        inspect_remote(f"{repo}/cut.gguf")
    with pytest.raises(DownloadError, match="repository tandem-test/Missing was not found"):
        inspect_remote("tandem-test/Missing/tiny.gguf")
    with pytest.raises(DownloadError, match=r"has no file 'absent\.gguf'"):
        inspect_remote(f"{repo}/absent.gguf")
    hub.gated[repo] = "hf_secret"
    with pytest.raises(DownloadError, match=r"is gated: accept its licence .* pass a token"):
        inspect_remote(f"{repo}/tiny.gguf")
    assert inspect_remote(f"{repo}/tiny.gguf", token="hf_secret").inspection.n_vocab == 5000
    assert list(models.iterdir()) == []
    assert len(list(remote_cache_folder().glob("*.header"))) == 1  # only the good file was cached
    with pytest.raises(ModelFileError, match="owner/name/path"):
        inspect_remote("not a hub file")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Qwen/Qwen2.5-GGUF/q4.gguf", ("Qwen/Qwen2.5-GGUF", "q4.gguf")),
        ("org/repo/sub/dir/model-Q8_0.GGUF", ("org/repo", "sub/dir/model-Q8_0.GGUF")),
        ("org/repo/model.bin", None),
        ("org/model.gguf", None),
        ("org/repo/../etc.gguf", None),
        ("org/re po/m.gguf", None),
    ],
)
def test_remote_specs_are_owner_name_then_the_path(text: str, expected: tuple[str, str] | None) -> None:
    spec = parse_remote_spec(text)
    assert (None if spec is None else (spec.repo_id, spec.filename)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("org/repo@v2.0/m-Q4_0.gguf", ("org/repo", "v2.0", "m-Q4_0.gguf")),
        ("org/repo@refs%2Fpr%2F3/sub/m.gguf", ("org/repo", "refs/pr/3", "sub/m.gguf")),
        ("org/repo@0123abcd/m.gguf", ("org/repo", "0123abcd", "m.gguf")),
        ("org/repo/m.gguf", ("org/repo", "main", "m.gguf")),
        ("org/repo@/m.gguf", None),
    ],
)
def test_a_revision_is_written_after_the_repository(text: str, expected: tuple[str, str, str] | None) -> None:
    spec = parse_remote_spec(text)
    assert (None if spec is None else (spec.repo_id, spec.revision, spec.filename)) == expected
    if spec is not None:
        assert parse_remote_spec(str(spec)) == spec  # written back the same way


def test_a_revision_reads_that_revisions_header_and_an_unknown_one_is_named(
    hub: FakeHub, small_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    hub.add_path(SMOL_REPO, SMOL_FILE, small_pair[1])
    older = write_gguf(tmp_path / "older.gguf", name="Older SmolLM2")
    hub.add(SMOL_REPO, SMOL_FILE, older.read_bytes(), revision="v1")
    on_main = inspect_remote(f"{SMOL_REPO}/{SMOL_FILE}")
    on_v1 = inspect_remote(f"{SMOL_REPO}@v1/{SMOL_FILE}")
    assert on_main.inspection.name != on_v1.inspection.name == "Older SmolLM2"
    assert on_v1.spec.revision == "v1" and not on_v1.cached  # cached apart from main's header
    assert inspect_remote(f"{SMOL_REPO}@v1/{SMOL_FILE}").cached
    with pytest.raises(DownloadError, match=r"has no revision 'v9'"):
        inspect_remote(f"{SMOL_REPO}@v9/{SMOL_FILE}")
