"""Export version 2 and import (v1 and v2) on real SQLite files: the round trip, and files that are not exports."""

from __future__ import annotations

import copy
import json
import math

import pytest

from app.core.conversation.chat import MessageState, Role
from app.core.decoding.events import TokenOrigin
from app.core.reply.token_record import RejectedProposal, TokenRecord
from app.engine.store import conversations
from app.engine.store.conversations import ChatStore, ImportFormatError


@pytest.fixture
def store(tmp_path):
    opened = ChatStore(tmp_path / "conversations.sqlite3")
    yield opened
    opened.close()


def _tree(store: ChatStore) -> int:
    """A chat with a regenerated reply, an edited question, tokens with rejected proposals, settings and a pin."""
    cid = store.create_conversation("Round trip ✓", {"system_prompt": "Sois bref.", "temperature": 0.7})
    store.add_message(cid, "system", "Sois bref.")
    question = store.add_message(cid, "user", "Capitale de la France ?")
    first = store.begin_reply(cid, {"produced_by": {"drafter": "model", "seed": 7}})
    rejected = TokenRecord(
        text=" Paris",
        origin="corrected",
        p_target=0.6,
        q_draft=0.1,
        rejected=RejectedProposal(text=" Lyon", p_target=0.01, q_draft=0.8),
    )
    store.append_tokens(first, [TokenRecord(text="C'est", origin="draft", p_target=0.9, q_draft=0.85), rejected])
    store.finish_reply(first, "C'est Paris", meta={"stats": {"emitted": 2}})
    second = store.begin_reply(cid, parent_id=question)
    store.append_tokens(second, [TokenRecord(text="Paris", origin="target", p_target=0.95)])
    store.finish_reply(second, "Paris", conversations.CANCELLED)
    store.add_message(cid, "user", "Et de l'Italie ?", parent_id=store.messages(cid)[0].id)
    store.switch_to(first)
    store.set_pinned(cid, True)
    return cid


def _shape(store: ChatStore, cid: int) -> list[tuple[object, ...]]:
    """The tree by position: each message's parent as an index, its fields, its tokens."""
    messages = store.all_messages(cid)
    index = {m.id: i for i, m in enumerate(messages)}
    return [
        (None if m.parent_id is None else index[m.parent_id], m.role, m.content, m.state, m.created, m.meta, m.tokens)
        for m in messages
    ]


def test_export_v2_holds_the_whole_tree_settings_and_active_branch(store):
    cid = _tree(store)
    exported = store.export_json(cid)
    json.dumps(exported)
    assert (exported["format"], exported["version"]) == ("tandem-conversation", 3)
    assert exported["settings"] == {"system_prompt": "Sois bref.", "temperature": 0.7} and exported["pinned"]
    assert len(exported["messages"]) == 5  # both replies and both questions, every branch
    ids = [m["id"] for m in exported["messages"]]
    assert [m["parent"] for m in exported["messages"]] == [None, ids[0], ids[1], ids[1], ids[0]]
    assert exported["active_leaf"] == ids[2]
    assert exported["messages"][2]["tokens"][1]["rejected"] == {"text": " Lyon", "p_target": 0.01, "q_draft": 0.8}
    assert exported["messages"][2]["meta"]["produced_by"] == {"drafter": "model", "seed": 7}


def test_round_trip_export_import_gives_the_same_messages(store):
    cid = _tree(store)
    exported = json.loads(json.dumps(store.export_json(cid)))  # through a file's text
    imported = store.import_json(exported)
    assert imported != cid
    assert _shape(store, imported) == _shape(store, cid)
    assert [m.content for m in store.messages(imported)] == [m.content for m in store.messages(cid)]
    assert store.conversation_settings(imported) == store.conversation_settings(cid)
    assert store.conversation_title(imported) == "Round trip ✓" and store.conversation(imported).pinned
    again = store.export_json(imported)
    for key in ("title", "settings", "pinned"):
        assert again[key] == exported[key]
    assert [{k: v for k, v in m.items() if k not in ("id", "parent")} for m in again["messages"]] == [
        {k: v for k, v in m.items() if k not in ("id", "parent")} for m in exported["messages"]
    ]
    assert len(store.search("Capitale")) == 2  # the imported text is searchable


def test_a_servers_reply_with_unknown_odds_survives_the_round_trip(store):
    cid = store.create_conversation("Remote")
    store.add_message(cid, "user", "Hi")
    reply = store.begin_reply(cid)
    store.append_tokens(
        reply,
        [
            TokenRecord(text="Hello", origin="draft", p_target=math.nan),
            TokenRecord(text="!", origin="target", p_target=0.9),
        ],
    )
    store.finish_reply(reply, "Hello!")
    exported = json.loads(json.dumps(store.export_json(cid)))
    assert exported["messages"][1]["tokens"][0]["p_target"] is None  # JSON has no NaN
    imported = store.import_json(exported)
    tokens = store.messages(imported)[1].tokens
    assert math.isnan(tokens[0].p_target) and tokens[1].p_target == 0.9


