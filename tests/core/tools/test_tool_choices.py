"""A chat's tool choices (newer and older stored forms), the user's tool preferences and their start keys."""

from __future__ import annotations

import json

from app.core.tools.mcp_config import McpServerConfig, start_digest
from app.core.tools.prefs import ToolPrefs
from app.core.tools.turns import CHAT_TOOLS_KEY, ChatTools


def test_a_chat_with_nothing_stored_offers_only_the_tools_marked_for_new_chats() -> None:
    assert not ChatTools.from_settings({}).offers("write_file")
    marked = ChatTools.from_settings({}, new_chat=frozenset({"harbour_clock"}))
    assert marked.offers("harbour_clock") and not marked.offers("write_file")


def test_the_newer_form_round_trips_and_the_older_off_form_still_reads_as_it_meant() -> None:
    choices = ChatTools(on=frozenset({"add"}), always=frozenset({"add"}))
    assert ChatTools.from_settings(json.loads(json.dumps({CHAT_TOOLS_KEY: choices.to_dict()}))) == choices
    older = ChatTools.from_settings({CHAT_TOOLS_KEY: {"off": ["hang"], "always": ["weather"]}})
    assert older.offers("weather") and older.offers("add") and not older.offers("hang")
    assert older.always == {"weather"}
    assert older.with_on(frozenset({"add"})).to_dict() == {"on": ["add"], "always": ["weather"]}
    assert ChatTools.from_settings({CHAT_TOOLS_KEY: "damaged"}) == ChatTools()


def test_tool_prefs_round_trip_and_read_damage_as_nothing() -> None:
    key = McpServerConfig("test", "python", ("server.py",)).start_key
    prefs = ToolPrefs().with_new_chat("add", True).with_started(key).with_started(key)
    assert prefs.started == (key,) and prefs.allows(key)
    assert ToolPrefs.from_json(prefs.to_json()) == prefs
    assert not prefs.without_started(key).allows(key)
    assert prefs.with_new_chat("add", False).new_chats == frozenset()
    assert ToolPrefs.from_json("not json") == ToolPrefs()
    damaged = ToolPrefs.from_json('{"started": ["a", 3, "a"], "new_chats": "x"}')
    assert damaged == ToolPrefs(started=(start_digest("a"),))


def test_a_start_line_stored_in_clear_by_an_earlier_version_counts_and_is_saved_as_its_digest() -> None:
    server = McpServerConfig("files", "npx", ("-y", "fs"), {"API_KEY": "sk-live-123", "TZ": "UTC"})
    older = json.dumps({"new_chats": [], "started": ["env API_KEY=sk-live-123 TZ=UTC npx -y fs"]})
    prefs = ToolPrefs.from_json(older)
    assert prefs.allows(server.start_key) and prefs.started == (server.start_key,)
    assert "sk-live-123" not in prefs.to_json()
    # The same command with another key value was not confirmed.
    other = McpServerConfig("files", "npx", ("-y", "fs"), {"API_KEY": "sk-live-124", "TZ": "UTC"})
    assert not prefs.allows(other.start_key)
    # A stored digest and the older line of the same start read as one entry.
    both = json.dumps({"started": [server.start_key, "env API_KEY=sk-live-123 TZ=UTC npx -y fs"]})
    assert ToolPrefs.from_json(both).started == (server.start_key,)
