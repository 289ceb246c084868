"""The chat store under faults, on real files: damaged databases, full disks, a second writer, a crash mid-reply.

Each damaged file is a real database written by the store, then edited byte
by byte; the original's bytes are checked unchanged after every attempt to
open or recover it. Full disks are a real size-limited tmpfs where the
machine allows mounting, and SQLite's own limit (``max_page_count``) always.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.core.reply.token_record import TokenRecord
from app.engine.store import conversations
from app.engine.store.conversations import ChatStore, default_path
from app.engine.store.database import Problem, StoreOpenError, StoreWriteError
from app.engine.store.recovery import recover_in_place
from tests.engine import store_files
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (store_files.truncate, "cut short"),
        (store_files.garbage_pages, "malformed"),
        (store_files.destroy_header, "header is destroyed"),
    ],
    ids=["truncated", "garbage-pages", "destroyed-header"],
)
def test_damaged_file_is_reported_never_modified_and_recovered(tmp_path, damage, expected):
    path = tmp_path / "conversations.sqlite3"
    texts = store_files.build(path)
    damage(path)
    before = store_files.digest(path)

    with pytest.raises(StoreOpenError) as caught:
        ChatStore(path)
    assert caught.value.problem is Problem.DAMAGED
    assert expected in str(caught.value) and "\n" not in str(caught.value)
    assert store_files.digest(path) == before, "opening must not write to a damaged file"

    report = recover_in_place(path)
    assert report.damaged_copy is not None and store_files.digest(report.damaged_copy) == before
    store = ChatStore(path)  # the recovered file is sound
    try:
        assert store.integrity_check() == "ok"
        assert report.conversations >= 1 and report.messages >= 1
        recovered = {c.id for c in store.list_conversations()}
        assert recovered <= set(texts)
        # Every reply that came back is a prefix-faithful copy: its tokens spell its text.
        for cid in recovered:
            for message in store.messages(cid):
                if message.role == "assistant" and message.tokens:
                    assert message.content.startswith("".join(t.text for t in message.tokens)[:20])
    finally:
        store.close()
    if damage is store_files.destroy_header:
        # Only the header was lost: everything behind it comes back.
        assert report.messages == sum(2 * len(v) for v in texts.values())
        assert report.tokens == sum(len(v) for v in texts.values()) * store_files.REPLY_TOKENS


def test_silent_page_damage_in_one_reply_is_reported_not_shown_cut_short(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    store_files.build(path, conversations=1, replies=1)
    # A leaf page in the middle of the reply's tokens.
    store_files.garbage_pages(path)
    with pytest.raises(StoreOpenError) as caught:
        ChatStore(path)
    assert caught.value.problem is Problem.DAMAGED
    report = recover_in_place(path)
    assert 0 < report.tokens < store_files.REPLY_TOKENS and report.unreadable >= 1
    assert f"{report.tokens} tokens" in report.summary() and "unreadable" in report.summary()


def test_a_folder_in_the_database_place_and_an_unusable_data_folder(tmp_path, monkeypatch):
    path = tmp_path / "conversations.sqlite3"
    path.mkdir()
    with pytest.raises(StoreOpenError) as caught:
        ChatStore(path)
    assert caught.value.problem is Problem.NOT_A_FILE
    assert path.is_dir()

    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("x")
    monkeypatch.setenv("TANDEM_DATA_DIR", str(not_a_folder / "data"))
    with pytest.raises(StoreOpenError) as caught:
        ChatStore(default_path())
    assert caught.value.problem is Problem.UNUSABLE_FOLDER
    assert "TANDEM_DATA_DIR" in str(caught.value)


@pytest.mark.skipif(not store_files.can_mount(), reason="needs a read-only filesystem: root with mount rights")
def test_read_only_file_system_opens_read_only_and_refuses_writes_in_plain_words(tmp_path):
    with store_files.tmpfs(tmp_path / "ro", "2m") as folder:
        path = folder / "conversations.sqlite3"
        texts = store_files.build(path, conversations=1, replies=1)
        before = store_files.digest(path)
        store_files.remount_read_only(folder)
        with pytest.raises(StoreOpenError) as caught:
            ChatStore(path)
        assert caught.value.problem is Problem.READ_ONLY
        store = ChatStore(path, read_only=True)
        try:
            (cid,) = texts
            assert store.messages(cid)[1].content == texts[cid][0]
            with pytest.raises(StoreWriteError, match="read-only"):
                store.add_message(cid, "user", "more")
        finally:
            store.close()
        assert store_files.digest(path) == before


def test_read_only_file_by_permissions_is_reported(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes through permissions; the tmpfs test covers read-only files")
    path = tmp_path / "conversations.sqlite3"
    store_files.build(path, conversations=1, replies=1)
    path.chmod(0o444)
    with pytest.raises(StoreOpenError) as caught:
        ChatStore(path)
    assert caught.value.problem is Problem.READ_ONLY


def _stored_reply(store: ChatStore) -> tuple[int, int]:
    cid = store.create_conversation("full")
    store.add_message(cid, "user", "go")
    return cid, store.begin_reply(cid)


def test_full_database_raises_a_plain_error_and_loses_nothing_once_there_is_room(tmp_path):
    store = ChatStore(tmp_path / "conversations.sqlite3")
    try:
        cid, reply = _stored_reply(store)
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        # SQLite's own full-disk error: the file may not grow past its current size.
        store._db.execute(f"PRAGMA max_page_count={pages}")
        tokens = [TokenRecord(text=f" t{i}" * 20, origin="target", p_target=0.5) for i in range(400)]
        with pytest.raises(StoreWriteError) as caught:
            store.append_tokens(reply, tokens)
        assert caught.value.kind == "full"
        assert "full" in str(caught.value) and "more is needed" in str(caught.value)
        assert store.tokens(reply) == []  # all or nothing: the batch is still the caller's
        store._db.execute("PRAGMA max_page_count=1073741823")
        store.append_tokens(reply, tokens)
        store.finish_reply(reply, "".join(t.text for t in tokens))
        assert len(store.tokens(reply)) == 400
        assert store.messages(cid)[1].state == conversations.DONE
    finally:
        store.close()


@pytest.mark.skipif(not store_files.can_mount(), reason="needs a real small filesystem: root with mount rights")
def test_real_full_disk_says_how_much_is_free_and_recovers(tmp_path):
    with store_files.tmpfs(tmp_path / "small", "1m") as folder:
        store = ChatStore(folder / "conversations.sqlite3")
        try:
            _, reply = _stored_reply(store)
            filler = store_files.fill(folder)
            tokens = [TokenRecord(text=f" t{i}" * 50, origin="target", p_target=0.5) for i in range(300)]
            with pytest.raises(StoreWriteError) as caught:
                store.append_tokens(reply, tokens)
            assert caught.value.kind == "full"
            assert "free on its disk" in str(caught.value)
            filler.unlink()
            store.append_tokens(reply, tokens)
            assert len(store.tokens(reply)) == 300
        finally:
            store.close()


_WRITER = textwrap.dedent(
    """
    import json, os, sys, time
    from pathlib import Path
    from app.core.reply.token_record import TokenRecord
    from app.engine.store.conversations import ChatStore
    store = ChatStore(Path(sys.argv[1]))
    cid = store.create_conversation("live")
    store.add_message(cid, "user", "first question")
    reply = store.begin_reply(cid)
    store.append_tokens(
        reply,
        [
            TokenRecord(text="Half ", origin="draft", p_target=0.9, q_draft=0.8),
            TokenRecord(text="a reply", origin="target", p_target=0.7),
        ],
    )
    print(json.dumps({"conversation": cid, "reply": reply}), flush=True)
    if sys.argv[2] == "die":
        os._exit(9)  # no finish, no close: the process dies mid-reply
    sys.stdin.readline()  # stay alive (holding the lock) until the test says
    """
)


def _writer(path: Path, mode: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path), mode],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_second_store_cannot_write_and_leaves_the_live_reply_alone(tmp_path):
    import json

    path = tmp_path / "conversations.sqlite3"
    first = _writer(path, "live")
    try:
        assert first.stdout is not None
        ids = json.loads(first.stdout.readline())
        with pytest.raises(StoreOpenError) as caught:
            ChatStore(path)
        assert caught.value.problem is Problem.IN_USE
        second = ChatStore(path, read_only=True)
        try:
            messages = second.messages(ids["conversation"])
            assert messages[1].state == conversations.STREAMING  # not marked "interrupted" under the writer
            assert messages[1].content == "Half a reply"
        finally:
            second.close()
    finally:
        first.communicate("\n", timeout=60)
    assert first.returncode == 0
    # The writer has gone: the lock went with it.
    ChatStore(path).close()


def test_interrupted_reply_is_rebuilt_once_on_open_for_history_and_export(tmp_path):
    import json

    path = tmp_path / "conversations.sqlite3"
    writer = _writer(path, "die")
    out, _ = writer.communicate(timeout=60)
    assert writer.returncode == 9
    ids = json.loads(out.splitlines()[0])
    store = ChatStore(path)
    try:
        stored = store._db.execute("SELECT state, content FROM messages WHERE id=?", (ids["reply"],)).fetchone()
        assert tuple(stored) == (conversations.INTERRUPTED, "Half a reply")  # written back, not only shown
        messages = store.messages(ids["conversation"], with_tokens=False)
        assert [(m.role, m.content) for m in messages] == [("user", "first question"), ("assistant", "Half a reply")]
        markdown = store.export_markdown(ids["conversation"])
        assert "### Assistant _(interrupted)_\n\nHalf a reply\n" in markdown
    finally:
        store.close()


def test_finished_reply_reaches_the_main_file_without_waiting_for_close(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    store = ChatStore(path)
    try:
        _, reply = _stored_reply(store)
        store.append_tokens(reply, [TokenRecord(text="kept", origin="target", p_target=1.0)])
        store.finish_reply(reply, "kept in the main file")
        # What a crash now would leave, without the -wal file: the main file alone.
        alone = tmp_path / "alone.sqlite3"
        alone.write_bytes(path.read_bytes())
        db = sqlite3.connect(alone)
        try:
            contents = [row[0] for row in db.execute("SELECT content FROM messages ORDER BY id")]
        finally:
            db.close()
        assert contents == ["go", "kept in the main file"]
    finally:
        store.close()


def test_recovery_reads_what_a_crash_left_only_in_the_wal(tmp_path):
    import json

    path = tmp_path / "conversations.sqlite3"
    writer = _writer(path, "die")  # dies mid-reply: nothing checkpointed, the chat lives in the -wal
    out, _ = writer.communicate(timeout=60)
    assert writer.returncode == 9
    ids = json.loads(out.splitlines()[0])
    assert path.with_name(path.name + "-wal").stat().st_size > 0
    store_files.destroy_header(path)
    with pytest.raises(StoreOpenError):
        ChatStore(path)
    report = recover_in_place(path)
    assert (report.conversations, report.messages, report.tokens) == (1, 2, 2)
    store = ChatStore(path)
    try:
        assert store.messages(ids["conversation"])[1].content == "Half a reply"
    finally:
        store.close()
