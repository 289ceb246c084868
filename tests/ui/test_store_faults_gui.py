"""The window with a chat database that fails: it always opens, says what is wrong, and loses nothing.

Real damaged files, real full filesystems (a tmpfs, where the machine allows
mounting; SQLite's ``max_page_count`` otherwise), a real second process, and
real replies from the SmolLM2 pair.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.reply.record import STORE_ERROR_REASON
from app.engine.store import conversations
from app.engine.store.conversations import ChatStore
from app.ui.chat.controller import Activity, view_message
from tests.engine import store_files
from tests.paths import REPO_ROOT
from tests.ui.helpers import load, pair_choice, send

ROOT = REPO_ROOT
_NO_LIMIT = 1073741823


def _database(data_dir: Path) -> Path:
    return data_dir / "conversations.sqlite3"


@pytest.mark.parametrize(
    "damage",
    [store_files.truncate, store_files.garbage_pages, store_files.destroy_header],
    ids=["truncated", "garbage-pages", "destroyed-header"],
)
def test_window_opens_on_a_damaged_database_and_recovers_it(make_window, data_dir, damage):
    path = _database(data_dir)
    texts = store_files.build(path)
    damage(path)
    before = store_files.digest(path)

    window = make_window()
    assert window.notice.isVisible()
    assert "damaged" in window.notice.text.text()
    assert set(window.notice.buttons) == {
        "Recover what can be read",
        "Move it aside and start fresh",
        "Open read-only",
    }
    assert window.store.temporary and store_files.digest(path) == before

    window.notice.buttons["Recover what can be read"].click()
    assert not window.store.temporary and not window.store.read_only
    assert "recovered" in window.notice.text.text()
    listed = {c.id for c in window.store.list_conversations()}
    assert listed and listed <= set(texts)
    assert len(window.conversations.conversation_ids()) == len(listed)
    kept = [p for p in data_dir.iterdir() if ".damaged-" in p.name and p.suffix == ".sqlite3"]
    assert len(kept) == 1 and store_files.digest(kept[0]) == before


def test_window_opens_with_a_folder_in_the_database_place_and_starts_fresh(make_window, data_dir):
    path = _database(data_dir)
    path.mkdir()
    (path / "something.txt").write_text("keep me")
    window = make_window()
    assert "not a file" in window.notice.text.text()
    window.notice.buttons["Move it aside and start fresh"].click()
    assert path.is_file() and not window.store.temporary
    (aside,) = [p for p in data_dir.iterdir() if ".damaged-" in p.name]
    assert (aside / "something.txt").read_text() == "keep me"


def test_window_opens_read_only_on_damage_when_asked_and_refuses_to_send(make_window, data_dir, small_pair, qtbot):
    path = _database(data_dir)
    texts = store_files.build(path, conversations=2, replies=1)
    store_files.garbage_pages(path, first_page=(path.stat().st_size // store_files.PAGE) - 1)
    window = make_window()
    window.notice.buttons["Open read-only"].click()
    assert window.store.read_only
    assert {c.id for c in window.store.list_conversations()} <= set(texts)
    load(qtbot, window, pair_choice(small_pair))
    window.chat.prompt.setPlainText("hello")
    window.chat.send_button.click()
    assert "read-only" in window.chat.banner.text.text()
    assert window.chat.prompt.toPlainText() == "hello"  # nothing the user typed is lost
    assert window.controller.activity is Activity.IDLE


def test_window_opens_on_an_unusable_data_folder(make_window, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TANDEM_DATA_DIR", str(blocker / "data"))
    window = make_window()
    assert "TANDEM_DATA_DIR" in window.notice.text.text()
    assert window.store.temporary


@pytest.mark.skipif(not store_files.can_mount(), reason="needs a read-only filesystem: root with mount rights")
def test_window_on_a_read_only_filesystem_offers_read_only(make_window, tmp_path, monkeypatch):
    with store_files.tmpfs(tmp_path / "ro", "2m") as folder:
        texts = store_files.build(_database(folder), conversations=1, replies=1)
        store_files.remount_read_only(folder)
        monkeypatch.setenv("TANDEM_DATA_DIR", str(folder))
        window = make_window()
        assert "read-only" in window.notice.text.text()
        window.notice.buttons["Open read-only"].click()
        assert [c.id for c in window.store.list_conversations()] == list(texts)
        window.close()


def _fill_the_database(window) -> None:
    """SQLite's own full-disk error: the file may not grow past its current size."""
    db = window.store._db  # the limit is a per-connection setting: set it on the window's own connection
    db.execute(f"PRAGMA max_page_count={db.execute('PRAGMA page_count').fetchone()[0]}")


def _free_the_database(window) -> None:
    window.store._db.execute(f"PRAGMA max_page_count={_NO_LIMIT}")


def _send_until_idle(qtbot: QtBot, window, text: str) -> None:
    window.chat.prompt.setPlainText(text)
    window.chat.send_button.click()
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=300_000)


