"""Finding things in the window: search that jumps to a message on its branch, pins, date groups, undo.

These need no model: the chats are written into the window's own (real,
on-disk) store, as earlier sessions would have left them.
"""

from __future__ import annotations

import sqlite3
import time

from app.engine.store.conversations import ConversationSummary
from app.ui.chat.sidebar.conversation_list import GROUPS, date_group

DAY = 86_400.0


def _chat(store, title: str, turns: list[tuple[str, str]]) -> tuple[int, list[int]]:
    conversation = store.create_conversation(title)
    return conversation, [store.add_message(conversation, role, text) for role, text in turns]


def test_search_jumps_to_a_message_on_another_branch_and_highlights_it(make_window, qtbot):
    window = make_window()
    store = window.store
    _chat(store, "Fruit", [("user", "Which fruit is yellow?"), ("assistant", "A banana is yellow.")])
    chat, (question, first) = _chat(store, "Boats", [("user", "Name a boat."), ("assistant", "A kayak.")])
    # A regenerated reply: the branch shown ends with it, the kayak is on the other one.
    store.begin_reply(chat, parent_id=question)
    second = store.messages(chat)[-1].id
    store.finish_reply(second, "A canoe.")
    _chat(store, "日本語", [("user", "東京は日本の首都です"), ("assistant", "はい 🚀")])
    window.sidebar.refresh()

    search = window.conversations.search
    window.find_action.trigger()
    assert window.focusWidget() is search.box  # (the offscreen window is never active: its focus child)
    search.box.setText("kayak")
    qtbot.waitUntil(lambda: bool(search.hits), timeout=5_000)
    assert [h.message_id for h in search.hits] == [first] and search.results.isVisible()
    assert not window.conversations.tree.isVisible()  # the results stand in for the list
    search.choose(0)
    assert window.controller.conversation_id == chat
    view = window.chat.view
    index = view.message_index_of(first)
    assert index == 1 and view.highlighted_message == index  # the kayak's branch is the one shown now
    assert view.messages[index].branch == (1, 2)
    assert [m.id for m in store.messages(chat)] == [question, first]
    start, _end = view.message_range(index)
    assert view.extraSelections() and view.extraSelections()[0].cursor.selectionStart() == start
    view.clear_highlight()
    assert not view.extraSelections()

    search.box.setText("首都")
    search.run()
    assert [h.title for h in search.hits] == ["日本語"]
    search.box.setText("🚀")
    search.run()
    assert [h.title for h in search.hits] == ["日本語"]
    search.clear()
    assert not search.results.isVisible() and window.conversations.tree.isVisible()


def test_pinned_chats_come_first_in_their_own_group(make_window):
    window = make_window()
    store = window.store
    older, _ = _chat(store, "Older", [("user", "first")])
    newer, _ = _chat(store, "Newer", [("user", "second")])
    window.sidebar.refresh()
    assert window.conversations.groups() == {"Today": [newer, older]}
    window.conversations.pin_requested.emit(older, True)  # what the context menu's Pin does
    assert window.conversations.groups() == {"Pinned": [older], "Today": [newer]}
    assert store.list_conversations()[0].pinned
    window.conversations.pin_requested.emit(older, False)
    assert window.conversations.groups() == {"Today": [newer, older]}


def test_the_sidebar_is_grouped_by_date(make_window, data_dir):
    window = make_window()
    store = window.store
    ages = {"today": 0, "yesterday": 1, "last week": 5, "last month": 20, "long ago": 90}
    ids = {name: _chat(store, name, [("user", name)])[0] for name in ages}
    noon = time.mktime((*time.localtime()[:3], 12, 0, 0, 0, 0, -1))  # ages counted in days from today's noon
    with sqlite3.connect(data_dir / "conversations.sqlite3") as db:  # as if written on those days
        for name, days in ages.items():
            db.execute("UPDATE conversations SET updated=? WHERE id=?", (noon - days * DAY, ids[name]))
    window.sidebar.refresh()
    groups = window.conversations.groups()
    assert list(groups) == ["Today", "Yesterday", "Previous 7 days", "Previous 30 days", "Older"]
    assert groups["Older"] == [ids["long ago"]] and groups["Yesterday"] == [ids["yesterday"]]
    tree = window.conversations.tree
    assert not tree.topLevelItem(0).flags() & tree.topLevelItem(0).flags().ItemIsSelectable  # a heading


def test_date_group_boundaries():
    now = time.mktime((2026, 12, 1, 9, 0, 0, 0, 0, -1))

    def summary(updated: float, pinned: bool = False) -> ConversationSummary:
        return ConversationSummary(id=1, title="t", created=updated, updated=updated, message_count=1, pinned=pinned)

    midnight = time.mktime((2026, 12, 1, 0, 0, 1, 0, 0, -1))
    assert date_group(summary(midnight), now) == "Today"
    assert date_group(summary(midnight - 2), now) == "Yesterday"  # before midnight is yesterday, 9 hours ago
    assert date_group(summary(now - 7 * DAY), now) == "Previous 7 days"
    assert date_group(summary(now - 8 * DAY), now) == "Previous 30 days"
    assert date_group(summary(now - 31 * DAY), now) == "Older"
    assert date_group(summary(now - 400 * DAY, pinned=True), now) == "Pinned"
    assert set(GROUPS) >= {"Pinned", "Today", "Older"}


def test_a_deleted_chat_can_be_brought_back_from_the_undo_bar(make_window):
    window = make_window()
    store = window.store
    keep, _ = _chat(store, "Keep", [("user", "stay")])
    gone, _ = _chat(store, "Gone soon", [("user", "a kayak"), ("assistant", "on the river")])
    window.sidebar.refresh()
    window.conversations.select(gone)
    assert window.controller.conversation_id == gone

    window.conversations.delete_requested.emit(gone)  # the context menu's Delete: no dialog, an undo bar
    undo = window.conversations.undo
    assert undo.isVisible() and "Deleted 'Gone soon'" in undo.text.text()
    assert window.conversations.conversation_ids() == [keep]
    assert window.controller.conversation_id is None and window.chat.view.messages == []
    assert store.search("kayak") == []  # the trash is not searched
    undo.button.click()
    assert not undo.isVisible()
    assert sorted(window.conversations.conversation_ids()) == sorted([keep, gone])
    assert [m.content for m in store.messages(gone)] == ["a kayak", "on the river"]

    window.conversations.delete_requested.emit(keep)
    assert undo.isVisible()
    undo.timer.timeout.emit()  # ten seconds later
    assert not undo.isVisible() and window.conversations.conversation_ids() == [gone]
