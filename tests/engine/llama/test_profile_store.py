"""The controller's learned profile kept on disk: restored by a new load of the same pair, dropped when damaged."""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from app.core.adaptive.profile import PairProfile
from app.core.adaptive.threads import AdaptiveThreads
from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.events import FinishedEvent, StepEvent
from app.engine.llama.profile_store import ProfileStore, pair_key
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.reply import ReplyRequest, chat_messages, plan_reply, run_reply
from tests.core.adaptive.policy_runs import learned_profile

QUESTION = "Write a Python function that returns the squares of the numbers 1 to 10 as a list."


def _reply(pair: LoadedPair, max_tokens: int = 40) -> tuple[list[StepEvent], FinishedEvent]:
    settings = ChatSettings(temperature=0.0, max_tokens=max_tokens, drafter=DrafterKind.MODEL)
    messages = chat_messages(settings, [Message("user", QUESTION)])
    plan = plan_reply(pair, ReplyRequest(settings, messages, trace=True))
    events = list(run_reply(pair, plan))
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    return [e for e in events if isinstance(e, StepEvent)], finished


def test_a_new_load_of_the_same_pair_starts_from_what_the_last_one_learned(
    small_pair: tuple[Path, Path], tmp_path: Path, load_timing: None
) -> None:
    target, draft = small_pair
    store = ProfileStore(tmp_path / "profiles.json")
    config = PairConfig(target, draft, DrafterKind.MODEL, n_ctx=1024, n_threads=1)
    with LoadedPair(config) as pair:
        assert not pair.attach_profile_store(store)  # nothing kept yet
        first_steps, first = _reply(pair)
        learned_one_token = pair.profile.verify.one_token_s
    assert len(store) == 1  # saved after the reply
    with LoadedPair(config) as again:
        assert again.attach_profile_store(store)
        assert again.profile.verify.known and again.profile.drafts["model"].known
        assert again.profile.verify.one_token_s == pytest.approx(learned_one_token)
        assert again.profile.draft_share_prior == pytest.approx(0.1)  # timed at this load, not taken from the file
        steps, finished = _reply(again)
    # The same greedy text: a restored profile changes how the reply is drafted, never what it says.
    assert finished.text == first.text
    # The first load spent its first drafts measuring what a draft costs; the second knew it from the start.
    assert any(_measuring(s) for s in first_steps)
    assert not any(_measuring(s) for s in steps)


