"""Conversations as trees in the window, on the real SmolLM2 pair: regenerate, switch, edit, continue, delete.

Every action is clicked where the view draws it; the store is read back to
check what was kept (the old branches too). Replies are short (8-24 tokens).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from app.core.decoding.stats import GenerationStats
from app.engine.store import conversations
from app.ui.main_window import MainWindow
from tests.ui.helpers import Recorder, click_action, send, wait_reply

PROMPT = "Name three colours."


def _short_replies(window: MainWindow, max_tokens: int = 12) -> None:
    """Replies of at most ``max_tokens`` in the module's loaded window (fixture ``window``: a new, empty chat)."""
    window.settings_panel.max_tokens.setValue(max_tokens)


def test_regenerate_makes_a_sibling_and_the_switcher_moves_between_them(window, qtbot):
    _short_replies(window)
    recorder = Recorder(window)
    send(qtbot, window, PROMPT, recorder)
    store, view = window.store, window.chat.view
    first = window.controller.path[-1]
    assert view.messages[-1].actions[:1] == ("regenerate",) and view.messages[-1].branch == (1, 1)

    before = len(recorder.finished)
    click_action(window, "regenerate", 1)
    qtbot.waitUntil(lambda: not view.actions_enabled or len(recorder.finished) > before, timeout=60_000)
    wait_reply(qtbot, window, recorder, before)
    second = window.controller.path[-1]
    assert second.id != first.id and second.parent_id == first.parent_id
    assert store.siblings(second.id) == [first.id, second.id]
    assert view.messages[-1].branch == (2, 2) and view.messages[-1].message_id == second.id
    assert len(view.messages) == 2  # the old reply is not shown beside the new one
    # The caches held the whole prompt: a regenerate reads none of it again.
    meta = second.meta
    assert meta["prompt_reused"] == meta["prompt_tokens"] - 1, meta
    print(
        f"\nregenerate: prompt {meta['prompt_tokens']} tokens, reused {meta['prompt_reused']}; "
        f"prefill {first.meta['stats']['prefill_s'] * 1000:.1f} ms first, {meta['stats']['prefill_s'] * 1000:.1f} ms "
        "regenerated"
    )

    click_action(window, "previous", 1)
    assert view.messages[-1].message_id == first.id and view.messages[-1].branch == (1, 2)
    assert view.messages[-1].text == first.content
    assert [m.id for m in store.messages(window.controller.conversation_id)][-1] == first.id
    # The Stats tab follows the branch shown: the first reply's own numbers, as stored.
    first_stats = GenerationStats.from_dict(first.meta["stats"])
    assert window.stats._stats == first_stats
    assert window.stats.rate.text() == f"{first_stats.tokens_per_second:.1f}"
    click_action(window, "next", 1)
    assert view.messages[-1].message_id == second.id
    assert window.stats._stats == GenerationStats.from_dict(second.meta["stats"])


def test_actions_are_inert_while_a_reply_streams(window, qtbot):
    _short_replies(window, max_tokens=24)
    recorder = Recorder(window)
    send(qtbot, window, PROMPT, recorder)
    before = len(recorder.finished)
    window.chat.prompt.setPlainText("And three fruits?")
    window.chat.send_button.click()
    assert not window.chat.view.actions_enabled
    reply = window.controller.path[1].id
    assert not window.controller.tree.regenerate(reply)  # refused while the reply streams
    assert not window.controller.tree.delete_message(reply)
    wait_reply(qtbot, window, recorder, before)
    assert window.chat.view.actions_enabled
    assert len(window.store.messages(window.controller.conversation_id)) == 4


def test_edit_and_resend_makes_a_new_branch_and_keeps_the_old_one(window, qtbot):
    _short_replies(window)
    recorder = Recorder(window)
    send(qtbot, window, PROMPT, recorder)
    old_user, old_reply = window.controller.path

    click_action(window, "edit", 0)
    assert window.chat.prompt.toPlainText() == PROMPT and window.chat.edit_bar.isVisible()
    send(qtbot, window, "Name three fruits.", recorder)
    assert not window.chat.edit_bar.isVisible()
    new_user, new_reply = window.controller.path
    assert new_user.content == "Name three fruits." and new_user.parent_id is None
    assert window.store.siblings(new_user.id) == [old_user.id, new_user.id]
    assert new_reply.parent_id == new_user.id
    assert window.chat.view.messages[0].branch == (2, 2)
    # The old branch is kept whole: back to it with the switcher.
    click_action(window, "previous", 0)
    assert [m.id for m in window.controller.path] == [old_user.id, old_reply.id]
    assert window.chat.view.messages[0].text == PROMPT
    assert len(window.store.all_messages(window.controller.conversation_id)) == 4


