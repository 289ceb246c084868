"""A chat's tool choices (newer and older stored forms), the user's tool preferences, and a server's start key."""

from __future__ import annotations

import json

from app.core.tools.mcp_config import McpServerConfig
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
    prefs = ToolPrefs().with_new_chat("add", True).with_started("python server.py").with_started("python server.py")
    assert prefs.started == ("python server.py",) and prefs.allows("python server.py")
    assert ToolPrefs.from_json(prefs.to_json()) == prefs
    assert not prefs.without_started("python server.py").allows("python server.py")
    assert prefs.with_new_chat("add", False).new_chats == frozenset()
    assert ToolPrefs.from_json("not json") == ToolPrefs()
    assert ToolPrefs.from_json('{"started": ["a", 3, "a"], "new_chats": "x"}') == ToolPrefs(started=("a",))


def test_a_start_key_holds_the_command_and_its_environment() -> None:
    plain = McpServerConfig("time", "uvx", ("mcp-server-time",))
    assert plain.start_key == "uvx mcp-server-time"
    with_env = McpServerConfig("time", "uvx", ("mcp-server-time",), {"TZ": "UTC", "A": "b c"})
    assert with_env.start_key == "env 'A=b c' TZ=UTC uvx mcp-server-time"
