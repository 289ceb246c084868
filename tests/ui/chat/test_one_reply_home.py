"""One stored chat continued from the window and from `chat --chat`: both record the same plan.

The window and the terminal used to plan a reply each in their own way (the
window ran the adaptive controller up to 12 tokens and recorded "adaptive, up
to 12"; `chat --chat` ran and recorded "up to 4" for the same chat). Both now
go through :mod:`app.engine.reply`; this drives both on the real SmolLM2 pair
and compares what each stored. The window is driven with the mouse and keys;
the CLI runs as its own process on the same data folder once the window has
closed (it needs the writer lock).
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt

from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.core.reply.record import ReplyRecord
from app.engine.store.conversations import ChatStore, default_path
from app.ui.chat.controller import Activity
from app.ui.settings.store import PairChoice
from tests.cli.helpers import run_cli
from tests.ui.helpers import load

SETTINGS = ChatSettings(
    system_prompt="Answer in one short sentence.",
    max_tokens=8,
    seed=7,
    drafter=DrafterKind.HYBRID,
    draft_length=4,
    adaptive=True,
)
# The record's fields that depend on the conversation so far, not on the plan.
_PROMPT_FIELDS = ("prompt_tokens", "prompt_reused", "draft_prompt_reused", "stats", "finish_reason")


def _seed_chat() -> int:
    store = ChatStore(default_path())
    try:
        cid = store.create_conversation("Soup", SETTINGS.to_dict())
        store.add_message(cid, "user", "What is in the soup?")
        store.add_message(cid, "assistant", "Potatoes and leeks.")
        return cid
    finally:
        store.close()


def _plan_of(record: ReplyRecord) -> dict[str, object]:
    meta = record.to_meta()
    return {key: value for key, value in meta.items() if key not in _PROMPT_FIELDS}


def test_the_window_and_chat_chat_record_the_same_plan_for_one_chat(qtbot, make_window, data_dir, small_pair):
    cid = _seed_chat()
    window = make_window()
    load(qtbot, window, PairChoice(small_pair[0], small_pair[1], DrafterKind.HYBRID))
    tree = window.conversations.tree
    item = tree.topLevelItem(0).child(0)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(item).center())
    qtbot.waitUntil(lambda: window.controller.conversation_id == cid, timeout=10_000)
    assert window.controller.chat_settings() == SETTINGS  # the chat's own settings, not the panel's

    qtbot.keyClicks(window.chat.prompt, "And the bread?")
    qtbot.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.GENERATING, timeout=10_000)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=300_000)
    window_reply = window.controller.path[-1]
    assert window_reply.role == "assistant" and window_reply.state == "done", window_reply.meta
    window.close()

    result = run_cli(
        "chat", "--chat", str(cid), "--target", str(small_pair[0]), "--draft", str(small_pair[1]),
        "--threads", "1", "--json", "And the bread?", data=data_dir,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)

    store = ChatStore(default_path(), read_only=True)
    try:
        branch = store.messages(cid)
        cli_reply = branch[-1]
        assert cli_reply.id == payload["reply_message_id"] and branch[-3].id == window_reply.id
    finally:
        store.close()
    from_window = ReplyRecord.from_meta(window_reply.meta)
    from_cli = ReplyRecord.from_meta(cli_reply.meta)
    assert from_window.produced_by is not None and from_cli.produced_by is not None
    # The same chat gives the same plan whichever front end continues it.
    assert from_cli.produced_by == from_window.produced_by
    assert _plan_of(from_cli) == _plan_of(from_window)
    produced = from_window.produced_by
    assert produced.drafter == "hybrid" and produced.draft_policy == "adaptive, up to 12"
    assert produced.seed == 7 and produced.system_prompt == SETTINGS.system_prompt
    assert produced.sampling is not None and produced.sampling.max_tokens == 8
    assert from_window.adaptive and from_window.pair == f"{small_pair[0].stem} + {small_pair[1].stem}"
    assert payload["produced_by"] == produced.to_dict()
