"""Schema v1 to v2 on the committed v1 fixture: nothing lost, a copy kept, a kill -9 mid-migration harmless.

``tests/fixtures/conversations-v1.sqlite3`` was written by the v1 store
(``tests/fixtures/make_v1_database.py``). What the v2 store reads after
migrating is compared with what plain ``sqlite3`` reads from the untouched
fixture.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.core.reply.token_record import TokenRecord
from app.engine.store import conversations
from app.engine.store.conversations import ChatStore
from app.engine.store.database import Problem, StoreOpenError
from app.engine.store.migration import TEST_HOOK_PAUSE_ENV, schema_version
from app.engine.store.schema import SCHEMA_VERSION
from tests.engine import store_files
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
FIXTURE = ROOT / "tests" / "fixtures" / "conversations-v1.sqlite3"


def _plain_rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """The v1 columns of every row, read with plain sqlite3 (read-only)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {
            "conversations": db.execute("SELECT id, title, created, updated FROM conversations ORDER BY id").fetchall(),
            "messages": db.execute(
                "SELECT id, conversation_id, role, content, state, created, meta FROM messages ORDER BY id"
            ).fetchall(),
            "tokens": db.execute(
                "SELECT message_id, idx, text, origin, p_target, q_draft, rejected_text, rejected_p, rejected_q "
                "FROM tokens ORDER BY message_id, idx"
            ).fetchall(),
        }
    finally:
        db.close()


