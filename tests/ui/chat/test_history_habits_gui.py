"""A deleted message brought back from the undo bar, and a branch forked into a new chat from the context menu.

These need no model: the chats are written into the window's own (real,
on-disk) store, as earlier sessions would have left them.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QMenu

from app.ui.chat.view.message_lines import FORK_LABEL
from tests.ui.helpers import click_action


def _chat(store, title: str, turns: list[tuple[str, str]]) -> tuple[int, list[int]]:
    conversation = store.create_conversation(title)
    return conversation, [store.add_message(conversation, role, text) for role, text in turns]


def _opened(make_window, turns):
    window = make_window()
    chat, ids = _chat(window.store, "Boats", turns)
    window.sidebar.refresh()
    window.conversations.select(chat)
    assert window.controller.conversation_id == chat
    return window, chat, ids


TURNS = [("user", "Name a boat."), ("assistant", "A kayak."), ("user", "Another?"), ("assistant", "A canoe.")]


def test_a_deleted_message_comes_back_from_the_undo_bar(make_window):
    window, chat, ids = _opened(make_window, TURNS)
    click_action(window, "delete", 2)  # no dialog: the undo bar stands in for it
    undo = window.conversations.undo
    assert undo.isVisible() and "Deleted a message and the 1 after it" in undo.text.text()
    assert [m.content for m in window.store.messages(chat)] == ["Name a boat.", "A kayak."]
    assert [m.message_id for m in window.chat.view.messages] == ids[:2]
    undo.button.click()
    assert not undo.isVisible()
    assert [m.id for m in window.store.messages(chat)] == ids
    assert [m.message_id for m in window.chat.view.messages] == ids
    assert window.store.trashed_conversations() == []


def test_a_deleted_message_left_alone_stays_in_the_trash(make_window):
    window, chat, ids = _opened(make_window, TURNS)
    click_action(window, "delete", 3)
    undo = window.conversations.undo
    undo.timer.timeout.emit()  # ten seconds later
    assert not undo.isVisible()
    assert [m.id for m in window.store.messages(chat)] == ids[:3]
    (trashed,) = window.store.trashed_conversations()  # kept there, restorable with `chats restore`
    assert [m.content for m in window.store.all_messages(trashed.id)] == ["A canoe."]


def _choose_from_context_menu(window, message_index: int, label: str) -> list[str]:
    """Open the chat view's context menu over a message and trigger ``label``; returns the menu's entries."""
    view = window.chat.view
    start, _end = view.message_range(message_index)
    cursor = view.textCursor()
    cursor.setPosition(start + 1)
    point = view.cursorRect(cursor).center()
    seen: list[str] = []

    def choose() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu)
        seen.extend(a.text() for a in menu.actions())
        chosen = next(a for a in menu.actions() if a.text() == label)
        menu.close()
        chosen.trigger()

    QTimer.singleShot(0, choose)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, view.viewport().mapToGlobal(point))
    QApplication.sendEvent(view.viewport(), event)
    return seen


def test_fork_into_new_chat_from_the_context_menu(make_window, qtbot):
    window, chat, ids = _opened(make_window, TURNS)
    entries = _choose_from_context_menu(window, 1, FORK_LABEL)
    assert FORK_LABEL in entries
    qtbot.waitUntil(lambda: window.controller.conversation_id != chat, timeout=5_000)
    fork = window.controller.conversation_id
    assert window.store.conversation(fork).title == "Fork of Boats"
    assert [m.content for m in window.store.messages(fork)] == ["Name a boat.", "A kayak."]
    assert len(window.chat.view.messages) == 2
    assert fork in window.conversations.conversation_ids()
    assert [m.id for m in window.store.messages(chat)] == ids  # the original is unchanged


def test_the_window_search_ignores_accents_and_case(make_window, qtbot):
    window = make_window()
    _chat(window.store, "Dessert", [("user", "Une CRÈME brûlée, s'il vous plaît")])
    window.sidebar.refresh()
    search = window.conversations.search
    search.box.setText("creme brulee")
    qtbot.waitUntil(lambda: bool(search.hits), timeout=5_000)
    assert [h.title for h in search.hits] == ["Dessert"]
    assert "\x02CRÈME\x03" in search.hits[0].snippet