def test_the_thread_policy_is_kept_beside_the_profile_and_a_forced_count_leaves_it(
    small_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    target, draft = small_pair
    path = tmp_path / "profiles.json"
    auto = PairConfig(target, draft, DrafterKind.MODEL, n_ctx=1024, n_threads=None)
    with LoadedPair(auto) as pair:
        pair.attach_profile_store(ProfileStore(path))
        assert isinstance(pair.threads, AdaptiveThreads)
        _reply(pair)
        kept = pair.threads.state()
    (entry,) = json.loads(path.read_text(encoding="utf-8"))["entries"].values()
    assert entry["threads"] == kept and kept["candidates"] == list(pair.threads.candidates)
    # A count the user forced learns nothing about the others: what the automatic policy learned stays.
    with LoadedPair(replace(auto, n_threads=1)) as forced:
        assert forced.attach_profile_store(ProfileStore(path))
        _reply(forced)
    (entry,) = json.loads(path.read_text(encoding="utf-8"))["entries"].values()
    assert entry["threads"] == kept


def _measuring(step: StepEvent) -> bool:
    assert step.record is not None
    return "measuring what a draft costs" in step.record.reason


def test_another_file_or_machine_setting_is_another_entry(small_pair: tuple[Path, Path], tmp_path: Path) -> None:
    target, draft = small_pair
    key = pair_key(target, draft, (0, 0))
    assert pair_key(target, draft, (0, 0)) == key
    assert pair_key(target, None, (0, 0)) != key
    assert pair_key(target, draft, (99, 0)) != key
    copy = tmp_path / target.name
    copy.write_bytes(target.read_bytes())
    assert pair_key(copy, draft, (0, 0)) != key
    key_before = pair_key(copy, draft, (0, 0))
    stat = copy.stat()
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # the file was replaced since
    assert pair_key(copy, draft, (0, 0)) != key_before


def test_a_damaged_file_is_ignored_and_then_replaced(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "profiles.json"
    store = ProfileStore(path)
    for junk in (b"\x00\xffnot json", b'{"version": 1, "entries": [1, 2]}', b'{"version": 99, "entries": {}}', b"[]"):
        path.write_bytes(junk)
        with caplog.at_level(logging.WARNING):
            assert store.load("any") is None
        assert "controller profile" in caplog.text
        caplog.clear()
    store.save("k", learned_profile())
    assert store.load("k") is not None
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 1


def test_a_damaged_entry_is_dropped_and_the_others_kept(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "profiles.json"
    store = ProfileStore(path)
    for name in ("good", "bad", "worse"):
        store.save(name, learned_profile())
    data = json.loads(path.read_text(encoding="utf-8"))
    data["entries"]["bad"]["profile"]["verify"]["one_token"] = [float("inf"), 1.0]
    data["entries"]["worse"]["profile"]["drafts"] = ["not", "a", "table"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert store.load("bad") is None and store.load("worse") is None
    assert caplog.text.count("dropped a damaged controller profile") == 2
    assert len(store) == 1 and isinstance(store.load("good"), PairProfile)


def test_the_least_recently_saved_pairs_go_first(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path / "profiles.json", max_entries=3)
    for name in ("a", "b", "c", "d"):
        store.save(name, PairProfile())
    assert len(store) == 3 and store.load("a") is None and store.load("d") is not None
    store.clear()
    assert len(store) == 0 and not (tmp_path / "profiles.json").exists()


def test_a_folder_that_cannot_be_written_costs_a_log_line_not_the_reply(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be", encoding="utf-8")
    store = ProfileStore(blocker / "profiles.json")
    with caplog.at_level(logging.WARNING):
        store.save("k", learned_profile())  # must not raise
    assert "could not save the controller profiles" in caplog.text
    assert store.load("k") is None
    assert not list(tmp_path.glob("**/*.part"))


posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX links, FIFOs and modes")


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "device link", "link out", "bomb", "deep"])
def test_a_file_that_is_not_one_tandem_wrote_is_ignored_in_one_line_and_never_written_through(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    """Case 4 and 7 for the learned speeds: only a small, shallow regular file is read; a link is replaced, not read."""
    path = tmp_path / "profiles.json"
    other = ProfileStore(tmp_path / "kept.json")
    other.save("theirs", learned_profile())
    theirs = (tmp_path / "kept.json").read_bytes()  # a valid file of profiles, as a link's target
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device link":
        path.symlink_to("/dev/zero")
    elif kind == "link out":
        path.symlink_to(tmp_path / "kept.json")
    elif kind == "bomb":  # 5 MB of numbers: over 150 MB once parsed
        path.write_text(theirs.decode()[:-2] + ', "x": [' + "1," * 2_500_000 + "1]}}", encoding="utf-8")
    else:
        path.write_text(theirs.decode()[:-2] + ', "x": ' + "[" * 100 + "]" * 100 + "}}", encoding="utf-8")
    store = ProfileStore(path)
    counted: list[int] = []
    reader = threading.Thread(target=lambda: counted.append(len(store)), daemon=True)
    with caplog.at_level(logging.WARNING, logger="app.engine.llama.profile_store"):
        reader.start()
        reader.join(60)  # a FIFO opened as a file would wait for a writer for ever
        assert counted == [0]
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith(f"ignored an unreadable controller profile file {path}: ") and "\n" not in line
    store.save("mine", learned_profile())
    assert not path.is_symlink() and store.load("mine") is not None and len(store) == 1
    assert (tmp_path / "kept.json").read_bytes() == theirs  # a link is replaced, what it pointed to untouched


@posix_only
def test_the_file_is_private_and_a_link_planted_as_its_temporary_file_is_not_written_through(tmp_path: Path) -> None:
    """Case 7: the file was 0644 in a 0755 folder; its temporary name is predictable (pid and thread)."""
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    path = folder / "profiles.json"
    path.write_text('{"version": 1, "entries": {}}', encoding="utf-8")
    os.chmod(path, 0o644)
    victim = tmp_path / "my-notes.txt"
    victim.write_text("my notes", encoding="utf-8")
    planted = folder / f"{path.name}.{os.getpid()}.{threading.get_ident()}.part"
    planted.symlink_to(victim)
    store = ProfileStore(path)
    store.save("k", learned_profile())
    assert victim.read_text(encoding="utf-8") == "my notes"
    assert store.load("k") is not None and not path.is_symlink()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not planted.exists() and not planted.is_symlink()
