"""Conversations as trees on a real SQLite file: regenerate, edit, continue, switch, delete; settings, pins, trash."""

from __future__ import annotations

import pytest

from app.core.conversation.chat_settings import ChatSettings
from app.core.reply.token_record import TokenRecord
from app.engine.store import conversations
from app.engine.store.conversations import ACTIVE_LEAF, ChatStore


@pytest.fixture
def store(tmp_path):
    opened = ChatStore(tmp_path / "conversations.sqlite3")
    yield opened
    opened.close()


def _texts(store: ChatStore, cid: int) -> list[str]:
    return [m.content for m in store.messages(cid, with_tokens=False)]


def _chat(store: ChatStore) -> tuple[int, int, int]:
    """A conversation "Q1 A1 Q2 A2"; returns (conversation, Q2, A2)."""
    cid = store.create_conversation("tree")
    store.add_message(cid, "user", "Q1")
    store.add_message(cid, "assistant", "A1")
    q2 = store.add_message(cid, "user", "Q2")
    a2 = store.add_message(cid, "assistant", "A2")
    return cid, q2, a2


def test_linear_chat_links_each_message_to_the_previous_one(store):
    cid, q2, a2 = _chat(store)
    stored = store.messages(cid)
    assert [m.parent_id for m in stored] == [None, stored[0].id, stored[1].id, q2]
    assert store.active_leaf(cid) == a2
    assert store.siblings(a2) == [a2] and store.children(q2) == [a2]


def test_regenerate_adds_a_sibling_and_switching_shows_each_branch(store):
    cid, q2, a2 = _chat(store)
    b2 = store.begin_reply(cid, parent_id=q2)  # regenerate A2
    store.append_tokens(
        b2,
        [
            TokenRecord(text="B", origin="draft", p_target=0.9, q_draft=0.8),
            TokenRecord(text="2", origin="target", p_target=0.7),
        ],
    )
    store.finish_reply(b2, "B2")
    assert store.siblings(a2) == [a2, b2] == store.siblings(b2)
    assert _texts(store, cid) == ["Q1", "A1", "Q2", "B2"]
    store.switch_to(a2)
    assert _texts(store, cid) == ["Q1", "A1", "Q2", "A2"]
    assert [m.id for m in store.all_messages(cid)][-2:] == [a2, b2]  # the whole tree, in id order
    # Reopened, the store shows the branch last switched to.
    path = store.path
    store.close()
    again = ChatStore(path)
    try:
        assert _texts(again, cid) == ["Q1", "A1", "Q2", "A2"]
    finally:
        again.close()


def test_edit_and_resend_is_a_new_branch_and_switching_back_returns_to_where_you_were(store):
    cid, q2, _a2 = _chat(store)
    first = store.messages(cid)[1].id  # A1
    e2 = store.add_message(cid, "user", "Q2 edited", parent_id=first)
    store.add_message(cid, "assistant", "E2")
    e3 = store.add_message(cid, "user", "Q3")
    assert _texts(store, cid) == ["Q1", "A1", "Q2 edited", "E2", "Q3"]
    assert store.siblings(e2) == [q2, e2]
    store.switch_to(q2)
    assert _texts(store, cid) == ["Q1", "A1", "Q2", "A2"]
    store.switch_to(e2)  # below e2 the branch follows the child last shown: down to Q3
    assert _texts(store, cid) == ["Q1", "A1", "Q2 edited", "E2", "Q3"]
    assert store.active_leaf(cid) == e3


def test_switch_below_a_fork_follows_the_child_last_shown_else_the_newest(store):
    cid, q2, a2 = _chat(store)
    b2 = store.add_message(cid, "assistant", "B2", parent_id=q2)
    c2 = store.add_message(cid, "assistant", "C2", parent_id=q2)
    store.switch_to(b2)
    store.switch_to(store.messages(cid)[0].id)  # the root: down through Q2 to B2, the one last shown
    assert _texts(store, cid)[-1] == "B2"
    store.delete_message(b2)  # on the active branch: the sibling before it takes its place
    assert _texts(store, cid)[-1] == "A2"
    assert store.siblings(c2) == [a2, c2]


def test_editing_the_first_message_makes_a_new_root(store):
    cid, _, _ = _chat(store)
    root = store.messages(cid)[0].id
    new_root = store.add_message(cid, "user", "Q1 again", parent_id=None)
    assert _texts(store, cid) == ["Q1 again"]
    assert store.siblings(root) == [root, new_root]
    store.switch_to(root)
    assert _texts(store, cid) == ["Q1", "A1", "Q2", "A2"]


