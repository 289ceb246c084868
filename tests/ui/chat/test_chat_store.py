"""The conversation store on its own: crash recovery, ordering, cascading deletes and exports.

(Kept beside the GUI tests because the store exists for the GUI; it needs no Qt.)
"""

from __future__ import annotations

import json

from app.core.reply.token_record import RejectedProposal, TokenRecord
from app.engine.store import conversations
from app.engine.store.conversations import ChatStore


def test_streaming_reply_found_on_reopen_is_interrupted_with_its_text(data_dir):
    store = ChatStore()
    conversation = store.create_conversation("Crash test")
    store.add_message(conversation, "user", "hello")
    reply = store.begin_reply(conversation, {"pair": "a + b"})
    store.append_tokens(
        reply,
        [
            TokenRecord(text="Hi", origin="draft", p_target=0.9, q_draft=0.8),
            TokenRecord(text=" there", origin="corrected", p_target=0.6, q_draft=0.1),
        ],
    )
    store.append_tokens(reply, [TokenRecord(text="!", origin="bonus", p_target=0.7)])
    # No finish_reply: the reply's row is left "streaming", as a process that died leaves it
    # (one writer at a time, so this store closes first; tests/engine/test_store_faults.py kills a real one).
    store.close()
    again = ChatStore()
    messages = again.messages(conversation)
    assert [m.state for m in messages] == [conversations.DONE, conversations.INTERRUPTED]
    assert messages[1].content == "Hi there!"
    assert [t.origin for t in messages[1].tokens] == ["draft", "corrected", "bonus"]
    assert messages[1].meta == {"pair": "a + b"}
    again.close()


def test_listing_order_finish_delete_and_exports(data_dir):
    store = ChatStore()
    first = store.create_conversation("First")
    second = store.create_conversation("Second")
    store.add_message(first, "user", "newer activity")  # touches "First"
    assert [c.title for c in store.list_conversations()] == ["First", "Second"]

    reply = store.begin_reply(first)
    rejected = TokenRecord(
        text="B",
        origin="corrected",
        p_target=0.5,
        q_draft=0.2,
        rejected=RejectedProposal(text="C", p_target=0.1, q_draft=0.7),
    )
    store.append_tokens(reply, [TokenRecord(text="A", origin="draft", p_target=0.9, q_draft=0.9), rejected])
    store.finish_reply(reply, "AB", conversations.DONE, {"stats": {"emitted": 2, "tokens_per_second": 5.0}})
    exported = store.export_json(first)
    json.dumps(exported)  # JSON-ready
    tokens = exported["messages"][1]["tokens"]
    assert tokens[1]["rejected"] == {"text": "C", "p_target": 0.1, "q_draft": 0.7}
    markdown = store.export_markdown(first)
    assert markdown.startswith("# First\n") and "### Assistant" in markdown and "\nAB\n" in markdown
    assert "2 tokens" in markdown

    store.rename_conversation(second, "Renamed")
    assert store.conversation_title(second) == "Renamed"
    store.delete_conversation(first)  # to the trash: hidden, nothing lost yet
    assert [c.id for c in store.list_conversations()] == [second]
    assert len(store.tokens(reply)) == 2
    store.delete_conversation(first, permanent=True)
    assert store.tokens(reply) == []  # tokens went with their conversation
    store.close()
