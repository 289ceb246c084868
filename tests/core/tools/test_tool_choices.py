"""A chat's tool choices (newer and older stored forms), the user's tool preferences and their start keys."""

from __future__ import annotations

import hashlib
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
    server = McpServerConfig("test", "python", ("server.py",))
    prefs = ToolPrefs().with_new_chat("add", True).with_started(server).with_started(server)
    assert prefs.started == (prefs.key_of(server),) and prefs.allows(server)
    assert ToolPrefs.from_json(prefs.to_json()) == prefs  # the salt is kept with them
    assert not prefs.without_started(prefs.key_of(server)).allows(server)
    assert prefs.with_new_chat("add", False).new_chats == frozenset()
    nothing = ToolPrefs.from_json("not json")
    assert nothing.new_chats == frozenset() and nothing.started == ()
    damaged = ToolPrefs.from_json(json.dumps({"started": ["a", 3, "a"], "new_chats": "x", "salt": prefs.salt}))
    assert damaged == ToolPrefs(salt=prefs.salt)


def test_start_keys_are_keyed_by_a_salt_made_once_per_install() -> None:
    server = McpServerConfig("docs", url="https://mcp.example.com/mcp", headers={"Authorization": "Bearer sk-9"})
    first, second = ToolPrefs.from_json(""), ToolPrefs.from_json("")
    assert first.salt != second.salt and len(bytes.fromhex(first.salt)) == 32
    # Another install's key for the same start differs, and neither is the start line's plain hash.
    assert first.key_of(server) != second.key_of(server)
    plain = hashlib.sha256(server.start_line.encode()).hexdigest()
    assert plain not in first.key_of(server) and plain not in second.key_of(server)
    assert first.key_of(server) == start_digest(server.start_line, bytes.fromhex(first.salt))
    # Read back, the same salt keeps the confirmation.
    kept = ToolPrefs.from_json(first.with_started(server).to_json())
    assert kept.salt == first.salt and kept.allows(server)


def test_confirmations_stored_by_earlier_versions_are_asked_again_and_leave_the_file() -> None:
    server = McpServerConfig("files", "npx", ("-y", "fs"), {"API_KEY": "sk-live-123", "TZ": "UTC"})
    line = "env API_KEY=sk-live-123 TZ=UTC npx -y fs"
    assert server.start_line == line
    unkeyed = "sha256:" + hashlib.sha256(line.encode()).hexdigest()
    for older in ({"new_chats": ["add"], "started": [line, unkeyed]}, {"started": [unkeyed], "salt": "zz"}):
        prefs = ToolPrefs.from_json(json.dumps(older))
        assert not prefs.allows(server) and prefs.started == ()
        assert "sk-live-123" not in prefs.to_json() and unkeyed not in prefs.to_json()
    assert ToolPrefs.from_json(json.dumps({"new_chats": ["add"], "started": [line]})).new_chats == {"add"}
