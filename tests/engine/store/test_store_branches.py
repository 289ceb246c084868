"""Forking a branch into a new chat and deleting a message into the trash (undo), on a real SQLite file."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from app.core.reply.token_record import TokenRecord
from app.engine.attachments import read_attachment_bytes
from app.engine.store.branches import TRASHED_FROM
from app.engine.store.conversations import ChatStore
from tests.paths import REPO_ROOT


@pytest.fixture
def store(tmp_path):
    opened = ChatStore(tmp_path / "conversations.sqlite3")
    yield opened
    opened.close()


def _texts(store: ChatStore, cid: int) -> list[str]:
    return [m.content for m in store.messages(cid, with_tokens=False)]


def _branched(store: ChatStore) -> dict[str, int]:
    """ "Q1 A1 Q2 A2" with a second reply A2b to Q2 (shown); A1 has tokens, Q1 an attachment."""
    cid = store.create_conversation("tree")
    store.set_conversation_settings(cid, {"temperature": 0.3})
    q1 = store.add_message(cid, "user", "Q1", attachments=[read_attachment_bytes("notes.md", b"some notes\n")])
    a1 = store.begin_reply(cid, {"produced_by": {"drafter": "model", "seed": 7}})
    store.append_tokens(
        a1,
        [
            TokenRecord(text="A", origin="draft", p_target=0.9, q_draft=0.8),
            TokenRecord(text="1", origin="target", p_target=0.7, q_draft=None),
        ],
    )
    store.finish_reply(a1, "A1", meta={"stats": {"emitted": 2}})
    store._db.execute("INSERT INTO steps(message_id, idx, first_token, data) VALUES (?, 0, 0, '{}')", (a1,))
    q2 = store.add_message(cid, "user", "Q2")
    a2 = store.add_message(cid, "assistant", "A2")
    a2b = store.add_message(cid, "assistant", "A2b", parent_id=q2)
    return {"cid": cid, "q1": q1, "a1": a1, "q2": q2, "a2": a2, "a2b": a2b}


def test_fork_copies_the_path_to_a_message_with_tokens_provenance_and_attachments(store):
    ids = _branched(store)
    fork = store.fork_branch(ids["a2"])
    assert store.conversation(fork).title == "Fork of tree"
    assert store.conversation_settings(fork) == {"temperature": 0.3}
    assert _texts(store, fork) == ["Q1", "A1", "Q2", "A2"]  # the branch asked for, not the one shown
    copied = store.messages(fork)
    assert [m.parent_id for m in copied[1:]] == [m.id for m in copied[:-1]]
    assert copied[0].attachments == store.message(ids["q1"]).attachments
    assert copied[1].tokens == store.tokens(ids["a1"]) and copied[1].meta == store.message(ids["a1"]).meta
    assert store._db.execute("SELECT COUNT(*) FROM steps WHERE message_id=?", (copied[1].id,)).fetchone()[0] == 1
    assert not {m.id for m in copied} & {m.id for m in store.all_messages(ids["cid"])}
    assert _texts(store, ids["cid"]) == ["Q1", "A1", "Q2", "A2b"]  # the original is left as it was
    assert len(store.all_messages(ids["cid"])) == 5


def test_fork_from_the_middle_and_an_unknown_message(store):
    ids = _branched(store)
    assert _texts(store, store.fork_branch(ids["a1"], title="short")) == ["Q1", "A1"]
    with pytest.raises(KeyError):
        store.fork_branch(99999)


def test_deleting_a_fork_leaves_the_original_its_attachment(store):
    ids = _branched(store)
    store.delete_conversation(store.fork_branch(ids["q1"]), permanent=True)
    assert store.message(ids["q1"]).attachments[0].text == "some notes\n"


def test_trash_message_hides_the_subtree_and_restore_puts_it_back_as_it_was(store):
    ids = _branched(store)
    before = {m.id: (m.content, m.parent_id) for m in store.all_messages(ids["cid"])}
    holder = store.trash_message(ids["q2"])
    assert _texts(store, ids["cid"]) == ["Q1", "A1"]
    assert [c.id for c in store.trashed_conversations()] == [holder]
    assert holder not in [c.id for c in store.list_conversations()]
    assert store.search("A2b") == []  # in the trash, out of search
    store.restore_message(ids["q2"])
    assert {m.id: (m.content, m.parent_id) for m in store.all_messages(ids["cid"])} == before
    assert _texts(store, ids["cid"]) == ["Q1", "A1", "Q2", "A2b"]  # the branch shown before
    assert TRASHED_FROM not in store.message(ids["q2"]).meta
    assert store.trashed_conversations() == []
    with pytest.raises(ValueError, match="not a deleted message"):
        store.restore_message(ids["q2"])


def test_trashing_a_branch_not_shown_keeps_the_shown_one(store):
    ids = _branched(store)
    store.trash_message(ids["a2"])
    assert _texts(store, ids["cid"]) == ["Q1", "A1", "Q2", "A2b"]
    store.restore_message(ids["a2"])
    assert store.siblings(ids["a2"]) == [ids["a2"], ids["a2b"]]
    assert _texts(store, ids["cid"]) == ["Q1", "A1", "Q2", "A2b"]


def test_a_message_whose_chat_is_gone_comes_back_as_a_chat_of_its_own(store):
    ids = _branched(store)
    holder = store.trash_message(ids["q2"])
    store.delete_conversation(ids["cid"], permanent=True)
    store.restore_message(ids["q2"])
    assert holder in [c.id for c in store.list_conversations()]
    assert _texts(store, holder) == ["Q2", "A2b"]


def test_a_kill_between_delete_and_undo_loses_nothing(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    store = ChatStore(path)
    ids = _branched(store)
    store.close()
    # Another process trashes the message and is killed before it could undo (os._exit: no cleanup).
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from app.engine.store.conversations import ChatStore
        store = ChatStore(Path({str(path)!r}))
        store.trash_message({ids["q2"]})
        os._exit(9)
        """
    )
    killed = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True)
    assert killed.returncode == 9, killed.stderr
    reopened = ChatStore(path)
    try:
        assert _texts(reopened, ids["cid"]) == ["Q1", "A1"]
        (holder,) = reopened.trashed_conversations()
        assert holder.message_count == 3  # Q2, A2 and A2b wait in the trash
        reopened.restore_message(ids["q2"])
        assert len(reopened.all_messages(ids["cid"])) == 5
    finally:
        reopened.close()
