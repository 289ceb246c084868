"""Full-text search on a real SQLite file: Unicode (Arabic, Japanese, emoji, diacritics), sync by triggers, trash."""

from __future__ import annotations

import shutil

import pytest

from app.core.reply.token_record import TokenRecord
from app.engine.store.conversations import ChatStore
from app.engine.store.search import MATCH_END, MATCH_START, snippet, snippet_parts
from tests.paths import REPO_ROOT

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "conversations-v1.sqlite3"


@pytest.fixture
def store(tmp_path):
    opened = ChatStore(tmp_path / "conversations.sqlite3")
    cid = opened.create_conversation("Languages")
    opened.add_message(cid, "user", "مرحبا بالعالم، كيف حالك اليوم؟")
    opened.add_message(cid, "assistant", "東京の天気は晴れです。明日も晴れでしょう。")
    opened.add_message(cid, "user", "Une crème brûlée, s'il vous plaît 🎉🎂 merci")
    other = opened.create_conversation("Cooking")
    opened.add_message(other, "user", "How long to bake CRÈME BRÛLÉE?")
    yield opened
    opened.close()


def _found(store: ChatStore, query: str) -> list[str]:
    return [store.message(hit.message_id).content for hit in store.search(query)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("بالعالم", ["مرحبا بالعالم، كيف حالك اليوم؟"]),  # Arabic, through the trigram index
        ("天気は", ["東京の天気は晴れです。明日も晴れでしょう。"]),  # Japanese inside a "word": no spaces to split on
        ("東京", ["東京の天気は晴れです。明日も晴れでしょう。"]),  # two characters: below a trigram, scanned
        ("🎂", ["Une crème brûlée, s'il vous plaît 🎉🎂 merci"]),  # one emoji
        ("🎉🎂 m", ["Une crème brûlée, s'il vous plaît 🎉🎂 merci"]),  # an emoji trigram and a short term
    ],
)
def test_unicode_queries_find_their_message(store, query, expected):
    assert _found(store, query) == expected


def test_latin_with_diacritics_is_case_insensitive_newest_first(store):
    both = ["How long to bake CRÈME BRÛLÉE?", "Une crème brûlée, s'il vous plaît 🎉🎂 merci"]
    assert _found(store, "crème brûlée") == both
    assert _found(store, "CRÈME") == both
    assert _found(store, "Brû") == both
    assert _found(store, "crème merci") == both[1:]  # every term must be in the message
    assert _found(store, "absent") == [] and _found(store, "   ") == []


def test_hits_carry_where_they_are_and_a_marked_snippet(store):
    (hit,) = store.search("bake")
    assert (hit.title, hit.role) == ("Cooking", "user")
    assert snippet_parts(hit.snippet) == [("How long to ", False), ("bake", True), (" CRÈME BRÛLÉE?", False)]
    (hit,) = store.search("天気は")
    assert f"{MATCH_START}天気は{MATCH_END}" in hit.snippet


def test_a_long_snippet_is_cut_around_the_match():
    text = "word " * 100 + "needle " + "tail " * 100
    cut = snippet(text, ["needle"])
    assert cut.startswith("…") and cut.endswith("…") and len(cut) < 200
    assert f"{MATCH_START}needle{MATCH_END}" in cut


def test_index_follows_inserts_finished_replies_continuations_and_deletes(store):
    cid = store.create_conversation("Streaming")
    store.add_message(cid, "user", "tell me about zebras")
    reply = store.begin_reply(cid)
    store.append_tokens(reply, [TokenRecord(text="Stripes", origin="target", p_target=0.9)])
    assert _found(store, "Stripes") == []  # streaming text is not indexed until it is finished
    store.finish_reply(reply, "Stripes everywhere")
    assert _found(store, "Stripes") == ["Stripes everywhere"]
    store.reopen_reply(reply)
    store.append_tokens(reply, [TokenRecord(text=" and savannah", origin="target", p_target=0.9)])
    store.finish_reply(reply, "Stripes everywhere and savannah")
    assert _found(store, "savannah") == ["Stripes everywhere and savannah"]
    assert _found(store, "everywhere") == ["Stripes everywhere and savannah"]  # re-indexed, not added twice
    store.delete_message(reply)
    assert _found(store, "savannah") == [] and _found(store, "zebras") == ["tell me about zebras"]


