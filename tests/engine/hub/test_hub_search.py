"""Searching the Hub and listing a repository's GGUF files, through huggingface_hub against the stand-in Hub.

The server (tests/engine/hub_server.py) answers ``/api/models`` with the
Hub's JSON and ``Link: rel="next"`` paging, and the tree route with LFS
sizes and SHA-256; HF_ENDPOINT points the real client at it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from app.engine.hub.search import quant_from_filename
from app.engine.models.library import DownloadError, list_repo_models, search_hub
from tests.engine.hub_server import FakeHub, running_hub

REPOS = {
    # repo: (downloads, likes, last modified day)
    "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF": (900, 40, 3),
    "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF": (700, 80, 1),
    "Qwen/Qwen2.5-7B-Instruct-GGUF": (500, 60, 9),
    "bartowski/Qwen2.5-Coder-7B-Instruct-GGUF": (300, 20, 7),
    "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF": (100, 10, 5),
}


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        for repo, (downloads, likes, day) in REPOS.items():
            state.set_info(
                repo, downloads=downloads, likes=likes, lastModified=f"2025-03-0{day}T12:00:00.000Z", tags=["gguf"]
            )
        state.set_info("Qwen/Qwen2.5-Coder-1.5B-Instruct", downloads=5000, likes=500, tags=["safetensors"])
        yield state


def _ids(page: object) -> list[str]:
    return [r.repo_id for r in page.results]  # type: ignore[attr-defined]


def test_search_finds_gguf_repos_sorted_three_ways(hub: FakeHub) -> None:
    by_downloads = search_hub("qwen", sort="downloads")
    assert _ids(by_downloads) == [
        "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        "Qwen/Qwen2.5-7B-Instruct-GGUF",
        "bartowski/Qwen2.5-Coder-7B-Instruct-GGUF",
    ]  # the safetensors repository is not a GGUF one
    assert not by_downloads.has_more
    first = by_downloads.results[0]
    assert (first.downloads, first.likes, first.last_modified) == (900, 40, datetime(2025, 3, 3, 12, tzinfo=UTC))
    assert _ids(search_hub("qwen", sort="likes"))[0] == "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"
    assert _ids(search_hub("qwen", sort="updated"))[0] == "Qwen/Qwen2.5-7B-Instruct-GGUF"
    query = parse_qs(urlsplit(hub.gets()[0].path).query)
    assert query["filter"] == ["gguf"] and query["search"] == ["qwen"] and query["sort"] == ["downloads"]


def test_search_pages_follow_the_hubs_cursor(hub: FakeHub) -> None:
    hub.page_size = 2  # the server splits its answers, so the client must follow the cursor
    pages = [search_hub("", sort="downloads", limit=2, page=n) for n in range(3)]
    assert [_ids(p) for p in pages] == [
        ["Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"],
        ["Qwen/Qwen2.5-7B-Instruct-GGUF", "bartowski/Qwen2.5-Coder-7B-Instruct-GGUF"],
        ["HuggingFaceTB/SmolLM2-135M-Instruct-GGUF"],
    ]
    assert [p.has_more for p in pages] == [True, True, False]
    assert any("cursor=" in r.path for r in hub.gets())  # later pages came through the Link header
    assert search_hub("no-such-model").results == []


def test_files_lists_gguf_models_with_lfs_sizes_and_split_models_as_one(hub: FakeHub) -> None:
    repo = "bartowski/Qwen2.5-Coder-7B-Instruct-GGUF"
    hub.add(repo, "README.md", b"# card")
    small = hub.add(repo, "Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf", b"GGUF" + b"\0" * 996)
    shards = [hub.add(repo, f"Q8_0/Qwen2.5-Coder-7B-Instruct-Q8_0-0000{i}-of-00002.gguf", b"x" * 3000) for i in (1, 2)]
    hub.add(repo, "broken-F16-00001-of-00003.gguf", b"x" * 10)  # shards 2 and 3 are missing
    models = list_repo_models(repo)
    assert [(m.filename, m.quant, m.size, len(m.parts)) for m in models] == [
        ("Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf", "Q4_K_M", 1000, 1),
        ("Q8_0/Qwen2.5-Coder-7B-Instruct-Q8_0-00001-of-00002.gguf", "Q8_0", 6000, 2),
    ]
    assert models[0].parts[0].sha256 == small
    assert [p.sha256 for p in models[1].parts] == shards
    assert models[1].split and models[1].spec == f"{repo}/Q8_0/Qwen2.5-Coder-7B-Instruct-Q8_0-00001-of-00002.gguf"


def test_unknown_gated_and_offline_give_clear_messages(hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DownloadError, match="repository someone/Missing-GGUF was not found"):
        list_repo_models("someone/Missing-GGUF")
    repo = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF"
    hub.add(repo, "m.gguf", b"GGUF")
    hub.gated[repo] = "hf_secret"
    with pytest.raises(DownloadError, match="is gated: accept its licence"):
        list_repo_models(repo)
    assert [m.filename for m in list_repo_models(repo, token="hf_secret")] == ["m.gguf"]
    with pytest.raises(DownloadError, match="unknown sort"):
        search_hub("x", sort="stars")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    before = len(hub.log)
    with pytest.raises(DownloadError, match=r"^offline mode is on \(HF_HUB_OFFLINE\): searching the Hub"):
        search_hub("qwen")
    with pytest.raises(DownloadError, match="offline mode is on"):
        list_repo_models(repo)
    assert len(hub.log) == before


def test_an_unreachable_hub_is_one_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    with running_hub() as state:
        url = state.url  # the server is gone once the block ends: nothing listens there
    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    with pytest.raises(DownloadError, match=f"cannot reach {url}"):
        search_hub("qwen")


@pytest.mark.parametrize(
    ("filename", "quant"),
    [
        ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "Q4_K_M"),
        ("SmolLM2-135M-Instruct.Q4_0.gguf", "Q4_0"),
        ("Llama-3-70B-IQ2_XXS-00001-of-00002.gguf", "IQ2_XXS"),
        ("phi-3-mini-fp16.gguf", "F16"),
        ("model-BF16.gguf", "BF16"),
        ("model.gguf", None),
    ],
)
def test_quantisation_is_read_from_the_file_name(filename: str, quant: str | None) -> None:
    assert quant_from_filename(filename) == quant
