"""`python main.py chats` in a subprocess: one line on stderr and exit 2 for an unusable database, never a traceback."""

from __future__ import annotations

import pytest

from tests.cli.helpers import one_line_error, run_cli
from tests.engine import store_files


@pytest.mark.parametrize(
    "damage",
    [store_files.truncate, store_files.garbage_pages, store_files.destroy_header],
    ids=["truncated", "garbage-pages", "destroyed-header"],
)
def test_damaged_database_is_one_line_then_recovered(data_dir, damage):
    path = data_dir / "conversations.sqlite3"
    store_files.build(path)
    damage(path)
    before = store_files.digest(path)
    for command in (("chats", "check"), ("chats", "list")):
        one_line_error(run_cli(*command, data=data_dir), "damaged")
    assert "chats recover" in run_cli("chats", "check", data=data_dir).stderr
    assert store_files.digest(path) == before

    recovered = run_cli("chats", "recover", data=data_dir)
    assert recovered.returncode == 0, recovered.stderr
    assert recovered.stdout.startswith("recovered ") and "damaged file is kept as" in recovered.stdout
    assert run_cli("chats", "check", data=data_dir).returncode == 0
    listing = run_cli("chats", "list", data=data_dir)
    assert listing.returncode == 0 and "chat " in listing.stdout
    (kept,) = [p for p in data_dir.iterdir() if ".damaged-" in p.name and p.suffix == ".sqlite3"]
    assert store_files.digest(kept) == before


def test_folder_in_place_and_unusable_data_folder_are_one_line(data_dir, tmp_path):
    (data_dir / "conversations.sqlite3").mkdir()
    one_line_error(run_cli("chats", "check", data=data_dir), "not a file")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    one_line_error(run_cli("chats", "check", data=blocker / "data"), "TANDEM_DATA_DIR")
    one_line_error(run_cli("chats", "list", data=blocker / "data"), "TANDEM_DATA_DIR")


def test_sound_database_checks_ok_and_lists(data_dir):
    store_files.build(data_dir / "conversations.sqlite3", conversations=2, replies=1)
    assert run_cli("chats", "check", data=data_dir).stdout.startswith("ok: ")
    listing = run_cli("chats", "list", data=data_dir)
    assert listing.returncode == 0 and listing.stdout.count("messages") == 2
    assert run_cli("chats", "recover", data=data_dir).stdout.startswith("nothing to recover")
