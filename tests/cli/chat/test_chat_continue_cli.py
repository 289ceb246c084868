"""`python main.py chat --chat ID "follow-up"` on the real SmolLM2 pair: a saved chat continued and saved.

The chat's stored settings decide the reply (its system prompt, token limit,
drafter), options on the command line override them for one reply, and both
new messages land in the store on the chat's active branch with
``meta["produced_by"]``. Models run with one thread (other tests share the cores).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.engine.store.conversations import ChatStore
from tests.cli.helpers import one_line_error, run_cli
from tests.cli.store_holder import held_by_another_process
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
LONG_SYSTEM = "You are a ship's cook who answers in short sentences. " * 12
# The demo pair writes a reasoning block when asked to (no reasoning model is on disk; greedy: the same every time).
THINK_FIRST = "Always begin your reply with <think>, write your reasoning, then </think>, then the answer."


def _pair(pair: tuple[Path, Path]) -> list[str]:
    return ["--target", str(pair[0]), "--draft", str(pair[1]), "--ctx", "1024", "--threads", "1"]


def _seed_chat(path: Path, settings: ChatSettings, title: str = "Kitchen") -> tuple[int, int]:
    """A saved chat with a regenerated first reply; returns (conversation, the reply on the active branch)."""
    store = ChatStore(path)
    try:
        cid = store.create_conversation(title, settings.to_dict())
        question = store.add_message(cid, "user", "What is in the soup?")
        store.add_message(cid, "assistant", "Carrots.")
        active = store.add_message(cid, "assistant", "Potatoes and leeks.", parent_id=question)
        return cid, active
    finally:
        store.close()


def test_chat_continues_on_the_active_branch_with_the_stored_settings(data_dir, small_pair):
    path = data_dir / "conversations.sqlite3"
    settings = ChatSettings(system_prompt=LONG_SYSTEM, max_tokens=12, drafter=DrafterKind.MODEL, draft_length=3)
    cid, active = _seed_chat(path, settings)
    plain_cid, _ = _seed_chat(path, ChatSettings(max_tokens=12), "Kitchen without a system prompt")

    result = run_cli("chat", "--chat", str(cid), *_pair(small_pair), "--json", "And the bread?", data=data_dir)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["conversation_id"] == cid
    assert 0 < payload["stats"]["emitted"] <= 12  # the chat's own limit, not the CLI's default 256

    store = ChatStore(path, read_only=True)
    try:
        branch = store.messages(cid)
        assert [m.content for m in branch[:3]] == ["What is in the soup?", "Potatoes and leeks.", "And the bread?"]
        assert branch[2].parent_id == active and branch[2].id == payload["user_message_id"]
        reply = branch[3]
        assert (reply.id, reply.role, reply.state) == (payload["reply_message_id"], "assistant", "done")
        assert reply.content == payload["text"] == "".join(t.text for t in reply.tokens)
        produced = reply.meta["produced_by"]
        assert produced == payload["produced_by"]
        assert produced["system_prompt"] == LONG_SYSTEM and produced["sampling"]["max_tokens"] == 12
        # The chat's draft length 3 is a floor on the adaptive controller's maximum, as in the window.
        assert produced["drafter"] == "model" and produced["draft_policy"] == "adaptive, up to 12"
        assert produced["target"] == small_pair[0].name and produced["draft"] == small_pair[1].name
        assert isinstance(produced["seed"], int)
        assert reply.meta["stats"]["emitted"] == payload["stats"]["emitted"]
        assert reply.meta["finish_reason"] == payload["finish_reason"]
        assert len(store.all_messages(cid)) == 5  # the other branch is kept
    finally:
        store.close()

    plain = run_cli("chat", "--chat", str(plain_cid), *_pair(small_pair), "--json", "And the bread?", data=data_dir)
    assert plain.returncode == 0, plain.stderr
    # Same history and question: the stored system prompt is what makes the first prompt longer.
    assert len(payload["prompt_tokens"]) > len(json.loads(plain.stdout)["prompt_tokens"]) + 50


def test_command_line_options_override_for_one_reply_and_leave_the_chat_settings(data_dir, small_pair):
    path = data_dir / "conversations.sqlite3"
    cid, _ = _seed_chat(path, ChatSettings(max_tokens=40, drafter=DrafterKind.MODEL, seed=-1))
    args = ["--max-tokens", "4", "--ngram", "--seed", "77", "--temperature", "0.7"]
    target_only = ["--target", str(small_pair[0]), "--ctx", "1024", "--threads", "1"]
    result = run_cli("chat", "--chat", str(cid), *target_only, *args, "--json", "More salt?", data=data_dir)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["stats"]["emitted"] <= 4 and payload["drafter"] == "ngram"
    produced = payload["produced_by"]
    assert (produced["seed"], produced["drafter"], produced["draft"]) == (77, "ngram", None)
    assert produced["sampling"]["temperature"] == 0.7 and produced["sampling"]["max_tokens"] == 4
    store = ChatStore(path, read_only=True)
    try:
        assert ChatSettings.from_dict(store.conversation_settings(cid)) == ChatSettings(
            max_tokens=40, drafter=DrafterKind.MODEL
        )
    finally:
        store.close()


def test_streamed_output_is_saved_too(data_dir, small_pair):
    path = data_dir / "conversations.sqlite3"
    cid, _ = _seed_chat(path, ChatSettings(max_tokens=6))
    result = run_cli("chat", "--chat", str(cid), *_pair(small_pair), "Thanks!", data=data_dir)
    assert result.returncode == 0, result.stderr
    assert "legend:" in result.stdout
    store = ChatStore(path, read_only=True)
    try:
        reply = store.messages(cid)[-1]
        assert reply.role == "assistant" and reply.content and reply.content in result.stdout
    finally:
        store.close()


def test_a_reply_that_thinks_keeps_its_thinking_time_summed_from_its_step_records(data_dir, demo_pair):
    path = data_dir / "conversations.sqlite3"
    store = ChatStore(path)
    try:
        settings = ChatSettings(system_prompt=THINK_FIRST, max_tokens=80, temperature=0.0)
        cid = store.create_conversation("Sums", settings.to_dict())
    finally:
        store.close()
    result = run_cli("chat", "--chat", str(cid), *_pair(demo_pair), "--json", "What is 2+3?", data=data_dir)
    assert result.returncode == 0, result.stderr
    store = ChatStore(path, read_only=True)
    try:
        reply = store.messages(cid)[-1]
        steps = store.steps(reply.id)
    finally:
        store.close()
    assert reply.content.startswith("<think>") and "</think>" in reply.content, reply.content
    texts = [t.text for t in reply.tokens]
    close = next(i for i in range(len(texts)) if "</think>" in "".join(texts[: i + 1]))
    # The block runs from the first token to the one that closed it: the steps that wrote those tokens count.
    expected = sum(s.draft_ms + s.verify_ms for s in steps if s.first_token <= close) / 1000.0
    assert expected > 0 and reply.meta["thinking_seconds"] == pytest.approx(expected, abs=0.01)


def test_bad_chat_ids_are_one_line_before_any_model_loads(data_dir, small_pair):
    path = data_dir / "conversations.sqlite3"
    cid, _ = _seed_chat(path, ChatSettings())
    for bad, words in (("999", "no chat with id 999"), ("soup", "not a chat id")):
        one_line_error(run_cli("chat", "--chat", bad, *_pair(small_pair), "hi", data=data_dir), words)
    one_line_error(
        run_cli("chat", "--chat", str(cid), "--remote", "http://127.0.0.1:9/v1", "hi", data=data_dir), "--remote"
    )
    store = ChatStore(path)
    store.delete_conversation(cid)
    store.close()
    one_line_error(run_cli("chat", "--chat", str(cid), *_pair(small_pair), "hi", data=data_dir), "in the trash")
    store = ChatStore(path, read_only=True)
    try:
        assert len(store.all_messages(cid)) == 3  # nothing was added
    finally:
        store.close()


def test_a_chat_another_process_writes_is_one_line(data_dir, small_pair):
    path = data_dir / "conversations.sqlite3"
    cid, _ = _seed_chat(path, ChatSettings())
    with held_by_another_process(path, data_dir):
        result = run_cli("chat", "--chat", str(cid), *_pair(small_pair), "hi", data=data_dir)
        one_line_error(result, "another Tandem")


def test_invalid_overrides_are_one_line(data_dir, small_pair):
    cid, _ = _seed_chat(data_dir / "conversations.sqlite3", ChatSettings())
    one_line_error(run_cli("chat", "--chat", str(cid), *_pair(small_pair), "--draft-max", "-1", "hi", data=data_dir))


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (["--max-tokens", "0"], "argument --max-tokens: max_tokens must be a whole number from 1 to 1000000"),
        (["--top-p", "3"], "argument --top-p: top_p must be a number from 0 to 1 "),
    ],
)
def test_out_of_range_sampling_overrides_are_refused_while_parsing(data_dir, small_pair, bad, words):
    # The sampling fields' own ranges, checked by argparse: its usage line, then the field and its range.
    cid, _ = _seed_chat(data_dir / "conversations.sqlite3", ChatSettings())
    result = run_cli("chat", "--chat", str(cid), *_pair(small_pair), *bad, "hi", data=data_dir)
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
    assert words in result.stderr.strip().splitlines()[-1], result.stderr
