"""Tools marked as changing things: the server's hints first, the verbs of the name where it gives none."""

from __future__ import annotations

import pytest

from app.core.tools.writes import name_words, tool_writes


@pytest.mark.parametrize(
    "name",
    ["write_file", "edit_file", "move_file", "create_directory", "delete_item", "remove-label", "writeFile", "rm"],
)
def test_a_name_with_a_changing_verb_is_marked(name: str) -> None:
    assert tool_writes(name)


@pytest.mark.parametrize(
    "name",
    ["read_file", "list_directory", "harbour_clock", "get_settings", "search_files", "directory_tree", "weather"],
)
def test_a_name_that_only_reads_is_not_marked(name: str) -> None:
    assert not tool_writes(name)


def test_the_servers_hints_win_over_the_name() -> None:
    assert not tool_writes("delete_preview", read_only=True)
    assert tool_writes("harbour_clock", read_only=False)
    assert tool_writes("tidy", destructive=True)
    assert not tool_writes("tidy", destructive=False)  # said nothing that changes things, and the name is quiet


def test_name_words_split_every_spelling() -> None:
    assert name_words("writeFile") == name_words("write_file") == name_words("write-file") == ("write", "file")
    assert name_words("getHTTPStatus") == ("get", "http", "status")
