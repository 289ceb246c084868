"""Editing a message that has files attached, in the window on the real SmolLM2 pair: the new sibling keeps them.

The chat is saved with an attachment before the window opens (attaching in the
window is the chips' own test); editing and resending the message makes a new
branch whose message links the same stored file, which stays once in the database.
"""

from __future__ import annotations

from app.engine.attachments import read_attachment_bytes
from app.engine.store.conversations import ChatStore
from tests.ui.helpers import Recorder, click_action, load, pair_choice, send


def test_an_edited_message_keeps_its_attachments(make_window, small_pair, data_dir, qtbot):
    notes = read_attachment_bytes("notes.md", b"# Colours\n\nred, green, blue\n")
    store = ChatStore(data_dir / "conversations.sqlite3")
    cid = store.create_conversation("With a file")
    question = store.add_message(cid, "user", "Name the colours in my notes.", attachments=[notes])
    store.add_message(cid, "assistant", "Red.")
    store.close()

    window = make_window()
    window.settings_panel.max_tokens.setValue(8)
    load(qtbot, window, pair_choice(small_pair))
    window.controller.open_conversation(cid)
    assert window.controller.path[0].id == question
    click_action(window, "edit", 0)
    send(qtbot, window, "Which colours are in my notes?", Recorder(window))
    edited = window.controller.path[0]
    assert edited.id != question and window.store.siblings(edited.id) == [question, edited.id]
    assert edited.attachments == (notes,)
    assert window.controller.history(cid)[0].attachments == (notes,), "the prompt's messages carry the files"
    assert window.store.attachment_count() == 1
