"""The Discover tab against the stand-in Hub: search, paging, a repository's files, a download, offline mode."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gguf import LlamaFileType
from pytestqt.qtbot import QtBot

from app.ui.layout_fit import ElidedLabel
from app.ui.main_window import MainWindow
from app.ui.models.discover_panel import OFFLINE_TEXT, PAGE_SIZE
from tests.engine.hub_server import FakeHub, running_hub
from tests.engine.model_files import copy_tokenizer, write_gguf


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeHub]:
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.setenv("TANDEM_MODELS_DIR", str(tmp_path / "models"))
        monkeypatch.setenv("HOME", str(tmp_path))  # no other tool's folders
        monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
        yield state


def test_search_page_list_files_and_download_into_the_model_list(
    make_window: Callable[..., MainWindow], hub: FakeHub, tmp_path: Path, qtbot: QtBot
) -> None:
    for n in range(PAGE_SIZE + 3):
        hub.set_info(f"org/Model{n:02d}-GGUF", downloads=1000 - n, likes=n)
    # The name says Q8_0, the file's general.file_type Q4_K_M: the label is the file's.
    model = write_gguf(tmp_path / "m.gguf", name="Downloaded Model", file_type=LlamaFileType.MOSTLY_Q4_K_M)
    hub.add("org/Model00-GGUF", "model00-Q8_0.gguf", model.read_bytes())
    hub.add("org/Model00-GGUF", "model00-F16-00001-of-00002.gguf", b"x" * 10)
    hub.add("org/Model00-GGUF", "model00-F16-00002-of-00002.gguf", b"x" * 10)
    window = make_window()
    panel = window.discover
    assert panel.offline.isHidden()
    panel.query.setText("model")
    panel.search()
    qtbot.waitUntil(lambda: panel.results.count() == PAGE_SIZE, timeout=60_000)
    assert panel.results.item(0).text().startswith("org/Model00-GGUF  ·  1,000 downloads")
    assert panel.more.isVisibleTo(panel)
    panel.more.click()
    qtbot.waitUntil(lambda: panel.results.count() == PAGE_SIZE + 3, timeout=60_000)
    assert not panel.more.isVisibleTo(panel)

    panel.results.setCurrentRow(0)
    qtbot.waitUntil(lambda: panel.table.rowCount() == 2, timeout=60_000)
    assert [panel.table.item(r, 0).text() for r in range(2)] == [
        "model00-F16-00001-of-00002.gguf  (2 parts)",
        "model00-Q8_0.gguf",
    ]
    qtbot.waitUntil(lambda: panel.table.item(1, 1).text() != "…", timeout=60_000)
    assert panel.table.item(1, 1).text() == "Q4_K_M"
    qtbot.waitUntil(lambda: panel.table.item(0, 1).text() != "…", timeout=60_000)
    assert panel.table.item(0, 1).text() == "?"  # its shards are not GGUF: nothing is guessed from the name
    assert panel.table.item(0, 1).toolTip().startswith("cannot read the header")
    assert panel.table.item(1, 2).toolTip() == f"{model.stat().st_size:,} bytes"

    downloaded: list[Path] = []
    panel.downloaded.connect(downloaded.append)
    panel.download_buttons()[1].click()
    qtbot.waitUntil(lambda: bool(downloaded) or "Downloaded" in panel.status.text(), timeout=60_000)
    assert downloaded == [tmp_path / "models" / "model00-Q8_0.gguf"]
    assert downloaded[0].read_bytes() == model.read_bytes()
    buttons = panel.download_buttons()
    assert buttons[1].text() == "On disk" and not buttons[1].isEnabled()  # downloaded: never fetched twice
    assert buttons[1].toolTip() == "already on disk as model00-Q8_0.gguf"
    assert buttons[0].text() == "Download" and buttons[0].isEnabled()
    picker = window.picker.target
    qtbot.waitUntil(
        lambda: any("Downloaded Model" in picker.itemText(i) for i in range(picker.count())), timeout=60_000
    )


def test_a_failed_download_says_why_and_re_enables_the_buttons(
    make_window: Callable[..., MainWindow], hub: FakeHub, tmp_path: Path, qtbot: QtBot
) -> None:
    hub.add("org/Broken-GGUF", "broken-Q4_0.gguf", b"not a model at all" * 100)
    window = make_window()
    panel = window.discover
    panel.download("org/Broken-GGUF/broken-Q4_0.gguf")
    qtbot.waitUntil(lambda: not panel.busy, timeout=60_000)
    assert "is not a usable GGUF model" in panel.status.text()
    assert list((tmp_path / "models").glob("*.gguf*")) == []


def test_offline_the_tab_says_so_in_one_line_and_sends_nothing(
    make_window: Callable[..., MainWindow], hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    window = make_window()
    panel = window.discover
    assert not panel.offline.isHidden() and panel.offline.text() == OFFLINE_TEXT
    assert not panel.search_button.isEnabled() and not panel.query.isEnabled()
    panel.search()
    panel.download("org/Any-GGUF/any.gguf")
    assert not panel.busy and panel.results.count() == 0
    assert hub.log == []


def test_find_a_draft_for_the_target_and_download_the_best_in_one_click(
    make_window: Callable[..., MainWindow],
    hub: FakeHub,
    tmp_path: Path,
    demo_pair: tuple[Path, Path],
    small_pair: tuple[Path, Path],
    qtbot: QtBot,
) -> None:
    tiny = copy_tokenizer(demo_pair[1], tmp_path / "tiny.gguf")
    hub.add_path("someone/Qwen2.5-Coder-Tiny-GGUF", "tiny-Q4_K_M.gguf", tiny)
    hub.add_path("someone/Qwen2.5-Coder-Smol-GGUF", "smol-Q4_0.gguf", small_pair[1])
    window = make_window()
    panel = window.discover
    panel.find_drafts()  # nothing chosen in the Model tab (its folder is empty here)
    assert panel.status.text() == "Choose a target model in the Model tab first."
    panel.find_drafts(demo_pair[0])
    qtbot.waitUntil(lambda: panel.drafts is not None, timeout=120_000)
    assert panel.table.rowCount() == 1
    assert panel.table.item(0, 0).text() == "someone/Qwen2.5-Coder-Tiny-GGUF/tiny-Q4_K_M.gguf"
    assert "predicted" in panel.table.item(0, 0).toolTip()
    assert panel.status.text().startswith("Best: someone/Qwen2.5-Coder-Tiny-GGUF/tiny-Q4_K_M.gguf: predicted")
    assert panel.status.text().endswith("; 1 incompatible")
    downloaded: list[Path] = []
    panel.downloaded.connect(downloaded.append)
    panel.best_button.click()
    qtbot.waitUntil(
        lambda: bool(downloaded) or (not panel.busy and "Downloaded" not in panel.status.text()), timeout=120_000
    )
    assert downloaded == [tmp_path / "models" / "tiny-Q4_K_M.gguf"]


def test_a_file_already_in_the_library_shows_on_disk_and_is_not_downloaded_again(
    make_window: Callable[..., MainWindow], hub: FakeHub, tmp_path: Path, qtbot: QtBot
) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    held = write_gguf(folder / "my-renamed-copy.gguf", name="Held Model")
    long_name = "a-model-with-a-very-long-name-that-cannot-fit-in-the-file-column-Q8_0.gguf"
    hub.add("org/Held-GGUF", long_name, held.read_bytes())
    same_size_other = bytearray(held.read_bytes())
    same_size_other[-1] ^= 0xFF  # the same size, another content: not on disk
    hub.add("org/Held-GGUF", "other-Q8_0.gguf", bytes(same_size_other))
    window = make_window()
    panel = window.discover
    window.resize(700, 700)
    panel.query.setText("held")
    hub.set_info("org/Held-GGUF", downloads=1, likes=1)
    panel.search()
    qtbot.waitUntil(lambda: panel.results.count() == 1, timeout=60_000)
    panel.results.setCurrentRow(0)
    qtbot.waitUntil(lambda: panel.table.rowCount() == 2, timeout=60_000)
    rows = {panel.table.item(r, 0).text(): r for r in range(2)}
    row = rows[long_name]
    label = panel.table.cellWidget(row, 0)
    assert isinstance(label, ElidedLabel) and label.full_text() == long_name and label.toolTip() == long_name
    button = panel.download_buttons()[row]
    assert button.text() == "On disk" and not button.isEnabled()
    assert button.toolTip() == "already on disk as my-renamed-copy.gguf"
    assert panel.download_buttons()[rows["other-Q8_0.gguf"]].text() == "Download"
    assert panel.status.text().endswith("; 1 already on disk")

    qtbot.waitUntil(lambda: all(panel.table.item(r, 1).text() != "…" for r in range(2)), timeout=60_000)
    gets = len(hub.gets())
    panel.download(f"org/Held-GGUF/{long_name}")
    assert not panel.busy
    assert panel.status.text() == f"org/Held-GGUF/{long_name}: already on disk as my-renamed-copy.gguf"
    assert len(hub.gets()) == gets  # nothing fetched
    assert sorted(p.name for p in folder.iterdir()) == ["my-renamed-copy.gguf"]
