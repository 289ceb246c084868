"""The Hugging Face token on the wire, against the stand-in Hub: none, the saved one, HF_TOKEN, a bad one.

A gated file is answered 401 without a token and 200 with the right
``Authorization: Bearer`` header; the saved token lives where the remote servers'
keys live (here the 0600 file: the keyring is the one that refuses everything).
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest

from app.cli import main
from app.engine.hub.auth import TOKEN_PLACES
from app.engine.models.hub_token import hub_token
from app.engine.models.library import DownloadError, download_hub_file, list_repo_models, search_hub
from app.engine.remote.credentials import HUB_TOKEN_ENTRY, KEY_FILE, CredentialStore
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
        monkeypatch.setenv("TANDEM_DATA_DIR", str(tmp_path / "data"))
        monkeypatch.setenv("TANDEM_MODELS_DIR", str(tmp_path / "models"))
        monkeypatch.setattr(keyring, "get_keyring", lambda: keyring.backends.fail.Keyring())
        state.add(REPO, FILE, write_gguf(tmp_path / "m.gguf", name="Gated").read_bytes())
        state.gated[REPO] = RIGHT
        state.tokens = {RIGHT, "hf_someone_else"}
        yield state


def _sent(hub: FakeHub) -> list[str | None]:
    return [r.headers.get("authorization") for r in hub.log]


def test_a_gated_file_is_401_without_a_token_and_the_message_says_where_to_put_one(hub: FakeHub) -> None:
    with pytest.raises(DownloadError) as refused:
        download_hub_file(f"{REPO}/{FILE}", None)
    text = str(refused.value)
    assert f"{REPO} is gated: accept its licence at {hub.url}/{REPO}" in text
    assert TOKEN_PLACES in text and "the Hub answered 401: Access to model" in text
    assert set(_sent(hub)) == {None}


def test_the_saved_token_is_sent_as_bearer_and_the_file_arrives(hub: FakeHub, tmp_path: Path) -> None:
    store = CredentialStore()
    store.save_hub_token(f"  {RIGHT}\n")  # pasted with blanks around it
    key_file = tmp_path / "data" / KEY_FILE
    assert json.loads(key_file.read_text()) == {HUB_TOKEN_ENTRY: RIGHT}
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    path = download_hub_file(f"{REPO}/{FILE}", None)
    assert path == tmp_path / "models" / FILE and path.read_bytes()[:4] == b"GGUF"
    assert set(_sent(hub)) == {f"Bearer {RIGHT}"}
    assert [m.filename for m in list_repo_models(REPO)] == [FILE]


def test_a_token_the_hub_does_not_know_is_called_invalid_in_the_hubs_words(hub: FakeHub) -> None:
    CredentialStore().save_hub_token("hf_typo")
    with pytest.raises(DownloadError, match=r"refused the Hugging Face token as invalid \(the Hub answered 401: "
                                            r"Invalid credentials in Authorization header\)"):  # fmt: skip
        download_hub_file(f"{REPO}/{FILE}", None)
    with pytest.raises(DownloadError, match="refused the Hugging Face token as invalid"):
        search_hub("gated")  # search is refused the same way


def test_a_valid_token_not_granted_the_model_is_403_not_granted(hub: FakeHub) -> None:
    CredentialStore().save_hub_token("hf_someone_else")
    with pytest.raises(DownloadError, match=r"the token given was not granted access \(the Hub answered 403: "):
        download_hub_file(f"{REPO}/{FILE}", None)


def test_given_then_hf_token_then_saved(hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> None:
    assert hub_token() is None
    CredentialStore().save_hub_token("hf_saved")
    assert hub_token() == "hf_saved"
    monkeypatch.setenv("HF_TOKEN", "hf_env")
    assert hub_token() == "hf_env"
    assert hub_token("hf_given") == "hf_given"
    CredentialStore().save_hub_token("")  # an empty field forgets the saved one
    monkeypatch.delenv("HF_TOKEN")
    assert hub_token() is None


def test_models_download_uses_hf_token_and_the_saved_token(
    hub: FakeHub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "download", f"{REPO}/{FILE}"]) != 0
    assert "is gated" in capsys.readouterr().err
    monkeypatch.setenv("HF_TOKEN", RIGHT)
    assert main(["models", "download", f"{REPO}/{FILE}"]) == 0
    assert f"downloaded: {tmp_path / 'models' / FILE}" in capsys.readouterr().out
    (tmp_path / "models" / FILE).unlink()
    monkeypatch.delenv("HF_TOKEN")
    CredentialStore().save_hub_token(RIGHT)
    assert main(["models", "download", f"{REPO}/{FILE}"]) == 0
    assert _sent(hub)[-1] == f"Bearer {RIGHT}"
