"""The Stats tab shows the open chat's statistics: a new empty chat shows none, reopening a chat shows its own.

Driven through the module's loaded window (the small pair) as a person does:
a reply sent with Ctrl+Return, the sidebar's "New chat" button clicked, the
earlier chat clicked in the sidebar.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.helpers import Recorder, send


def test_stats_follow_the_open_chat(qtbot, window):
    window.settings_panel.max_tokens.setValue(8)
    send(qtbot, window, "Name three colours.", Recorder(window))
    stats = window.stats
    chat = window.controller.conversation_id
    rate, per_pass, drafter = stats.rate.text(), stats.per_pass.text(), stats.drafter.text()
    assert chat is not None and rate != "–" and per_pass != "–" and drafter != "–"

    qtbot.mouseClick(window.conversations.new_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.controller.conversation_id is None, timeout=10_000)
    # A new empty chat has made no reply: the last chat's numbers are not shown as its own.
    assert (stats.rate.text(), stats.per_pass.text(), stats.acceptance.text()) == ("–", "–", "–")
    assert (stats.drafter.text(), stats.speedup.text(), stats.mean_length.text()) == ("–", "–", "–")

    tree = window.conversations.tree
    item = tree.topLevelItem(0).child(0)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(item).center())
    qtbot.waitUntil(lambda: window.controller.conversation_id == chat, timeout=10_000)
    assert (stats.rate.text(), stats.per_pass.text(), stats.drafter.text()) == (rate, per_pass, drafter)
