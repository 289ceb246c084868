"""Images kept with their messages (schema v4) on real SQLite: stored once, read back, forked, exported by name.

The v3 -> v4 migration runs on the committed v3 fixture
(``tests/fixtures/make_v3_database.py``, written by the v3 store): every v3
row reads the same after it, and the new tables start empty.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.conversation.images import MAX_IMAGES_PER_MESSAGE, ImageInput
from app.engine.store.conversations import ChatStore
from app.engine.store.migration import schema_version
from app.engine.store.recovery import recover
from app.engine.store.schema import SCHEMA_VERSION
from tests.fixtures.synthetic_projector import png_bytes
from tests.paths import REPO_ROOT

V3 = REPO_ROOT / "tests" / "fixtures" / "conversations-v3.sqlite3"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ChatStore]:
    opened = ChatStore(tmp_path / "conversations.sqlite3")
    yield opened
    opened.close()


def _cat(seed: int = 1) -> ImageInput:
    return ImageInput(name="cat.png", data=png_bytes(40, 30, seed=seed))


def _rows(db: sqlite3.Connection, table: str) -> int:
    return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def test_a_message_keeps_its_images_in_order_and_the_same_picture_is_stored_once(store: ChatStore) -> None:
    chat = store.create_conversation("pictures")
    cat, dog = _cat(), ImageInput(name="dog.png", data=png_bytes(8, 8, seed=2))
    first = store.add_message(chat, "user", "Two pictures", images=(cat, dog))
    again = store.add_message(chat, "user", "The cat again", images=(ImageInput(name="same.png", data=cat.data),))
    read = store.message(first).images
    assert [(i.name, i.data, i.mime) for i in read] == [
        ("cat.png", cat.data, "image/png"),
        ("dog.png", dog.data, "image/png"),
    ]
    assert [i.name for i in store.message(again).images] == ["same.png"]
    assert _rows(store._db, "images") == 2 and _rows(store._db, "message_images") == 3
    store.delete_message(again)
    store.delete_message(first)
    assert _rows(store._db, "images") == 0  # the last message carrying a picture takes it along


def test_bounds_and_non_images_are_refused_before_anything_is_written(store: ChatStore) -> None:
    chat = store.create_conversation("bounds")
    many = tuple(_cat(seed) for seed in range(MAX_IMAGES_PER_MESSAGE + 1))
    with pytest.raises(ValueError, match="at most 8 images"):
        store.add_message(chat, "user", "too many", images=many)
    with pytest.raises(ValueError, match="not a PNG or JPEG"):
        store.add_message(chat, "user", "text", images=(ImageInput(name="notes.txt", data=b"hello"),))
    assert store.messages(chat) == [] and _rows(store._db, "images") == 0


def test_a_forked_branch_keeps_the_image(store: ChatStore) -> None:
    chat = store.create_conversation("fork")
    question = store.add_message(chat, "user", "What is this?", images=(_cat(),))
    forked = store.fork_branch(question)
    assert [i.data for i in store.messages(forked)[0].images] == [_cat().data]
    store.delete_conversation(chat, permanent=True)
    assert [i.name for i in store.messages(forked)[0].images] == ["cat.png"]


def test_exports_name_the_image_and_never_carry_its_bytes(store: ChatStore) -> None:
    chat = store.create_conversation("export")
    store.add_message(chat, "user", "What is this?", images=(_cat(),))
    markdown = store.export_markdown(chat)
    assert "[image: cat.png, 40×30]" in markdown
    exported = store.export_json(chat)
    listed = exported["messages"][0]["images"]
    assert listed == [
        {
            "name": "cat.png",
            "mime": "image/png",
            "size": len(_cat().data),
            "width": 40,
            "height": 30,
            "sha256": _cat().sha256,
        }
    ]
    assert "base64" not in str(exported) and "\\x89PNG" not in str(exported)


def test_v3_fixture_migrates_to_v4_with_every_row_kept(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    shutil.copyfile(V3, path)
    plain = sqlite3.connect(path)
    assert plain.execute("PRAGMA user_version").fetchone()[0] == 3
    before = {
        t: plain.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
        for t in ("conversations", "messages", "tokens", "attachments", "message_attachments")
    }
    plain.close()
    store = ChatStore(path)
    try:
        assert schema_version(store._db) == SCHEMA_VERSION == 4
        assert store.migrated_from == path.with_name("conversations.v3-backup.sqlite3")
        messages = store.messages(1)
        assert [m.content for m in messages] == ["What does the target do?", "It verifies.", "And again?"]
        assert [a.name for a in messages[0].attachments] == ["notes.md"]
        assert [t.copied_from for t in messages[1].tokens] == [None, "notes.md", None]
        assert all(m.images == () for m in messages)
        chat = store.create_conversation("new")
        store.add_message(chat, "user", "now with a picture", images=(_cat(),))
        assert store.messages(chat)[0].images[0].data == _cat().data
    finally:
        store.close()
    after = sqlite3.connect(path)
    try:
        for table, rows in before.items():
            kept = after.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            # The new chat is a row more; the fixture's rows are as they were, columns and all.
            assert kept[: len(rows)] == rows, table
    finally:
        after.close()


def test_a_v3_file_opened_read_only_reads_without_images(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    shutil.copyfile(V3, path)
    store = ChatStore(path, read_only=True)
    try:
        assert [m.images for m in store.messages(1)] == [(), (), ()]
    finally:
        store.close()
    plain = sqlite3.connect(path)
    assert plain.execute("PRAGMA user_version").fetchone()[0] == 3
    plain.close()


def test_recovery_copies_the_images_of_the_recovered_messages(tmp_path: Path) -> None:
    source = tmp_path / "conversations.sqlite3"
    store = ChatStore(source)
    chat = store.create_conversation("kept")
    store.add_message(chat, "user", "What is this?", images=(_cat(),))
    store.close()
    report = recover(source, tmp_path / "recovered.sqlite3")
    assert report.messages == 1
    recovered = ChatStore(tmp_path / "recovered.sqlite3")
    try:
        assert [(i.name, i.data) for i in recovered.messages(chat)[0].images] == [("cat.png", _cat().data)]
    finally:
        recovered.close()


def test_an_export_with_images_imports_as_the_chat_without_them(store: ChatStore) -> None:
    chat = store.create_conversation("round trip")
    store.add_message(chat, "user", "What is this?", images=(_cat(),))
    imported = store.import_json(store.export_json(chat))
    messages = store.messages(imported)
    assert [m.content for m in messages] == ["What is this?"] and messages[0].images == ()
