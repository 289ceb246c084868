"""`tandem cache`: what a real `chat` left on disk (saved prompt states, a pair's learned speeds), shown, cleared."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.engine.llama.prefix_cache import SUFFIX
from tests.cli.helpers import one_line_error, run_cli, run_cli_process

# Long enough to be saved (over MIN_PREFIX_TOKENS, 512, with the question), and not much longer: `chat` reads it.
DOCUMENT = "\n".join(f"Entry {i}: the heron at Lake Bled was {i % 7 + 2} years old." for i in range(36))


def _show(data: Path) -> dict[str, dict[str, object]]:
    result = run_cli("cache", "show", "--json", data=data)
    assert result.returncode == 0, result.stderr
    shown: dict[str, dict[str, object]] = json.loads(result.stdout)
    return shown


def test_an_empty_data_folder_shows_nothing_kept(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = run_cli("cache", data=data)  # no action: show
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"prefix cache: {data / 'cache' / 'prefix-cache'}",
        "  0 B in 0 saved states (limit 4.00 GiB)",
        f"learned speeds: {data / 'cache' / 'controller-profiles.json'}",
        "  0 model pairs",
    ]
    assert _show(data)["prefix_cache"] == {
        "folder": str(data / "cache" / "prefix-cache"),
        "entries": 0,
        "bytes": 0,
        "longest_tokens": 0,
        "limit_bytes": 4 * 1024**3,
    }


def test_what_a_chat_kept_is_shown_then_cleared_one_store_at_a_time(
    small_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    prompt = tmp_path / "prompt.txt"
    prompt.write_text(f"{DOCUMENT}\n\nHow old was the heron in entry 30?", encoding="utf-8")
    chat = run_cli(
        "chat", "--target", str(small_pair[0]), "--draft", str(small_pair[1]), "--ctx", "2048", "--threads", "1",
        "--json", "--temperature", "0", "--max-tokens", "6", "--prompt-file", str(prompt), data=data,
    )  # fmt: skip
    assert chat.returncode == 0, chat.stderr
    prompt_tokens = len(json.loads(chat.stdout)["prompt_tokens"])
    files = list((data / "cache" / "prefix-cache").glob(f"*{SUFFIX}"))
    shown = _show(data)
    assert shown["prefix_cache"]["entries"] == len(files) >= 1  # the target's state (the draft's if it drafted)
    assert shown["prefix_cache"]["bytes"] == sum(f.stat().st_size for f in files) > 0
    assert prompt_tokens <= int(shown["prefix_cache"]["longest_tokens"]) <= prompt_tokens + 6  # type: ignore[call-overload]
    assert shown["learned_speeds"]["pairs"] == 1
    text = run_cli("cache", "show", data=data).stdout
    assert f"in {len(files)} saved state" in text and "the longest" in text and "  1 model pair\n" in text

    speeds = run_cli("cache", "clear", "--speeds", data=data)
    assert speeds.returncode == 0 and speeds.stdout == "forgot the learned speeds of 1 model pair\n", speeds.stderr
    assert _show(data)["learned_speeds"]["pairs"] == 0 and _show(data)["prefix_cache"]["entries"] == len(files)

    both = run_cli("cache", "clear", data=data)
    assert both.returncode == 0, both.stderr
    assert both.stdout.startswith(f"removed {len(files)} saved state")
    assert both.stdout.endswith("forgot the learned speeds of 0 model pairs\n")
    assert _show(data)["prefix_cache"]["entries"] == 0
    assert not list((data / "cache" / "prefix-cache").glob(f"*{SUFFIX}"))


def test_clear_takes_one_store_or_both_not_two_flags(tmp_path: Path) -> None:
    one_line_error(run_cli("cache", "clear", "--prefixes", "--speeds", data=tmp_path), "not allowed with")


@pytest.mark.skipif(os.name == "nt", reason="POSIX links")
def test_clear_with_the_cache_folder_a_link_removes_nothing_where_it_points(tmp_path: Path) -> None:
    """Case 5: `cache clear` removed a `*.part` file in the folder the link pointed to, the scan a `my-notes.tkv`."""
    elsewhere = tmp_path / "my-documents"
    elsewhere.mkdir()
    for name in ("my-notes.tkv", "thesis.part"):
        (elsewhere / name).write_text(f"the user's {name}", encoding="utf-8")
    data = tmp_path / "data"
    (data / "cache").mkdir(parents=True)
    (data / "cache" / "prefix-cache").symlink_to(elsewhere)
    result = run_cli_process("cache", "clear", "--prefixes", data=data, timeout=120)  # the log line as printed
    assert result.returncode == 0 and result.stdout == "removed 0 saved states (0 B)\n"
    assert result.stderr.count("\n") == 1 and "symbolic link" in result.stderr, result.stderr
    assert str(data / "cache" / "prefix-cache") in result.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == ["my-notes.tkv", "thesis.part"]
    assert (elsewhere / "thesis.part").read_text(encoding="utf-8") == "the user's thesis.part"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("action", ["show", "clear"])
def test_a_fifo_among_the_entries_is_skipped_with_a_note_not_waited_on(tmp_path: Path, action: str) -> None:
    """Case 4: a FIFO named as an entry hung `cache show` and `cache clear` (a new process: a hang is a timeout)."""
    data = tmp_path / "data"
    (data / "cache" / "prefix-cache").mkdir(parents=True)
    fifo = data / "cache" / "prefix-cache" / f"{'a' * 64}{SUFFIX}"
    os.mkfifo(fifo)
    result = run_cli_process("cache", action, data=data, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("\n") == 1 and f"skipped {fifo}: it is a FIFO" in result.stderr, result.stderr
    assert fifo.exists()  # not Tandem's file: left where it is


def test_clear_with_a_folder_where_the_learned_speeds_are_kept_says_so_in_one_line(tmp_path: Path) -> None:
    """A folder named as the learned-speeds file ended `cache clear` in a traceback (IsADirectoryError)."""
    data = tmp_path / "data"
    folder = data / "cache" / "controller-profiles.json"
    folder.mkdir(parents=True)
    (folder / "kept.txt").write_text("the user's", encoding="utf-8")
    result = run_cli_process("cache", "clear", "--speeds", data=data, timeout=120)  # the log line as printed
    assert result.returncode == 0, result.stderr
    assert result.stdout == "forgot the learned speeds of 0 model pairs\n"
    lines = result.stderr.splitlines()
    assert any(line.startswith(f"could not remove the controller profiles {folder}: ") for line in lines), lines
    assert "Traceback" not in result.stderr and (folder / "kept.txt").read_text(encoding="utf-8") == "the user's"