def test_full_database_during_a_reply_stops_it_keeps_it_and_saves_it_later(make_window, small_pair, tmp_path, qtbot):
    window = make_window()
    window.settings_panel.max_tokens.setValue(160)
    load(qtbot, window, pair_choice(small_pair))
    send(qtbot, window, "Say hello.")
    conversation = window.controller.conversation_id
    shown_before = len(window.chat.view.messages)

    _fill_the_database(window)
    window.chat.prompt.setPlainText("Write a long story about a lighthouse keeper.")
    window.chat.send_button.click()
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=300_000)
    if window.controller.unsaved is None:  # the user's own message did not fit either: nothing was sent
        assert window.chat.prompt.toPlainText().startswith("Write a long story")
        pytest.fail("the limit left no room for the user's message; the reply path was not exercised")
    assert window.notice.isVisible() and "full" in window.notice.text.text()
    assert "more is needed" in window.notice.text.text()
    assert set(window.notice.buttons) == {"Retry saving", "Export the reply…"}
    unsaved = window.controller.unsaved
    shown = window.chat.view.messages[-1]
    assert len(window.chat.view.messages) == shown_before + 2
    assert shown.footer.startswith("stopped: the chat could not be saved")
    assert unsaved.text == shown.text and unsaved.text

    exported = window.store_guard.export_unsaved(tmp_path / "reply.md")
    assert exported is not None and unsaved.text.rstrip() in exported.read_text(encoding="utf-8")

    window.notice.buttons["Retry saving"].click()  # still full: still kept
    assert window.controller.unsaved is unsaved
    _free_the_database(window)
    window.notice.buttons["Retry saving"].click()
    assert window.controller.unsaved is None and not window.notice.isVisible()

    stored = window.store.messages(conversation)[-1]
    assert stored.content == unsaved.text
    assert "".join(t.text for t in stored.tokens) == unsaved.text
    assert stored.state == conversations.FAILED and stored.meta["finish_reason"] == STORE_ERROR_REASON
    assert view_message(stored).footer.startswith("stopped: the chat could not be saved")
    send(qtbot, window, "Thanks.")  # the app is usable again
    assert window.store.messages(conversation)[-1].state == conversations.DONE


def test_quitting_mid_reply_on_a_full_database_stops_the_engine_thread(make_window, small_pair, monkeypatch, qtbot):
    from PySide6.QtWidgets import QMessageBox

    asked: list[str] = []
    monkeypatch.setattr(
        QMessageBox, "question", lambda *args, **kwargs: asked.append(args[2]) or QMessageBox.StandardButton.No
    )
    window = make_window()
    window.settings_panel.max_tokens.setValue(400)
    load(qtbot, window, pair_choice(small_pair))
    send(qtbot, window, "Say hello.")
    _fill_the_database(window)
    window.chat.prompt.setPlainText("Write a long story about a lighthouse keeper.")
    window.chat.send_button.click()
    qtbot.waitUntil(lambda: window.controller.store_error is not None, timeout=300_000)
    window.close()  # at once: the reply may still be ending on the engine thread
    assert not window.host.thread.isRunning()
    assert asked and "full" in asked[0]  # the unsaved reply was offered for export


@pytest.mark.skipif(not store_files.can_mount(), reason="needs a real small filesystem: root with mount rights")
def test_real_full_disk_during_a_reply_is_saved_by_itself_once_space_is_freed(
    make_window, small_pair, tmp_path, monkeypatch, qtbot
):
    with store_files.tmpfs(tmp_path / "small", "4m") as folder:
        monkeypatch.setenv("TANDEM_DATA_DIR", str(folder))
        window = make_window()
        window.settings_panel.max_tokens.setValue(200)
        load(qtbot, window, pair_choice(small_pair))
        send(qtbot, window, "Say hello.")
        conversation = window.controller.conversation_id
        # SQLite writes into its -wal file from the start again once a checkpoint has emptied it, so
        # a WAL grown by the first reply could hold the second without asking the disk for a byte
        # (saved, nothing lost, but no full disk met). Another connection folds it away first, and
        # the disk fills once the reply is under way: its question and its first words are stored.
        with contextlib.closing(sqlite3.connect(folder / "conversations.sqlite3")) as other:
            assert other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0  # not blocked
        shown_before = len(window.chat.view.messages)
        window.chat.prompt.setPlainText("Write a long story about a lighthouse keeper.")
        window.chat.send_button.click()
        view = window.chat.view
        qtbot.waitUntil(lambda: bool(len(view.messages) == shown_before + 2 and view.messages[-1].text), timeout=60_000)
        filler = store_files.fill(folder)
        qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=300_000)
        unsaved = window.controller.unsaved
        assert unsaved is not None and "free on its disk" in window.notice.text.text()
        filler.unlink()
        qtbot.waitUntil(lambda: window.controller.unsaved is None, timeout=30_000)
        stored = window.store.messages(conversation)[-1]
        assert stored.content == unsaved.text and len(stored.tokens) > 0
        window.close()


def test_second_instance_opens_read_only_brings_the_first_forward_and_leaves_its_reply(make_window, data_dir, qtbot):
    first = make_window()
    assert not first.store.read_only and not first.notice.isVisible()
    cid = first.store.create_conversation("live")
    first.store.add_message(cid, "user", "question")
    reply = first.store.begin_reply(cid)  # a reply being written right now
    env = {**os.environ, "TANDEM_DATA_DIR": str(data_dir), "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.ui.second_instance_helper"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    # The first window must keep its event loop running to answer.
    qtbot.waitUntil(lambda: process.poll() is not None, timeout=120_000)
    report = json.loads(process.stdout.read().splitlines()[-1])
    assert process.returncode == 0
    assert report["read_only"] is True and report["conversations"] == [cid]
    assert "already open" in report["notice"] and "brought to the front" in report["notice"]
    assert first.raise_requests == 1
    assert [m.state for m in first.store.messages(cid)] == [conversations.DONE, conversations.STREAMING]
    assert first.store.messages(cid)[1].id == reply


def test_the_lock_goes_with_the_window(make_window, data_dir):
    window = make_window()
    window.close()
    ChatStore().close()  # a closed window no longer holds the writer lock
