"""`python main.py chats list|show|search|export|import|delete|restore` in subprocesses, on a real database.

Each subcommand is run as a user or a script would run it, with and without
``--json``; bad input (an unknown id, a file that is not an export, a
database another process writes) gets one line on stderr and exit code 2.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from app.core.reply.token_record import TokenRecord
from app.engine.store.conversations import ChatStore
from tests.cli.helpers import one_line_error, run_cli
from tests.cli.store_holder import held_by_another_process
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


@pytest.fixture
def history(data_dir: Path) -> dict[str, int]:
    """Two chats, one with a regenerated reply; returns their ids."""
    store = ChatStore(data_dir / "conversations.sqlite3")
    try:
        colours = store.create_conversation("Colours 🎨")
        question = store.add_message(colours, "user", "Name a colour, s'il te plaît.")
        first = store.begin_reply(colours, {"produced_by": {"drafter": "model", "seed": 3}})
        store.append_tokens(first, [TokenRecord(text="Turquoise", origin="draft", p_target=0.9, q_draft=0.8)])
        store.finish_reply(first, "Turquoise", meta={"stats": {"emitted": 1, "tokens_per_second": 2.0}})
        second = store.add_message(colours, "assistant", "Vermilion", parent_id=question)
        japanese = store.create_conversation("日本語")
        store.add_message(japanese, "user", "東京の天気は？")
        store.set_pinned(japanese, True)
        return {"colours": colours, "japanese": japanese, "first": first, "second": second, "question": question}
    finally:
        store.close()


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def test_list_pinned_first_in_text_and_json(data_dir, history):
    lines = _ok(run_cli("chats", "list", data=data_dir)).splitlines()
    assert lines[0].split()[0] == f"{history['japanese']}*" and "日本語" in lines[0]
    assert "Colours 🎨" in lines[1] and "3 messages" in lines[1]
    listed = json.loads(_ok(run_cli("chats", "list", "--json", data=data_dir)))
    assert [(c["id"], c["pinned"], c["messages"]) for c in listed] == [
        (history["japanese"], True, 1),
        (history["colours"], False, 3),
    ]


def test_show_prints_the_active_branch_with_its_position(data_dir, history):
    text = _ok(run_cli("chats", "show", str(history["colours"]), data=data_dir))
    assert "Vermilion" in text and "Turquoise" not in text and "‹ 2/2 ›" in text
    shown = json.loads(_ok(run_cli("chats", "show", str(history["colours"]), "--json", data=data_dir)))
    assert [m["content"] for m in shown["messages"]] == ["Name a colour, s'il te plaît.", "Vermilion"]
    assert shown["messages"][1]["branch"] == {"position": 2, "of": 2}
    assert shown["messages"][1]["parent"] == history["question"]


def test_search_finds_every_branch_and_marks_matches(data_dir, history):
    hits = json.loads(_ok(run_cli("chats", "search", "turquoise", "--json", data=data_dir)))
    assert [(h["conversation_id"], h["message_id"], h["role"]) for h in hits] == [
        (history["colours"], history["first"], "assistant")
    ]
    start, end = hits[0]["matches"][0]
    assert hits[0]["snippet"][start:end] == "Turquoise"
    text = _ok(run_cli("chats", "search", "東京", data=data_dir))
    assert "[東京]" in text and "日本語" in text
    assert _ok(run_cli("chats", "search", "nothing-like-this", data=data_dir)) == "no messages match\n"
    assert json.loads(_ok(run_cli("chats", "search", "nothing-like-this", "--json", data=data_dir))) == []


def test_search_ignores_accents_and_case(data_dir, history):
    hits = json.loads(_ok(run_cli("chats", "search", "PLAIT", "--json", data=data_dir)))
    assert [h["message_id"] for h in hits] == [history["question"]]
    start, end = hits[0]["matches"][0]
    assert hits[0]["snippet"][start:end] == "plaît"


def test_fork_copies_a_branch_into_a_new_chat(data_dir, history):
    forked = json.loads(
        _ok(run_cli("chats", "fork", str(history["colours"]), str(history["first"]), "--json", data=data_dir))
    )
    assert forked["title"] == "Fork of Colours 🎨" and forked["messages"] == 2
    shown = json.loads(_ok(run_cli("chats", "show", str(forked["id"]), "--json", data=data_dir)))
    assert [m["content"] for m in shown["messages"]] == ["Name a colour, s'il te plaît.", "Turquoise"]
    assert shown["messages"][1]["meta"]["produced_by"]["seed"] == 3  # provenance comes along
    one_line_error(run_cli("chats", "fork", str(history["colours"]), "x", data=data_dir), "is not a message of chat")
    one_line_error(
        run_cli("chats", "fork", str(history["japanese"]), str(history["first"]), data=data_dir), "is not a message"
    )


def test_restore_puts_a_deleted_message_back_in_its_chat(data_dir, history):
    store = ChatStore(data_dir / "conversations.sqlite3")
    try:
        holder = store.trash_message(history["second"])
    finally:
        store.close()
    _ok(run_cli("chats", "restore", str(holder), data=data_dir))
    shown = json.loads(_ok(run_cli("chats", "show", str(history["colours"]), "--json", data=data_dir)))
    assert [m["content"] for m in shown["messages"]] == ["Name a colour, s'il te plaît.", "Vermilion"]
    assert json.loads(_ok(run_cli("chats", "list", "--trash", "--json", data=data_dir))) == []


def test_export_import_round_trip_gives_the_same_messages(data_dir, history, tmp_path):
    out = tmp_path / "colours.json"
    cid = str(history["colours"])
    done = _ok(run_cli("chats", "export", cid, "--format", "json", "--out", str(out), data=data_dir))
    assert str(out) in done
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported["version"] == 3 and len(exported["messages"]) == 3

    imported = json.loads(_ok(run_cli("chats", "import", str(out), "--json", data=data_dir)))
    assert imported["title"] == "Colours 🎨" and imported["messages"] == 3
    again = json.loads(_ok(run_cli("chats", "export", str(imported["id"]), "--format", "json", data=data_dir)))

    def same(m: dict) -> dict:
        return {k: v for k, v in m.items() if k not in ("id", "parent")}

    assert [same(m) for m in again["messages"]] == [same(m) for m in exported["messages"]]
    original = _ok(run_cli("chats", "show", str(history["colours"]), data=data_dir)).splitlines()[1:]
    copy = _ok(run_cli("chats", "show", str(imported["id"]), data=data_dir)).splitlines()[1:]
    assert [line for line in copy if "[" not in line] == [line for line in original if "[" not in line]

    markdown = _ok(run_cli("chats", "export", str(history["colours"]), data=data_dir))
    assert markdown.startswith("# Colours 🎨\n") and "Vermilion" in markdown
    as_json = json.loads(_ok(run_cli("chats", "export", str(history["colours"]), "--json", data=data_dir)))
    assert as_json["format"] == "md" and as_json["markdown"] == markdown


def test_delete_moves_to_the_trash_and_restore_brings_it_back(data_dir, history):
    cid = str(history["colours"])
    deleted = _ok(run_cli("chats", "delete", cid, data=data_dir))
    assert "trash" in deleted and f"chats restore {cid}" in deleted
    assert [c["id"] for c in json.loads(_ok(run_cli("chats", "list", "--json", data=data_dir)))] == [
        history["japanese"]
    ]
    assert json.loads(_ok(run_cli("chats", "search", "Vermilion", "--json", data=data_dir))) == []
    trash = json.loads(_ok(run_cli("chats", "list", "--trash", "--json", data=data_dir)))
    assert [c["id"] for c in trash] == [history["colours"]] and "deleted" in trash[0]
    one_line_error(run_cli("chats", "delete", cid, data=data_dir), "in the trash", f"chats restore {cid}")
    assert json.loads(_ok(run_cli("chats", "restore", cid, "--json", data=data_dir)))["restored"] is True
    assert len(json.loads(_ok(run_cli("chats", "list", "--json", data=data_dir)))) == 2
    one_line_error(run_cli("chats", "restore", cid, data=data_dir), "not in the trash")
    gone = json.loads(_ok(run_cli("chats", "delete", cid, "--permanent", "--json", data=data_dir)))
    assert gone["deleted"] == "permanently"
    assert run_cli("chats", "list", "--trash", data=data_dir).stdout == "the trash is empty\n"


@pytest.mark.parametrize("command", ["show", "export", "delete", "restore"])
@pytest.mark.parametrize("bad", ["424242", "abc"])
def test_an_unknown_or_malformed_id_is_one_line(data_dir, history, command, bad):
    one_line_error(run_cli("chats", command, bad, data=data_dir), bad, "chats list")


def test_a_file_that_is_not_an_export_is_one_line_and_nothing_is_imported(data_dir, history, tmp_path):
    cases = {
        "missing.json": None,
        "binary.json": b"\xff\xfe\x00garbage",
        "text.json": b"just some words",
        "other.json": json.dumps({"model": "gpt", "messages": []}).encode(),
        "broken.json": json.dumps({"format": "tandem-conversation", "version": 2, "messages": [{"id": 1}]}).encode(),
    }
    words = {
        "missing.json": "cannot read",
        "binary.json": "not UTF-8",
        "text.json": "not JSON",
        "other.json": "format",
        "broken.json": "role",
    }
    for name, content in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        one_line_error(run_cli("chats", "import", str(path), data=data_dir), words[name])
    assert len(json.loads(_ok(run_cli("chats", "list", "--json", data=data_dir)))) == 2


def test_empty_search_and_bad_limit_are_one_line(data_dir, history):
    one_line_error(run_cli("chats", "search", "  ", data=data_dir), "empty")
    one_line_error(run_cli("chats", "search", "x", "--limit", "0", data=data_dir), "--limit")


def test_a_database_another_process_writes_refuses_writes_in_one_line_and_still_reads(data_dir, history, tmp_path):
    export = tmp_path / "export.json"
    _ok(run_cli("chats", "export", str(history["colours"]), "--format", "json", "--out", str(export), data=data_dir))
    with held_by_another_process(data_dir / "conversations.sqlite3", data_dir):
        for command in (("import", str(export)), ("delete", str(history["colours"]))):
            one_line_error(run_cli("chats", *command, data=data_dir), "another Tandem")
        assert len(json.loads(_ok(run_cli("chats", "list", "--json", data=data_dir)))) == 2  # reading still works
        assert "Vermilion" in _ok(run_cli("chats", "show", str(history["colours"]), data=data_dir))
        assert _ok(run_cli("chats", "search", "Vermilion", data=data_dir))
    assert _ok(run_cli("chats", "import", str(export), data=data_dir)).startswith("imported chat ")


def test_listing_and_searching_a_v1_database_does_not_migrate_it(data_dir):
    fixture = ROOT / "tests" / "fixtures" / "conversations-v1.sqlite3"
    path = data_dir / "conversations.sqlite3"
    path.write_bytes(fixture.read_bytes())
    before = path.read_bytes()
    assert len(json.loads(_ok(run_cli("chats", "list", "--json", data=data_dir)))) == 5
    assert json.loads(_ok(run_cli("chats", "search", "bonjour", "--json", data=data_dir)))[0]["role"] == "assistant"
    assert path.read_bytes() == before and not list(data_dir.glob("*backup*"))
    # Writing migrates it, keeping the v1 copy.
    _ok(run_cli("chats", "delete", "5", data=data_dir))
    assert (data_dir / "conversations.v1-backup.sqlite3").is_file()