def test_a_parent_from_another_conversation_is_refused(store):
    _cid, q2, _ = _chat(store)
    other = store.create_conversation("other")
    with pytest.raises(ValueError, match="not in conversation"):
        store.add_message(other, "user", "x", parent_id=q2)
    with pytest.raises(KeyError):
        store.add_message(other, "user", "x", parent_id=999_999)
    assert store.messages(other) == []


def test_delete_a_branch_removes_its_subtree_and_tokens(store):
    cid, q2, a2 = _chat(store)
    store.append_tokens(a2, [TokenRecord(text="A", origin="draft", p_target=0.9, q_draft=0.8)])
    q1 = store.messages(cid)[0].id
    a1 = store.messages(cid)[1].id
    e2 = store.add_message(cid, "user", "E2", parent_id=a1)
    store.add_message(cid, "assistant", "E2 reply")
    store.switch_to(a2)
    store.delete_message(q2)  # the Q2 branch, with A2 and its tokens
    assert _texts(store, cid) == ["Q1", "A1", "E2", "E2 reply"]  # the sibling's branch is shown
    assert store.tokens(a2) == [] and store.siblings(e2) == [e2]
    store.delete_message(e2)  # no sibling left: the parent is the end
    assert _texts(store, cid) == ["Q1", "A1"] and store.active_leaf(cid) == a1
    store.delete_message(q1)
    assert store.messages(cid) == [] and store.all_messages(cid) == [] and store.active_leaf(cid) is None
    store.add_message(cid, "user", "fresh start")
    assert _texts(store, cid) == ["fresh start"]


def test_deleting_a_branch_that_is_not_shown_leaves_the_shown_one(store):
    cid, q2, a2 = _chat(store)
    b2 = store.add_message(cid, "assistant", "B2", parent_id=q2)
    store.switch_to(a2)
    store.delete_message(b2)
    assert _texts(store, cid) == ["Q1", "A1", "Q2", "A2"]


def test_deleting_a_long_chain_from_its_root_does_not_recurse(store):
    cid = store.create_conversation("long")
    first = store.add_message(cid, "user", "0")
    for i in range(1, 1200):  # deeper than SQLite's 1000-level trigger recursion
        store.add_message(cid, "user" if i % 2 == 0 else "assistant", str(i))
    assert len(store.messages(cid)) == 1200
    store.delete_message(first)
    assert store.all_messages(cid) == []


