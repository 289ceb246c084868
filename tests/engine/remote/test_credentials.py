"""Where the remote server's API key is kept: a real keyring backend, or the 0600 file in the data folder."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import keyring
import keyring.backends.fail
import keyring.backends.SecretService
import pytest
from keyrings.alt.file import PlaintextKeyring

from app.core.errors import TandemError
from app.engine.remote.credentials import KEY_FILE, SERVICE, CredentialStore, is_system_keyring, system_keyring

URL = "http://gpu-box:8080/v1"


def test_only_platform_stores_count_as_a_system_keyring() -> None:
    assert is_system_keyring(keyring.backends.SecretService.Keyring())
    assert not is_system_keyring(keyring.backends.fail.Keyring())  # what keyring picks without a Secret Service
    assert not is_system_keyring(PlaintextKeyring())  # a plain-text file elsewhere is no keyring


def test_without_a_keyring_the_key_goes_to_a_file_only_its_owner_can_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyring, "get_keyring", lambda: keyring.backends.fail.Keyring())
    assert system_keyring() is None
    store = CredentialStore(tmp_path)
    assert not store.uses_keyring
    assert str(tmp_path / KEY_FILE) in store.where and "no system keyring" in store.where
    store.save(URL, "secret-1")
    store.save("http://other:1/v1", "secret-2")
    path = tmp_path / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {URL: "secret-1", "http://other:1/v1": "secret-2"}
    assert CredentialStore(tmp_path).load(URL) == "secret-1"  # a new store (a restart) reads it back
    assert not [p for p in tmp_path.iterdir() if p.name != KEY_FILE]  # no temporary file left behind
    store.forget(URL)
    assert store.load(URL) is None and store.load("http://other:1/v1") == "secret-2"
    store.save("http://other:1/v1", "")  # an empty key forgets
    assert json.loads(path.read_text()) == {}


def test_a_damaged_key_file_is_one_clear_error_and_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE
    path.write_text("{not json")
    store = CredentialStore(tmp_path, system=False)
    with pytest.raises(TandemError, match="cannot be read"):
        store.load(URL)
    with pytest.raises(TandemError, match="cannot be read"):
        store.save(URL, "k")
    assert path.read_text() == "{not json"


def test_with_a_keyring_the_key_goes_there_and_not_to_the_file(tmp_path: Path) -> None:
    backend = PlaintextKeyring()  # keyring's maintainers' own file backend, kept in the test's folder
    backend.file_path = str(tmp_path / "keyring.cfg")  # type: ignore[misc]
    store = CredentialStore(tmp_path, backend)
    assert store.uses_keyring and "keyring" in store.where
    store.save(URL, "secret-1")
    assert backend.get_password(SERVICE, URL) == "secret-1"
    assert CredentialStore(tmp_path, backend).load(URL) == "secret-1"
    assert not (tmp_path / KEY_FILE).exists()
    store.forget(URL)
    store.forget(URL)  # forgetting twice is fine
    assert backend.get_password(SERVICE, URL) is None


def test_a_keyring_that_refuses_is_one_clear_error(tmp_path: Path) -> None:
    store = CredentialStore(tmp_path, keyring.backends.fail.Keyring())
    with pytest.raises(TandemError, match="system keyring"):
        store.save(URL, "k")
