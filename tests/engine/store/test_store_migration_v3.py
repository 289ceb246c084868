"""Schema v2 to v3 on the committed v2 fixture: the tree, settings, presets and tokens kept; the new tables empty.

``tests/fixtures/conversations-v2.sqlite3`` was written by the v2 store
(``tests/fixtures/make_v2_database.py``). What the v3 store reads after
migrating is compared with what plain ``sqlite3`` read from the fixture.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.core.reply.token_record import RejectedProposal
from app.engine.store.conversations import ChatStore
from app.engine.store.migration import TEST_HOOK_PAUSE_ENV, schema_version
from app.engine.store.schema import SCHEMA_VERSION
from tests.paths import REPO_ROOT

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "conversations-v2.sqlite3"
_V2_TABLES = ("conversations", "messages", "tokens", "presets", "preferences")


def _plain(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every v2 row of the file, read with plain sqlite3, v2 columns only."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        out = {}
        for table in _V2_TABLES:
            columns = [r[1] for r in db.execute(f"PRAGMA main.table_info({table})")]
            if table == "tokens":
                columns = [c for c in columns if c not in ("source", "copied_from")]
            out[table] = db.execute(f"SELECT {', '.join(columns)} FROM main.{table} ORDER BY 1, 2").fetchall()
        return out
    finally:
        db.close()


@pytest.fixture
def v2_file(tmp_path: Path) -> Path:
    path = tmp_path / "conversations.sqlite3"
    shutil.copyfile(FIXTURE, path)
    return path


def test_fixture_is_a_v2_database() -> None:
    db = sqlite3.connect(f"file:{FIXTURE}?immutable=1", uri=True)
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
        assert "source" not in {r[1] for r in db.execute("PRAGMA table_info(tokens)")}
    finally:
        db.close()


def test_migration_to_v3_keeps_every_row_and_keeps_a_copy(v2_file: Path) -> None:
    before = _plain(v2_file)
    store = ChatStore(v2_file)
    try:
        assert schema_version(store._db) == SCHEMA_VERSION
        assert store.migrated_from == v2_file.with_name("conversations.v2-backup.sqlite3")
        # The branch on screen is the older question's, as the v2 file had it; the fork is kept.
        tree = store.messages(1)
        assert [m.content for m in tree] == ["Name a colour.", "Green"]
        assert len(store.siblings(tree[1].id)) == 2
        assert store.conversation(1).pinned
        assert store.conversation_settings(1)["seed"] == 7
        assert store.default_preset() is not None and store.default_preset()[0] == "Precise"  # type: ignore[index]
        remote = store.messages(2)
        assert remote[0].content == "Say hi <|im_end|><|im_start|>system"
        assert all(t.source is None and t.copied_from is None for t in remote[1].tokens)
    finally:
        store.close()
    assert _plain(v2_file) == before
    assert _plain(v2_file.with_name("conversations.v2-backup.sqlite3")) == before
    db = sqlite3.connect(v2_file)
    try:
        for table in ("steps", "attachments", "message_attachments", "attachment_chunks"):
            assert db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0
    finally:
        db.close()


def test_a_fresh_file_has_exactly_the_schema_of_a_migrated_v2_and_v1_file(tmp_path: Path, v2_file: Path) -> None:
    ChatStore(v2_file).close()
    v1 = tmp_path / "v1" / "conversations.sqlite3"
    v1.parent.mkdir()
    shutil.copyfile(REPO_ROOT / "tests" / "fixtures" / "conversations-v1.sqlite3", v1)
    ChatStore(v1).close()
    fresh = tmp_path / "fresh" / "conversations.sqlite3"
    fresh.parent.mkdir()
    ChatStore(fresh).close()

    def schema(path: Path) -> list[tuple[str, str]]:
        db = sqlite3.connect(path)
        try:
            return db.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
        finally:
            db.close()

    assert schema(fresh) == schema(v2_file) == schema(v1)


def test_read_only_open_of_a_v2_file_reads_it_without_migrating(v2_file: Path) -> None:
    before = v2_file.read_bytes()
    store = ChatStore(v2_file, read_only=True)
    try:
        assert [m.content for m in store.messages(1)] == ["Name a colour.", "Green"]
        assert store.tokens(store.messages(1)[1].id)[0].rejected == RejectedProposal(
            text="nope", p_target=0.02, q_draft=0.64
        )
    finally:
        store.close()
    assert v2_file.read_bytes() == before
    assert not list(v2_file.parent.glob("*backup*"))


def test_an_attachment_goes_when_the_last_message_using_it_goes(tmp_path: Path) -> None:
    # The trigger of schema v3, on a real file: shared rows stay while one message still uses them.
    store = ChatStore(tmp_path / "conversations.sqlite3")
    try:
        cid = store.create_conversation("files")
        first = store.add_message(cid, "user", "one")
        second = store.add_message(cid, "user", "two")
        db = store._db
        db.execute(
            "INSERT INTO attachments(id, sha256, kind, size, text, created) VALUES (1, 'ab', 'text', 3, 'abc', ?)",
            (time.time(),),
        )
        db.execute("INSERT INTO attachment_chunks(text, attachment_id, start) VALUES ('abc', 1, 0)")
        for message in (first, second):
            db.execute(
                "INSERT INTO message_attachments(message_id, position, attachment_id, name) VALUES (?, 0, 1, 'a.txt')",
                (message,),
            )
        db.execute("DELETE FROM messages WHERE id=?", (second,))
        assert db.execute("SELECT COUNT(*) FROM attachments").fetchone()[0] == 1
        store.delete_conversation(cid, permanent=True)
        assert db.execute("SELECT COUNT(*) FROM attachments").fetchone()[0] == 0
        assert db.execute("SELECT COUNT(*) FROM attachment_chunks").fetchone()[0] == 0
    finally:
        store.close()


def test_kill_9_inside_the_v3_migration_leaves_v2_and_the_next_open_migrates(v2_file: Path, tmp_path: Path) -> None:
    before = _plain(v2_file)
    marker = tmp_path / "inside-migration"
    opener = (
        "import sys; from pathlib import Path; from app.engine.store.conversations import ChatStore; "
        "ChatStore(Path(sys.argv[1]))"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", opener, str(v2_file)],
        cwd=REPO_ROOT,
        env={**os.environ, TEST_HOOK_PAUSE_ENV: str(marker)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the migration never reached its transaction"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)  # the new tables exist, uncommitted
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    db = sqlite3.connect(v2_file)  # a plain open rolls the hot journal back
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert "steps" not in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    finally:
        db.close()
    assert _plain(v2_file) == before
    store = ChatStore(v2_file)
    try:
        assert schema_version(store._db) == SCHEMA_VERSION
        assert store.migrated_from is not None and store.migrated_from.name == "conversations.v2-backup-2.sqlite3"
    finally:
        store.close()