@pytest.fixture
def v1_file(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    shutil.copyfile(FIXTURE, path)
    return path


def test_fixture_is_a_v1_database():
    db = sqlite3.connect(f"file:{FIXTURE}?immutable=1", uri=True)  # no -wal/-shm beside the committed file
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
        columns = {r[1] for r in db.execute("PRAGMA table_info(messages)")}
        assert "parent_id" not in columns
    finally:
        db.close()


def test_migration_keeps_every_conversation_message_token_state_and_meta(v1_file):
    before = _plain_rows(v1_file)
    store = ChatStore(v1_file)
    try:
        assert store.migrated_from == v1_file.with_name("conversations.v1-backup.sqlite3")
        assert schema_version(store._db) == SCHEMA_VERSION
        assert store.integrity_check() == "ok"
        after = _plain_rows(v1_file)
        assert after["conversations"] == before["conversations"]
        assert after["tokens"] == before["tokens"]
        crashed = [m for m in before["messages"] if m[4] == conversations.STREAMING]
        assert len(crashed) == 1  # the fixture's reply cut by a crash
        for old, new in zip(before["messages"], after["messages"], strict=True):
            if old[4] == conversations.STREAMING:  # closed on open, as v1 did: text rebuilt from its tokens
                assert new[4] == conversations.INTERRUPTED and new[3] == "1, 2,"
                assert new[:3] == old[:3] and new[5:] == old[5:]
            else:
                assert new == old
        # The v2 view of the same rows: each conversation linear, in order, meta parsed, tokens exact.
        for cid, *_ in before["conversations"]:
            rows = [m for m in before["messages"] if m[1] == cid]
            stored = store.messages(cid)
            assert [m.id for m in stored] == [r[0] for r in rows]
            assert [m.parent_id for m in stored] == ([None] + [r[0] for r in rows[:-1]] if rows else [])
            assert [m.meta for m in stored] == [json.loads(r[6]) for r in rows]
            assert store.all_messages(cid) == stored
            for message in stored:
                tokens = [t for t in before["tokens"] if t[0] == message.id]
                assert [tuple(vars_of(t)) for t in message.tokens] == [t[2:] for t in tokens]
        unicode_chat = store.messages(2)
        assert unicode_chat[1].content == "東京の天気はどうですか？ مرحبا بالعالم 🎉 Crème brûlée"
        rejected = unicode_chat[2].tokens[1].rejected
        assert rejected is not None and rejected.text == "wrong" and unicode_chat[2].tokens[1].q_draft == 0.2
        fts = store._db.execute("SELECT COUNT(*) FROM messages_fts").fetchone()[0]
        assert fts == sum(1 for m in after["messages"] if m[3])
    finally:
        store.close()
    assert _plain_rows(store.migrated_from) == before  # the kept copy is the v1 file as it was


def vars_of(token: TokenRecord) -> tuple[object, ...]:
    rejected = token.rejected
    return (
        token.text,
        token.origin,
        token.p_target,
        token.q_draft,
        None if rejected is None else rejected.text,
        None if rejected is None else rejected.p_target,
        None if rejected is None else rejected.q_draft,
    )


def test_an_existing_backup_is_never_overwritten(v1_file):
    existing = v1_file.with_name("conversations.v1-backup.sqlite3")
    existing.write_bytes(b"the user's own file")
    store = ChatStore(v1_file)
    store.close()
    assert existing.read_bytes() == b"the user's own file"
    assert store.migrated_from == v1_file.with_name("conversations.v1-backup-2.sqlite3")
    assert _plain_rows(store.migrated_from)["messages"]


def test_a_migrated_file_opens_again_without_migrating(v1_file):
    ChatStore(v1_file).close()
    again = ChatStore(v1_file)
    try:
        assert again.migrated_from is None
        assert len(again.list_conversations()) == 5
    finally:
        again.close()
    assert not v1_file.with_name("conversations.v1-backup-2.sqlite3").exists()


def test_a_fresh_file_has_exactly_the_schema_of_a_migrated_one(tmp_path, v1_file):
    ChatStore(v1_file).close()
    fresh = tmp_path / "fresh" / "conversations.sqlite3"
    fresh.parent.mkdir()
    ChatStore(fresh).close()

    def schema(path: Path) -> list[tuple[str, str]]:
        db = sqlite3.connect(path)
        try:
            return db.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
        finally:
            db.close()

    assert schema(fresh) == schema(v1_file)
    assert not list(fresh.parent.glob("*backup*"))  # nothing to keep from an empty file


def test_read_only_open_of_a_v1_file_reads_it_without_migrating(v1_file):
    before = v1_file.read_bytes()
    store = ChatStore(v1_file, read_only=True)
    try:
        listed = store.list_conversations()
        assert len(listed) == 5 and not any(c.pinned for c in listed)
        greetings = store.messages(1)
        assert [m.content for m in greetings] == [
            "Say hello in three words.",
            "Hello there, friend!\n",
            "And in French?",
            "Bonjour à toi",
        ]
        assert greetings[1].parent_id == greetings[0].id and store.siblings(greetings[1].id) == [greetings[1].id]
        crashed = store.messages(4)[-1]
        assert crashed.state == conversations.STREAMING and crashed.content == "1, 2,"  # rebuilt, not written
        assert store.conversation_settings(1) == {} and store.presets() == {}
    finally:
        store.close()
    assert v1_file.read_bytes() == before
    assert not list(v1_file.parent.glob("*backup*"))


def test_a_file_from_a_newer_tandem_is_refused_in_one_line(v1_file):
    db = sqlite3.connect(v1_file)
    db.execute("PRAGMA user_version=7")
    db.close()
    with pytest.raises(StoreOpenError) as caught:
        ChatStore(v1_file)
    assert caught.value.problem is Problem.DAMAGED
    assert "newer Tandem" in str(caught.value) and "\n" not in str(caught.value)


_OPEN_FOR_WRITING = (
    "import sys; from pathlib import Path; from app.engine.store.conversations import ChatStore; "
    "ChatStore(Path(sys.argv[1]))"
)


def test_kill_9_inside_the_migration_leaves_v1_and_the_next_open_migrates(v1_file, tmp_path):
    before = _plain_rows(v1_file)
    marker = tmp_path / "inside-migration"
    child = subprocess.Popen(
        [sys.executable, "-c", _OPEN_FOR_WRITING, str(v1_file)],
        cwd=ROOT,
        env={**os.environ, TEST_HOOK_PAUSE_ENV: str(marker)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the migration never reached its transaction"
            time.sleep(0.05)
        # Inside the transaction: the schema is already altered, the FTS index built, user_version set, uncommitted.
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    db = sqlite3.connect(v1_file)  # a plain open rolls the hot journal back
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert "parent_id" not in {r[1] for r in db.execute("PRAGMA table_info(messages)")}
    finally:
        db.close()
    assert _plain_rows(v1_file) == before
    store = ChatStore(v1_file)
    try:
        assert schema_version(store._db) == SCHEMA_VERSION
        assert store.migrated_from is not None and store.migrated_from.name == "conversations.v1-backup-2.sqlite3"
        assert [m.content for m in store.messages(1)][-1] == "Bonjour à toi"
    finally:
        store.close()


@pytest.mark.skipif(not store_files.can_mount(), reason="needs a real small filesystem: root with mount rights")
def test_no_room_for_the_copy_leaves_the_v1_file_and_no_partial_copy(tmp_path):
    with store_files.tmpfs(tmp_path / "small", "256k") as folder:
        path = folder / "conversations.sqlite3"
        shutil.copyfile(FIXTURE, path)
        before = _plain_rows(path)
        filler = store_files.fill(folder)
        with pytest.raises(StoreOpenError) as caught:
            ChatStore(path)
        assert "\n" not in str(caught.value)
        assert sorted(p.name for p in folder.iterdir() if "backup" in p.name) == []
        assert _plain_rows(path) == before
        filler.unlink()
        store = ChatStore(path)  # with room again it migrates
        try:
            assert store.migrated_from is not None and store.migrated_from.is_file()
            assert schema_version(store._db) == SCHEMA_VERSION
        finally:
            store.close()
