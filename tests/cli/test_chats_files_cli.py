"""`python main.py chats` against hostile paths, files and stored text, in subprocesses on real files.

``export --out`` never replaces a link, a folder, a FIFO or a device node and
needs ``--force`` for an existing file; ``import`` refuses a file nested
200,000 deep, a 5,000-digit id, a lone surrogate or an endless one in one line,
importing nothing; ``show``, ``list`` and ``search`` print stored control
characters as escapes (``\\x1b``) so a chat cannot retitle the terminal, clear
it or write the clipboard (OSC 52).
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from app.engine.store.conversations import ChatStore
from tests.cli.helpers import one_line_error, run_cli, run_cli_process

posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX links, FIFOs and device nodes")

# What a terminal obeys (C0 but tab and newline, DEL, C1): none of it may reach stdout from stored text.
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
HOSTILE_TITLE = "\x1b]0;pwned\x07Innocent"
HOSTILE_TEXT = "before \x1b]52;c;cm0gLXJmIH4=\x07 clipboard \x1b[2J\x1b[H cleared \x9b31m c1 \rover"


@pytest.fixture
def chats(data_dir: Path) -> dict[str, int]:
    """One ordinary chat and one whose title and messages carry terminal escapes."""
    store = ChatStore(data_dir / "conversations.sqlite3")
    try:
        plain = store.create_conversation("Colours")
        store.add_message(plain, "user", "Name a colour.")
        store.add_message(plain, "assistant", "Vermilion")
        hostile = store.create_conversation(HOSTILE_TITLE)
        store.add_message(hostile, "user", "marker " + HOSTILE_TEXT)
        return {"plain": plain, "hostile": hostile}
    finally:
        store.close()


def _count(data_dir: Path) -> int:
    listed = run_cli("chats", "list", "--json", data=data_dir)
    assert listed.returncode == 0, listed.stderr
    return len(json.loads(listed.stdout))


# -- export --out -------------------------------------------------------------------------


def test_an_existing_file_needs_force(data_dir, chats, tmp_path):
    out = tmp_path / "chat.md"
    cid = str(chats["plain"])
    assert run_cli("chats", "export", cid, "--out", str(out), data=data_dir).returncode == 0
    first = out.read_text(encoding="utf-8")
    assert "Vermilion" in first
    refused = run_cli("chats", "export", cid, "--format", "json", "--out", str(out), data=data_dir)
    one_line_error(refused, "already exists", "--force")
    assert out.read_text(encoding="utf-8") == first
    forced = run_cli("chats", "export", cid, "--format", "json", "--out", str(out), "--force", data=data_dir)
    assert forced.returncode == 0, forced.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["title"] == "Colours"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chat.md", "tandem-data"]  # no temporary file left


@posix_only
@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_a_symlink_is_refused_and_what_it_points_to_untouched(data_dir, chats, tmp_path, force):
    victim = tmp_path / "bashrc"
    victim.write_text("precious\n")
    link = tmp_path / "chat.md"
    link.symlink_to(victim)
    extra = ["--force"] if force else []
    one_line_error(
        run_cli("chats", "export", str(chats["plain"]), "--out", str(link), *extra, data=data_dir), "symbolic link"
    )
    assert link.is_symlink() and victim.read_text() == "precious\n"


@posix_only
def test_folders_fifos_and_device_nodes_are_refused_even_with_force(data_dir, chats, tmp_path):
    folder = tmp_path / "folder.md"
    folder.mkdir()
    fifo = tmp_path / "fifo.md"
    os.mkfifo(fifo)
    targets = {folder: "folder", fifo: "FIFO"}
    node = tmp_path / "full"
    try:  # root could replace /dev/full itself: a node like it, made here, stands in for it
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:  # not root (or no CAP_MKNOD): a real device this user cannot replace anyway
        node = Path("/dev/null")
    targets[node] = "device"
    for target, word in targets.items():
        before = os.lstat(target)
        for extra in ([], ["--force"]):
            result = run_cli("chats", "export", str(chats["plain"]), "--out", str(target), *extra, data=data_dir)
            one_line_error(result, word, "not a regular file")
        after = os.lstat(target)
        assert (after.st_ino, after.st_mode, after.st_rdev) == (before.st_ino, before.st_mode, before.st_rdev)


# -- import ------------------------------------------------------------------------------


def _export_with(messages: str) -> str:
    return '{"format": "tandem-conversation", "version": 2, "title": "t", "messages": [' + messages + "]}"


GOOD = '{"id": 1, "parent": null, "role": "user", "content": "hello"}'
HOSTILE_IMPORTS = {
    "deep-array": ("[" * 200_000 + "]" * 200_000, "nested deeper than"),
    "deep-object": ('{"a":' * 200_000 + "1" + "}" * 200_000, "nested deeper than"),
    "deep-meta": (
        _export_with(GOOD[:-1] + ', "meta": {"x": ' + "[" * 100 + "]" * 100 + "}}"),
        "nested deeper than",
    ),
    "5000-digit-id": (_export_with('{"id": ' + "7" * 5000 + ', "role": "user", "content": "x"}'), "digits"),
    "huge-created": (_export_with(GOOD[:-1] + ', "created": 1' + "0" * 400 + "}"), "larger than 64 bits"),
    "lone-surrogate-late": (
        _export_with(GOOD + ', {"id": 2, "parent": 1, "role": "assistant", "content": "a\\ud800b"}'),
        "lone surrogate",
    ),
    "surrogate-title": (_export_with(GOOD).replace('"title": "t"', '"title": "\\udfff"'), "lone surrogate"),
    "surrogate-token": (
        _export_with(
            '{"id": 1, "role": "assistant", "content": "x", '
            '"tokens": [{"text": "\\ud83d", "origin": "target", "p_target": 0.5}]}'
        ),
        "lone surrogate",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE_IMPORTS))
def test_a_hostile_file_is_one_line_and_nothing_is_imported(data_dir, chats, tmp_path, case):
    content, word = HOSTILE_IMPORTS[case]
    path = tmp_path / f"{case}.json"
    path.write_text(content, encoding="utf-8")
    before = _count(data_dir)
    one_line_error(run_cli("chats", "import", str(path), data=data_dir), word, "not a Tandem conversation export")
    assert _count(data_dir) == before


@posix_only
def test_a_device_or_a_fifo_is_never_read_as_an_export(data_dir, chats, tmp_path):
    before = _count(data_dir)
    one_line_error(run_cli("chats", "import", "/dev/zero", data=data_dir), "/dev/zero: it is a device, not a regular")
    fifo = tmp_path / "chat.json"
    os.mkfifo(fifo)  # opened for reading, a FIFO waits for a writer for ever
    # In its own process (the in-process runner sets signal handlers, so it cannot run in a thread): a hang
    # ends in TimeoutExpired.
    one_line_error(
        run_cli_process("chats", "import", str(fifo), data=data_dir, timeout=60),
        "chat.json: it is a FIFO, not a regular file",
    )
    assert _count(data_dir) == before


def test_a_file_of_the_same_shape_without_the_hostile_part_imports(data_dir, chats, tmp_path):
    path = tmp_path / "ordinary.json"
    path.write_text(_export_with(GOOD + ', {"id": 2, "parent": 1, "role": "assistant", "content": "fine"}'))
    done = run_cli("chats", "import", str(path), "--json", data=data_dir)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["messages"] == 2  # the refusals above are the hostile parts, not the shape


# -- stored text on the terminal ------------------------------------------------------------


def test_show_list_and_search_print_stored_controls_as_escapes(data_dir, chats):
    cid = str(chats["hostile"])
    outputs = {
        "show": run_cli("chats", "show", cid, data=data_dir),
        "list": run_cli("chats", "list", data=data_dir),
        "search": run_cli("chats", "search", "marker", data=data_dir),
    }
    for name, result in outputs.items():
        assert result.returncode == 0, (name, result.stderr)
        assert not OBEYED.search(result.stdout), (name, result.stdout)
        assert "\\x1b]0;pwned\\x07Innocent" in result.stdout, name
    shown = outputs["show"].stdout
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in shown and "\\x1b[2J\\x1b[H" in shown
    assert "\\x9b31m" in shown and "\\x0dover" in shown
    assert "[marker]" in outputs["search"].stdout  # the match markers still work around escaped text


def test_json_output_escapes_every_control_and_keeps_the_values(data_dir, chats):
    cid = str(chats["hostile"])
    for command in (("show", cid), ("list",), ("search", "marker"), ("export", cid, "--format", "json")):
        result = run_cli("chats", *command, "--json", data=data_dir)
        assert result.returncode == 0, result.stderr
        assert not OBEYED.search(result.stdout), command
    shown = json.loads(run_cli("chats", "show", cid, "--json", data=data_dir).stdout)
    assert shown["title"] == HOSTILE_TITLE and shown["messages"][0]["content"] == "marker " + HOSTILE_TEXT


def test_markdown_export_to_a_pipe_or_file_is_the_stored_text_unchanged(data_dir, chats, tmp_path):
    raw = HOSTILE_TEXT.replace("\r", "\n")  # the text-mode pipe reads a carriage return as a newline
    piped = run_cli("chats", "export", str(chats["hostile"]), data=data_dir)
    assert piped.returncode == 0 and raw in piped.stdout  # data for a script, not shown on a terminal
    out = tmp_path / "hostile.md"
    assert run_cli("chats", "export", str(chats["hostile"]), "--out", str(out), data=data_dir).returncode == 0
    assert HOSTILE_TEXT in out.read_bytes().decode("utf-8")
