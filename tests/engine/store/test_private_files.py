"""The chat database, its WAL, shared-memory and lock files, and the API key file are this user's only (os.stat).

Real files: a real SQLite database opened by the store, written so SQLite
makes its ``-wal`` and ``-shm`` files, and the key file the credential store
writes. Each is checked new (created 0600) and old (an older Tandem's 0644,
tightened when opened).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.engine.remote.credentials import KEY_FILE, CredentialStore
from app.engine.store.conversations import ChatStore
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")
ROOT = REPO_ROOT


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The common 022, so that a file left to the default would be readable by others and the test would see it."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _database_files(path: Path) -> list[Path]:
    return [path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", ".lock"))]


def _write_some(store: ChatStore) -> None:
    chat = store.create_conversation("private")
    store.add_message(chat, "user", "nobody else reads this")


def test_a_new_database_and_its_companions_are_0600_in_a_0700_folder(tmp_path: Path) -> None:
    folder = tmp_path / "made-by-tandem"
    path = folder / "conversations.sqlite3"
    store = ChatStore(path)
    try:
        _write_some(store)
        files = _database_files(path)
        assert all(f.exists() for f in files), [f.name for f in files if not f.exists()]
        assert {f.name: _mode(f) for f in files} == {f.name: 0o600 for f in files}
    finally:
        store.close()
    assert _mode(folder) == 0o700


def test_an_older_databases_loose_files_are_tightened_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    store = ChatStore(path)
    _write_some(store)
    files = _database_files(path)
    for f in files:  # what an older Tandem left: the umask's 0644 (the WAL and lock are kept after close)
        if f.exists():
            os.chmod(f, 0o644)
    store.close()
    reopened = ChatStore(path)
    try:
        _write_some(reopened)
        assert {f.name: _mode(f) for f in files if f.exists()} == {f.name: 0o600 for f in files if f.exists()}
        assert len(reopened.list_conversations()) == 2  # tightening changed the modes, not the data
    finally:
        reopened.close()


def test_the_data_folder_is_made_0700(tmp_path: Path) -> None:
    folder = tmp_path / "fresh" / "Tandem"
    made = subprocess.run(
        [sys.executable, "-c", "from app.engine.paths import data_dir; print(data_dir())"],
        cwd=ROOT,
        env={**os.environ, "TANDEM_DATA_DIR": str(folder)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert Path(made.stdout.strip()) == folder and _mode(folder) == 0o700


def test_the_key_file_is_0600_and_tightened_when_read(tmp_path: Path) -> None:
    folder = tmp_path / "keys-here"
    store = CredentialStore(folder, system=False)  # the file, whatever keyring this machine has
    store.save("http://gpu-box:8080/v1", "secret")
    path = folder / KEY_FILE
    assert _mode(path) == 0o600 and _mode(folder) == 0o700
    os.chmod(path, 0o644)  # copied from a backup, or edited by hand
    assert CredentialStore(folder, system=False).load("http://gpu-box:8080/v1") == "secret"
    assert _mode(path) == 0o600


def test_the_migration_backup_and_a_recovered_database_are_0600_too(tmp_path: Path) -> None:
    import shutil

    from app.engine.store.recovery import recover_in_place
    from tests.engine import store_files

    v1 = tmp_path / "old" / "conversations.sqlite3"
    v1.parent.mkdir()
    shutil.copyfile(ROOT / "tests" / "fixtures" / "conversations-v1.sqlite3", v1)
    os.chmod(v1, 0o644)  # as an older Tandem left it
    ChatStore(v1).close()  # migrates in place, after a copy of the old file
    backups = list(v1.parent.glob("*.v1-backup*"))
    assert backups and {b.name: _mode(b) for b in backups} == {b.name: 0o600 for b in backups}

    damaged = tmp_path / "damaged" / "conversations.sqlite3"
    damaged.parent.mkdir()
    store = ChatStore(damaged)
    _write_some(store)
    store.close()
    store_files.destroy_header(damaged)
    recover_in_place(damaged)
    assert _mode(damaged) == 0o600
