"""The window's Hugging Face token field: saved where the remote keys are, and used by Discover, on the stand-in Hub."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest
from pytestqt.qtbot import QtBot

from app.engine.remote.credentials import HUB_TOKEN_ENTRY, KEY_FILE, CredentialStore
from app.ui.main_window import MainWindow
from app.ui.settings.hub_token_box import HubTokenBox
from tests.engine.hub_server import FakeHub, running_hub
from tests.engine.model_files import write_gguf

REPO = "meta-test/Gated-GGUF"
FILE = "gated-q8_0.gguf"
RIGHT = "hf_right_token"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeHub]:
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        monkeypatch.setenv("HOME", str(tmp_path))  # no huggingface-cli login token
        monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
        monkeypatch.setenv("TANDEM_MODELS_DIR", str(tmp_path / "models"))
        # No system keyring: the token goes to the 0600 file in the test's data folder.
        monkeypatch.setattr(keyring, "get_keyring", lambda: keyring.backends.fail.Keyring())
        state.add(REPO, FILE, write_gguf(tmp_path / "m.gguf", name="Gated").read_bytes())
        state.set_info(REPO, downloads=10, gated="manual")
        state.gated[REPO] = RIGHT
        state.tokens = {RIGHT}
        yield state


def test_the_field_saves_and_forgets_the_token_in_the_key_file(qtbot, hub: FakeHub, data_dir: Path) -> None:
    box = HubTokenBox()
    qtbot.addWidget(box)
    box.show()
    assert "No token saved" in box.status.text() and not box.forget_button.isEnabled()
    box.field.setText(RIGHT)
    box.save_button.click()
    key_file = data_dir / KEY_FILE
    assert json.loads(key_file.read_text()) == {HUB_TOKEN_ENTRY: RIGHT}
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert box.field.text() == "" and str(key_file) in box.status.text() and box.forget_button.isEnabled()
    assert RIGHT not in box.status.text()  # never shown back
    box.forget_button.click()
    assert CredentialStore().hub_token() is None and "No token saved" in box.status.text()


def test_discover_lists_a_gated_repo_once_the_token_is_saved_in_settings(
    make_window: Callable[..., MainWindow], hub: FakeHub, qtbot: QtBot
) -> None:
    window = make_window()
    panel = window.discover
    panel.query.setText("gated")
    panel.search()
    qtbot.waitUntil(lambda: panel.results.count() == 1, timeout=60_000)
    panel.results.setCurrentRow(0)
    qtbot.waitUntil(lambda: "is gated" in panel.status.text(), timeout=60_000)
    assert "Settings → Hugging Face token" in panel.status.text() and "the Hub answered 401" in panel.status.text()
    assert panel.table.rowCount() == 0

    box = window.settings_panel.hub_token
    box.field.setText(RIGHT)
    box.save_button.click()
    panel.results.setCurrentRow(-1)
    panel.results.setCurrentRow(0)
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1, timeout=60_000)
    assert panel.table.item(0, 0).text() == FILE
    assert hub.log[-1].headers.get("authorization") == f"Bearer {RIGHT}"
