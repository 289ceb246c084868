"""Roles, message states and token origins in the store: enum members in, plain text in SQLite, members out.

On real SQLite files: what the store writes is the text older Tandems wrote
and read, every value in the committed v1 fixture reads back as a member,
the store refuses to write a value it could not read back, and a row edited
by hand with a value no Tandem knows still reads (as its text).
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3

import pytest

from app.core.conversation.chat import MessageState, Role
from app.core.decoding.events import TokenOrigin
from app.core.reply.token_record import TokenRecord
from app.engine.store import conversations
from app.engine.store.conversations import ChatStore
from tests.paths import REPO_ROOT

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "conversations-v1.sqlite3"


@pytest.fixture
def store(tmp_path):
    opened = ChatStore(tmp_path / "conversations.sqlite3")
    yield opened
    opened.close()


def test_the_old_state_constants_are_the_enum_members():
    names = {"DONE": "done", "STREAMING": "streaming", "CANCELLED": "cancelled", "INTERRUPTED": "interrupted"}
    for name, text in {**names, "FAILED": "failed"}.items():
        constant = getattr(conversations, name)
        assert constant is MessageState[name] and constant == text
    assert {state.value for state in MessageState} == {"done", "streaming", "cancelled", "interrupted", "failed"}
    assert [role.value for role in Role] == ["system", "user", "assistant", "tool"]


def test_members_and_plain_text_write_the_same_text_and_read_back_as_members(store, tmp_path):
    cid = store.create_conversation("Kinds")
    store.add_message(cid, Role.SYSTEM, "Be brief.")
    store.add_message(cid, "user", "hi")  # the spelling older callers use
    reply = store.begin_reply(cid)
    store.append_tokens(
        reply,
        [
            TokenRecord(text="he", origin=TokenOrigin.DRAFT, p_target=0.9, q_draft=0.8),
            TokenRecord(text="y", origin="target", p_target=0.7),
        ],
    )
    store.finish_reply(reply, "hey", "cancelled")
    with contextlib.closing(sqlite3.connect(tmp_path / "conversations.sqlite3")) as plain:  # what any reader sees
        rows = plain.execute("SELECT role, typeof(role), state, typeof(state) FROM messages ORDER BY id").fetchall()
        origins = plain.execute("SELECT origin, typeof(origin) FROM tokens ORDER BY idx").fetchall()
    assert rows == [
        ("system", "text", "done", "text"),
        ("user", "text", "done", "text"),
        ("assistant", "text", "cancelled", "text"),
    ]
    assert origins == [("draft", "text"), ("target", "text")]
    stored = store.messages(cid)
    assert [(type(m.role), m.role) for m in stored] == [
        (Role, Role.SYSTEM),
        (Role, Role.USER),
        (Role, Role.ASSISTANT),
    ]
    assert stored[2].state is MessageState.CANCELLED
    assert [t.origin for t in stored[2].tokens] == [TokenOrigin.DRAFT, TokenOrigin.TARGET]
    assert all(type(t.origin) is TokenOrigin for t in stored[2].tokens)


def test_a_role_or_state_the_store_could_not_read_back_is_refused_and_nothing_is_written(store):
    cid = store.create_conversation("Strict")
    reply = store.begin_reply(cid)
    with pytest.raises(ValueError, match="robot"):
        store.add_message(cid, "robot", "beep")
    with pytest.raises(ValueError, match="paused"):
        store.add_message(cid, Role.USER, "hi", state="paused")
    with pytest.raises(ValueError, match="lost"):
        store.finish_reply(reply, "never", "lost")
    stored = store.all_messages(cid)
    assert [(m.id, m.state, m.content) for m in stored] == [(reply, MessageState.STREAMING, "")]


def test_every_role_state_and_origin_of_the_v1_fixture_reads_back_as_a_member(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    shutil.copyfile(FIXTURE, path)
    for read_only in (True, False):  # as it is (no migration), then migrated
        opened = ChatStore(path, read_only=read_only)
        try:
            messages = [m for c in opened.list_conversations() for m in opened.all_messages(c.id)]
        finally:
            opened.close()
        assert len(messages) == 15
        assert all(type(m.role) is Role and type(m.state) is MessageState for m in messages)
        states = {m.state for m in messages}
        # Read-only, the crashed reply is still "streaming"; the writer closes it as interrupted.
        assert states == {"done", "cancelled", "interrupted", "failed"} | ({"streaming"} if read_only else set())
        tokens = [t for m in messages for t in m.tokens]
        assert len(tokens) == 22 and all(type(t.origin) is TokenOrigin for t in tokens)
        assert {t.origin for t in tokens} == set(TokenOrigin)


def test_a_hand_edited_role_or_state_still_reads_as_its_text(store, tmp_path):
    cid = store.create_conversation("Edited by hand")
    question = store.add_message(cid, "user", "hi")
    reply = store.add_message(cid, "assistant", "hello")
    store.append_tokens(reply, [TokenRecord(text="hello", origin="target", p_target=0.9)])
    store._db.execute("UPDATE messages SET role='oracle', state='paused' WHERE id=?", (question,))
    store._db.execute("UPDATE tokens SET origin='psychic' WHERE message_id=?", (reply,))
    stored = store.messages(cid)
    assert [(m.role, m.state) for m in stored] == [("oracle", "paused"), (Role.ASSISTANT, MessageState.DONE)]
    assert type(stored[0].role) is str and type(stored[0].state) is str
    assert stored[1].tokens[0].origin == "psychic"
    assert "### oracle _(paused)_" in store.export_markdown(cid)  # shown as it is written
    exported = store.export_json(cid)
    assert (exported["messages"][0]["role"], exported["messages"][0]["state"]) == ("oracle", "paused")