def test_continue_grows_the_same_reply_and_a_crash_keeps_old_text_plus_new_tokens(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    store = ChatStore(path)
    cid = store.create_conversation("continue")
    store.add_message(cid, "user", "Count")
    reply = store.begin_reply(cid)
    store.append_tokens(
        reply,
        [TokenRecord(text="1,", origin="target", p_target=0.9), TokenRecord(text=" 2,", origin="target", p_target=0.9)],
    )
    store.finish_reply(reply, "1, 2,", meta={"finish": "length"})
    store.reopen_reply(reply)
    assert store.messages(cid)[-1].state == conversations.STREAMING
    store.append_tokens(reply, [TokenRecord(text=" 3,", origin="target", p_target=0.9)])
    assert store.messages(cid)[-1].content == "1, 2, 3,"  # the text so far, while it streams
    store.finish_reply(reply, "1, 2, 3,", meta={"finish": "stop"})
    message = store.messages(cid)[-1]
    assert (message.id, message.content, message.state) == (reply, "1, 2, 3,", conversations.DONE)
    assert [t.text for t in message.tokens] == ["1,", " 2,", " 3,"] and message.meta["finish"] == "stop"

    store.reopen_reply(reply)
    store.append_tokens(reply, [TokenRecord(text=" 4", origin="target", p_target=0.9)])
    store.close()  # dies before finish_reply
    again = ChatStore(path)
    try:
        message = again.messages(cid)[-1]
        assert (message.content, message.state) == ("1, 2, 3, 4", conversations.INTERRUPTED)
    finally:
        again.close()


def test_only_replies_can_be_continued(store):
    _cid, q2, _ = _chat(store)
    with pytest.raises(ValueError, match="not a reply"):
        store.reopen_reply(q2)
    with pytest.raises(KeyError):
        store.reopen_reply(999_999)


def test_conversation_settings_start_from_defaults_then_the_default_preset(store):
    plain = store.create_conversation("plain")
    assert ChatSettings.from_dict(store.conversation_settings(plain)) == ChatSettings()
    store.save_preset("Creative", ChatSettings(temperature=1.2, system_prompt="Be bold.").to_dict())
    store.set_default_preset("Creative")
    creative = store.create_conversation("creative")
    assert ChatSettings.from_dict(store.conversation_settings(creative)).temperature == 1.2
    explicit = store.create_conversation("explicit", {"temperature": 0.3})
    assert store.conversation_settings(explicit) == {"temperature": 0.3}
    store.set_conversation_settings(plain, {"system_prompt": "Terse."})
    assert store.conversation_settings(plain) == {"system_prompt": "Terse."}
    assert ChatSettings.from_dict(store.conversation_settings(creative)).temperature == 1.2  # others unchanged
    with pytest.raises(KeyError):
        store.conversation_settings(999_999)
    with pytest.raises(KeyError):
        store.set_conversation_settings(999_999, {})


def test_pinned_first_then_most_recent(store):
    old = store.create_conversation("old")
    new = store.create_conversation("new")
    store.add_message(new, "user", "recent")
    assert [c.id for c in store.list_conversations()] == [new, old]
    store.set_pinned(old, True)
    listed = store.list_conversations()
    assert [c.id for c in listed] == [old, new] and listed[0].pinned and not listed[1].pinned
    store.set_pinned(old, False)
    assert [c.id for c in store.list_conversations()] == [new, old]


def test_trash_hides_restore_brings_back_and_a_week_old_trash_is_purged(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    store = ChatStore(path)
    keep = store.create_conversation("keep")
    gone = store.create_conversation("gone")
    store.add_message(gone, "user", "bye")
    store.delete_conversation(gone)
    assert [c.id for c in store.list_conversations()] == [keep]
    assert [c.id for c in store.trashed_conversations()] == [gone]
    store.restore_conversation(gone)
    assert {c.id for c in store.list_conversations()} == {keep, gone}
    assert _texts(store, gone) == ["bye"]
    store.delete_conversation(gone)
    store._db.execute("UPDATE conversations SET deleted = deleted - 8 * 24 * 3600 WHERE id=?", (gone,))
    store.close()
    again = ChatStore(path)  # opening empties the trash of what is older than a week
    try:
        assert again.trashed_conversations() == [] and again.all_messages(gone) == []
        assert [c.id for c in again.list_conversations()] == [keep]
    finally:
        again.close()


def test_presets_create_rename_delete_and_the_default_follows(store):
    store.save_preset("b", {"temperature": 0.5})
    store.save_preset("A", {"temperature": 0.1})
    assert list(store.presets()) == ["A", "b"]
    store.save_preset("b", {"temperature": 0.9})  # overwrite
    assert store.presets()["b"] == {"temperature": 0.9}
    store.set_default_preset("b")
    store.rename_preset("b", "Balanced")
    assert store.default_preset() == ("Balanced", {"temperature": 0.9})
    with pytest.raises(ValueError, match="exists"):
        store.rename_preset("A", "Balanced")
    with pytest.raises(KeyError):
        store.rename_preset("missing", "x")
    with pytest.raises(KeyError):
        store.set_default_preset("missing")
    with pytest.raises(ValueError, match="name"):
        store.save_preset("   ", {})
    store.delete_preset("Balanced")
    assert store.default_preset() is None and list(store.presets()) == ["A"]
    store.set_default_preset("A")
    store.set_default_preset(None)
    assert store.default_preset() is None


def test_active_leaf_constant_is_the_default_parent(store):
    cid = store.create_conversation("c")
    first = store.add_message(cid, "user", "1", parent_id=ACTIVE_LEAF)
    second = store.add_message(cid, "assistant", "2")
    assert store.messages(cid)[1].parent_id == first and store.active_leaf(cid) == second


def test_recovery_keeps_branches_settings_and_pins(tmp_path):
    from app.engine.store.recovery import recover_in_place
    from tests.engine import store_files

    path = tmp_path / "conversations.sqlite3"
    store = ChatStore(path)
    cid, q2, a2 = _chat(store)
    b2 = store.add_message(cid, "assistant", "B2", parent_id=q2)
    store.switch_to(a2)
    store.set_pinned(cid, True)
    store.set_conversation_settings(cid, {"temperature": 0.4})
    store.save_preset("P", {"top_k": 3})
    store.close()
    store_files.destroy_header(path)
    recover_in_place(path)
    again = ChatStore(path)
    try:
        assert _texts(again, cid) == ["Q1", "A1", "Q2", "A2"] and again.siblings(a2) == [a2, b2]
        assert again.list_conversations()[0].pinned and again.conversation_settings(cid) == {"temperature": 0.4}
        assert again.presets() == {"P": {"top_k": 3}}
    finally:
        again.close()


def test_an_unknown_conversation_has_no_messages_as_before(store):
    assert store.messages(424242) == [] and store.active_leaf(424242) is None
    with pytest.raises(KeyError):
        store.add_message(424242, "user", "nowhere")
