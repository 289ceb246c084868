"""`python main.py chats steps ID`: a reply's verify steps as lines, JSON or an HTML page; `chat --chat` stores them.

The first test runs `chat --chat` on the real SmolLM2 pair (one thread, a
short reply, drafting forced on with a fixed length) and reads the steps it
stored back through the command; the others use records written straight
into a store, for the text, the page and the one-line errors.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.core.reply.step_record import DraftedRecord, StepRecord, TopEntry
from app.core.reply.token_record import TokenRecord
from app.engine.store.conversations import ChatStore
from app.engine.store.steps import encode_step
from tests.cli.helpers import one_line_error, run_cli


def _pair(pair: tuple[Path, Path]) -> list[str]:
    return ["--target", str(pair[0]), "--draft", str(pair[1]), "--ctx", "1024", "--threads", "1"]


def test_chat_continued_from_the_terminal_stores_its_steps(data_dir, small_pair):
    path = data_dir / "conversations.sqlite3"
    settings = ChatSettings(
        max_tokens=24, drafter=DrafterKind.MODEL, draft_length=3, adaptive=False, temperature=0.8, seed=5
    )
    store = ChatStore(path)
    try:
        cid = store.create_conversation("Steps", settings.to_dict())
    finally:
        store.close()
    result = run_cli("chat", "--chat", str(cid), *_pair(small_pair), "--json", "Name a colour.", data=data_dir)
    assert result.returncode == 0, result.stderr
    reply_id = json.loads(result.stdout)["reply_message_id"]

    shown = run_cli("chats", "steps", str(reply_id), "--json", data=data_dir)
    assert shown.returncode == 0, shown.stderr
    payload = json.loads(shown.stdout)
    assert payload["message_id"] == reply_id
    steps = payload["steps"]
    tokens = payload["tokens"]
    assert sum(step["emitted"] for step in steps) == len(tokens) > 0
    assert [step["first_token"] for step in steps] == [sum(s["emitted"] for s in steps[:n]) for n in range(len(steps))]
    assert all(step["reason"].startswith("fixed at 3") for step in steps)
    assert all(step["drafter"] == ("model" if step["drafted"] else None) for step in steps)
    # The first token comes from the target alone while the draft model reads the prompt (lazy
    # prefill); the steps after it draft, and the first one's record says why it did not.
    assert not steps[0]["drafted"] and "deferred" in steps[0]["reason"]
    assert any(step["drafted"] for step in steps[1:])
    # Every drafted token names its probabilities, whether it was kept and the coin (where one was drawn).
    drafted = [token for step in steps for token in step["drafted"]]
    assert all(set(token) == {"text", "p_target", "q_draft", "accepted", "coin", "target_top"} for token in drafted)
    assert all(isinstance(token["accepted"], bool) for token in drafted)
    assert all(token["coin"] is None or 0.0 <= token["coin"] < 1.0 for token in drafted)
    assert all(step["kept"] == sum(token["accepted"] for token in step["drafted"]) for step in steps)
    store = ChatStore(path, read_only=True)
    try:
        assert "".join(token["text"] for token in tokens) == store.message(reply_id).content
    finally:
        store.close()

    lines = run_cli("chats", "steps", str(reply_id), data=data_dir)
    assert lines.returncode == 0, lines.stderr
    assert lines.stdout.count("\n") == len(steps) and lines.stdout.startswith(
        "step 1 · no draft · K=0 asked: 'fixed at 3; deferred"
    )
    assert "step 2 · model · K=3 asked: 'fixed at 3'" in lines.stdout


def _seed(path: Path) -> tuple[int, int, int, int]:
    """A chat with a user message, a reply with two hand-made steps, and an older reply without any."""
    store = ChatStore(path)
    try:
        cid = store.create_conversation("Hand-made")
        user = store.add_message(cid, "user", "Say hello.")
        old = store.add_message(cid, "assistant", "Hi.", parent_id=user)
        reply = store.begin_reply(cid, parent_id=user)
        tokens = [
            TokenRecord(text="Hello", origin="draft", p_target=0.7, q_draft=0.5),
            TokenRecord(text=" <b>world</b>", origin="corrected", p_target=0.5),
            TokenRecord(text="\x1b[31m!", origin="bonus", p_target=0.9, q_draft=0.8),
        ]
        steps = [
            StepRecord(
                index=0, first_token=0, n_emitted=2, drafter="model", draft_length=4, reason="fixed at 4",
                greedy=False,
                drafted=(DraftedRecord("Hello", 0.5, 0.7, True, 0.2), DraftedRecord(" foo", 0.61, 0.12, False, 0.57)),
                residual_top=(TopEntry(" <b>world</b>", 0.5), TopEntry(" bar", 0.2)),
                correction=TopEntry(" <b>world</b>", 0.5), draft_ms=3.1, verify_ms=41.0,
            ),
            StepRecord(
                index=1, first_token=2, n_emitted=1, drafter="lookup", lookup_match=5, draft_length=1,
                reason="fixed at 1", greedy=False, drafted=(DraftedRecord("\x1b[31m!", 1.0, 0.9, True, 0.4),),
                bonus_top=(TopEntry("<|im_end|>", 0.95),), bonus=TopEntry("<|im_end|>", 0.95),
            ),
        ]  # fmt: skip
        store.append_tokens(reply, tokens, steps)
        store.finish_reply(reply, "".join(t.text for t in tokens))
        return cid, user, old, reply
    finally:
        store.close()


def test_steps_as_lines_json_and_a_page(data_dir, tmp_path):
    _cid, _user, _old, reply = _seed(data_dir / "conversations.sqlite3")
    lines = run_cli("chats", "steps", str(reply), data=data_dir)
    assert lines.returncode == 0, lines.stderr
    first, second = lines.stdout.splitlines()
    assert first == (
        "step 1 · model · K=4 asked: 'fixed at 4' · drafted 2, kept 1 · rejected ' foo' p=0.12 q=0.61 coin 0.57"
        " · correction ' <b>world</b>' · 3.1 ms + 41.0 ms"
    )
    assert second.startswith("step 2 · lookup (match 5) · K=1") and "\x1b" not in second  # shown, not obeyed

    as_json = run_cli("chats", "steps", str(reply), "--json", data=data_dir)
    payload = json.loads(as_json.stdout)
    # Scripts get descriptive keys; the store keeps its short ones (the same content).
    assert payload["steps"][0] == {
        "index": 0, "first_token": 0, "emitted": 2, "drafter": "model", "draft_length": 4, "reason": "fixed at 4",
        "greedy": False, "kept": 1, "lookup_match": None,
        "drafted": [
            {"text": "Hello", "q_draft": 0.5, "p_target": 0.7, "accepted": True, "coin": 0.2, "target_top": None},
            {"text": " foo", "q_draft": 0.61, "p_target": 0.12, "accepted": False, "coin": 0.57, "target_top": None},
        ],
        "residual_top": [{"text": " <b>world</b>", "p": 0.5}, {"text": " bar", "p": 0.2}],
        "correction": {"text": " <b>world</b>", "p": 0.5}, "bonus_top": [], "bonus": None,
        "draft_ms": 3.1, "verify_ms": 41.0,
    }  # fmt: skip
    second_step = payload["steps"][1]
    assert (second_step["drafter"], second_step["lookup_match"], second_step["bonus"]) == (
        "lookup",
        5,
        {"text": "<|im_end|>", "p": 0.95},
    )
    store = ChatStore(data_dir / "conversations.sqlite3", read_only=True)
    try:
        stored = [encode_step(step) for step in store.steps(reply)]
    finally:
        store.close()
    assert '"t":"Hello"' in stored[0] and '"a":1' in stored[0] and '"u":0.2' in stored[0]
    assert [t["text"] for t in payload["tokens"]] == ["Hello", " <b>world</b>", "\x1b[31m!"]

    page = tmp_path / "steps.html"
    written = run_cli("chats", "steps", str(reply), "--html", str(page), data=data_dir)
    assert written.returncode == 0, written.stderr
    assert f"to {page}" in written.stdout
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.count('<section class="card"') == 2
    assert "<b>world</b>" not in html and "&lt;b&gt;world&lt;/b&gt;" in html
    one_line_error(run_cli("chats", "steps", str(reply), "--html", str(page), data=data_dir), "--force")
    assert run_cli("chats", "steps", str(reply), "--html", str(page), "--force", data=data_dir).returncode == 0


def test_steps_errors_are_one_line(data_dir):
    _cid, user, old, _reply = _seed(data_dir / "conversations.sqlite3")
    one_line_error(run_cli("chats", "steps", "abc", data=data_dir), "not a message id", "chats show")
    one_line_error(run_cli("chats", "steps", "999", data=data_dir), "no message with id 999")
    one_line_error(run_cli("chats", "steps", str(user), data=data_dir), f"message {user} is a user message")
    one_line_error(
        run_cli("chats", "steps", str(old), data=data_dir),
        f"no steps recorded for message {old} (replies made before Tandem recorded steps",
    )