def test_a_v1_export_imports_as_a_linear_chat(store):
    v1 = {
        "format": "tandem-conversation",
        "version": 1,
        "title": "Old export",
        "messages": [
            {"role": "user", "content": "hi", "state": "done", "created": 1.0},
            {
                "role": "assistant",
                "content": "hello",
                "state": "streaming",
                "created": 2.0,
                "meta": {"stats": {"emitted": 1}},
                "tokens": [{"text": "hello", "origin": "draft", "p_target": 0.9, "q_draft": 0.8}],
            },
        ],
    }
    cid = store.import_json(v1)
    stored = store.messages(cid)
    assert [(m.role, m.content) for m in stored] == [("user", "hi"), ("assistant", "hello")]
    assert stored[1].parent_id == stored[0].id and stored[1].state == conversations.INTERRUPTED
    assert stored[1].tokens == [TokenRecord(text="hello", origin="draft", p_target=0.9, q_draft=0.8)]


def test_an_import_reads_roles_states_and_origins_as_members_and_a_missing_state_as_done(store):
    old = {
        "format": "tandem-conversation",
        "version": 1,
        "messages": [
            {"role": "system", "content": "Be brief."},  # no state, no created: an early export
            {"role": "user", "content": "hi", "state": "done"},
            {
                "role": "assistant",
                "content": "hel",
                "state": "cancelled",
                "tokens": [{"text": "hel", "origin": "corrected", "p_target": 0.4, "q_draft": 0.2}],
            },
        ],
    }
    stored = store.messages(store.import_json(old))
    assert [m.role for m in stored] == [Role.SYSTEM, Role.USER, Role.ASSISTANT]
    assert [type(m.role) for m in stored] == [Role] * 3 and [type(m.state) for m in stored] == [MessageState] * 3
    assert [m.state for m in stored] == [MessageState.DONE, MessageState.DONE, MessageState.CANCELLED]
    assert stored[2].tokens[0].origin is TokenOrigin.CORRECTED
    exported = json.loads(json.dumps(store.export_json(stored[0].conversation_id)))  # members write as plain text
    assert [(m["role"], m["state"]) for m in exported["messages"]] == [
        ("system", "done"),
        ("user", "done"),
        ("assistant", "cancelled"),
    ]
    assert exported["messages"][2]["tokens"][0]["origin"] == "corrected"


def _valid(store: ChatStore) -> dict:
    return store.export_json(_tree(store))


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda d: [1, 2], "format"),
        (lambda d: {**d, "format": "chatgpt"}, "format"),
        (lambda d: {**d, "version": 9}, "version 9"),
        (lambda d: {**d, "messages": "none"}, '"messages" is not a list'),
        (lambda d: {**d, "title": 5}, "title"),
        (lambda d: {**d, "settings": []}, "settings"),
        (lambda d: {**d, "active_leaf": 424242}, "active_leaf"),
        (lambda d: _edit(d, 1, role="robot"), "message 2 has the role 'robot'"),
        (lambda d: _edit(d, 1, role=5), "message 2 has the role 5 (expected system, user, assistant or tool)"),
        (lambda d: _edit(d, 1, role="User"), "role 'User'"),  # the stored spelling only
        (lambda d: _edit(d, 1, content=None), "message 2 has no text"),
        (lambda d: _edit(d, 1, state="lost"), "unknown state"),
        (lambda d: _edit(d, 1, state=None), "unknown state None"),
        (lambda d: _edit(d, 1, id="x"), "integer"),
        (lambda d: _edit(d, 1, parent=987654), "no earlier message"),
        (lambda d: _edit(d, 1, id=d["messages"][0]["id"]), "repeats id"),
        (lambda d: _edit(d, 2, tokens=[{"text": "x"}]), "token 1 of message 3"),
        (lambda d: _edit(d, 2, tokens=[{"text": "x", "origin": "draft", "p_target": "high"}]), "p_target"),
        (lambda d: _edit(d, 2, tokens=[{"text": "x", "origin": "psychic", "p_target": 0.5}]), "origin"),
        (lambda d: _edit(d, 2, meta=[]), "meta"),
    ],
)
def test_what_is_not_an_export_is_refused_in_one_line_and_nothing_is_written(store, damage, words):
    data = damage(copy.deepcopy(_valid(store)))
    before = [c.id for c in store.list_conversations()]
    with pytest.raises(ImportFormatError) as caught:
        store.import_json(data)
    message = str(caught.value)
    assert message.startswith("not a Tandem conversation export: ") and "\n" not in message
    assert words in message
    assert [c.id for c in store.list_conversations()] == before


def _edit(data: dict, index: int, **changes: object) -> dict:
    data["messages"][index].update(changes)
    return data