def test_cancelled_edit_leaves_the_chat_as_it_was(window, qtbot):
    _short_replies(window)
    send(qtbot, window, PROMPT, Recorder(window))
    click_action(window, "edit", 0)
    window.chat.edit_bar.cancel.click()
    assert window.controller.tree.editing is None and window.chat.prompt.toPlainText() == ""
    assert len(window.store.all_messages(window.controller.conversation_id)) == 2


def test_edit_a_reply_keeps_the_models_text_beside_the_users(window, qtbot):
    from PySide6.QtWidgets import QDialogButtonBox

    _short_replies(window)
    recorder = Recorder(window)
    send(qtbot, window, PROMPT, recorder)
    conversation = window.controller.conversation_id
    question, reply = window.controller.path
    assert "edit" in window.chat.view.messages[1].actions

    click_action(window, "edit", 1)
    dialog = window.controller.tree.reply_editor
    assert dialog is not None and dialog.isVisible() and dialog.editor.toPlainText() == reply.content
    save = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
    assert not save.isEnabled()  # nothing changed yet
    dialog.editor.setPlainText("Red, green and blue.")
    qtbot.mouseClick(save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.controller.tree.reply_editor is None)

    edited = window.controller.path[-1]
    assert edited.id != reply.id and edited.role == "assistant" and edited.content == "Red, green and blue."
    assert edited.parent_id == question.id and window.store.siblings(edited.id) == [reply.id, edited.id]
    assert edited.meta["edited_from"] == reply.id
    shown = window.chat.view.messages[-1]
    assert shown.branch == (2, 2) and shown.text == "Red, green and blue." and "edited by you" in shown.footer
    # The model's own reply is one click away, unchanged.
    click_action(window, "previous", 1)
    assert window.controller.path[-1].id == reply.id and window.chat.view.messages[-1].text == reply.content
    click_action(window, "next", 1)
    # The next question follows the edited reply: it is the assistant's turn the model reads.
    send(qtbot, window, "And three more?", recorder)
    path = window.controller.path
    assert [m.id for m in path[:2]] == [question.id, edited.id] and len(path) == 4
    assert len(window.store.all_messages(conversation)) == 5


def test_continue_grows_the_reply_cut_at_the_limit(window, qtbot):
    _short_replies(window, max_tokens=16)
    recorder = Recorder(window)
    finished = send(qtbot, window, "Count from one to thirty in words, separated by commas.", recorder)
    assert finished.reason.value == "length"
    conversation = window.controller.conversation_id
    cut = window.controller.path[-1]
    assert "continue" in window.chat.view.messages[-1].actions

    before = len(recorder.finished)
    click_action(window, "continue", 1)
    wait_reply(qtbot, window, recorder, before)
    stored = window.store.messages(conversation)
    assert len(stored) == 2 and stored[-1].id == cut.id  # the same message, grown
    grown = stored[-1]
    assert grown.content.startswith(cut.content) and len(grown.content) > len(cut.content)
    assert len(grown.tokens) > len(cut.tokens)
    assert "".join(t.text for t in grown.tokens) == grown.content
    assert grown.meta["continued"] == 1 and grown.state == conversations.DONE
    assert window.chat.view.messages[-1].text == grown.content
    # The prompt of the continuation was the conversation so far, reply included, all in the cache.
    assert grown.meta["prompt_reused"] >= grown.meta["prompt_tokens"] - 2
    # Every step was recorded with its tokens; the continuation's steps count on from the stored ones.
    steps = window.store.steps(grown.id)
    assert [s.index for s in steps] == list(range(len(steps)))
    assert [s.first_token for s in steps] == [sum(s.n_emitted for s in steps[:n]) for n in range(len(steps))]
    assert sum(s.n_emitted for s in steps) == len(grown.tokens)


def test_delete_a_reply_then_its_question(window, monkeypatch, qtbot):
    _short_replies(window, max_tokens=8)
    recorder = Recorder(window)
    send(qtbot, window, PROMPT, recorder)
    before = len(recorder.finished)
    click_action(window, "regenerate", 1)
    wait_reply(qtbot, window, recorder, before)
    conversation = window.controller.conversation_id
    first, _second = window.store.siblings(window.controller.path[-1].id)
    monkeypatch.setattr(QMessageBox, "question", lambda *_a: pytest.fail("a delete asks nothing: Undo stands in"))
    click_action(window, "delete", 1)
    assert window.conversations.undo.isVisible()  # the deleted reply waits in the trash for its Undo
    assert [m.id for m in window.store.all_messages(conversation)] == [window.controller.path[0].id, first]
    assert window.chat.view.messages[-1].message_id == first and window.chat.view.messages[-1].branch == (1, 1)
    click_action(window, "delete", 0)  # the question goes with its replies
    assert window.store.all_messages(conversation) == [] and window.chat.view.messages == []