def test_hits_in_other_branches_are_found_and_switch_to_shows_them(store):
    cid = store.create_conversation("Branches")
    question = store.add_message(cid, "user", "pick a colour")
    first = store.add_message(cid, "assistant", "turquoise")
    store.add_message(cid, "assistant", "vermilion", parent_id=question)
    (hit,) = store.search("turquoise")
    assert hit.message_id == first and store.messages(cid)[-1].content == "vermilion"
    store.switch_to(hit.message_id)
    assert store.messages(cid)[-1].content == "turquoise"


def test_trashed_chats_are_not_searched_until_restored(store):
    (hit,) = store.search("bake")
    store.delete_conversation(hit.conversation_id)
    assert store.search("bake") == []
    store.restore_conversation(hit.conversation_id)
    assert len(store.search("bake")) == 1


def test_fts_syntax_in_a_query_is_plain_text(store):
    cid = store.create_conversation("Syntax")
    store.add_message(cid, "user", 'he said "NEAR(a b)" AND OR NOT * ^')
    assert _found(store, '"NEAR(a') == ['he said "NEAR(a b)" AND OR NOT * ^']
    assert _found(store, "NOT *") == ['he said "NEAR(a b)" AND OR NOT * ^']


def test_limit(store):
    cid = store.create_conversation("Many")
    for i in range(10):
        store.add_message(cid, "user", f"repeated line {i}")
    assert len(store.search("repeated", limit=3)) == 3
    assert store.search("repeated", limit=0) == []


def test_a_read_only_v1_file_is_searched_without_an_index(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    shutil.copyfile(FIXTURE, path)
    store = ChatStore(path, read_only=True)
    try:
        assert [(h.title, h.role) for h in store.search("天気")] == [("Ünïcödé — 日本語 · العربية · 🎉", "user")]
        assert [h.role for h in store.search("晴れです")] == ["assistant"]
        assert [h.role for h in store.search("bonjour")] == ["assistant"]
    finally:
        store.close()


@pytest.mark.parametrize("query", ["بالعالم", "天気は", "crème", "CRÈME", "🎉🎂 "])
def test_the_trigram_index_itself_finds_unicode_case_insensitively(store, query):
    rows = store._db.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?", (f'"{query}"',))
    ids = {r[0] for r in rows}
    assert ids and all(query.casefold() in store.message(i).content.casefold() for i in ids)


def test_the_index_holds_exactly_the_finished_text(store):
    cid = store.create_conversation("Sync")
    reply = store.begin_reply(cid)
    store.finish_reply(reply, "final words")
    store.delete_message(store.add_message(cid, "user", "short-lived"))
    indexed = dict(store._db.execute("SELECT rowid, content FROM messages_fts").fetchall())
    stored = dict(store._db.execute("SELECT id, content FROM messages WHERE content != ''").fetchall())
    assert indexed == stored


def test_search_folds_accents_as_well_as_case(store):
    both = ["How long to bake CRÈME BRÛLÉE?", "Une crème brûlée, s'il vous plaît 🎉🎂 merci"]
    assert _found(store, "creme") == both
    assert _found(store, "CREME brulee") == both
    assert _found(store, "plait") == both[1:]
    (hit, _) = store.search("creme")
    assert snippet_parts(hit.snippet) == [("How long to bake ", False), ("CRÈME", True), (" BRÛLÉE?", False)]


def test_trashed_chats_stay_out_of_folded_search(store):
    cooking = next(c.id for c in store.list_conversations() if c.title == "Cooking")
    store.delete_conversation(cooking)
    assert _found(store, "creme") == ["Une crème brûlée, s'il vous plaît 🎉🎂 merci"]
