"""The conversation view's context menu.

The menu is Qt's standard one (copy, select all) with two groups added for
the point under the pointer: copying the reply's code block or the whole
message as raw Markdown, and the message's own actions, the same ones its
action line offers (:mod:`app.ui.chat.view.message_lines`), plus exporting the
steps and forking the branch. The actions are emitted as the view's
``message_action`` signal, so the menu and the action line reach the same
handlers.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QPoint, QPointF
from PySide6.QtWidgets import QMenu

from app.ui.chat.view.message_lines import FORK_LABEL, action_label

if TYPE_CHECKING:
    from app.ui.chat.view.chat_view import ChatView


def message_menu(view: ChatView, pos: QPoint, position: int) -> QMenu:
    """The menu for a right click at viewport point ``pos`` over document ``position`` (-1: none)."""
    menu = view.createStandardContextMenu(pos)
    where = view.source_line_at(position) if position >= 0 else None
    if where is not None:
        index, line = where
        menu.addSeparator()
        if view.code_block_at_line(index, line) is not None:
            menu.addAction(view.tr("Copy code block"), lambda: view.copy_code_block(index, line))
        menu.addAction(view.tr("Copy message as Markdown"), lambda: view.copy_message(index))
    message = view.message_at(QPointF(pos))
    if message is None or not view.messages[message].actions:
        return menu
    actions = view.messages[message].actions
    menu.addSeparator()
    entries = [(key, action_label(key)) for key in actions]
    if "steps" in actions:
        entries.append(("export-steps", view.tr("Export steps as HTML…")))
    if "delete" in actions:  # a stored message: its branch can be forked
        entries.append(("fork", QCoreApplication.translate("MessageLines", FORK_LABEL)))
    for key, label in entries:
        action = menu.addAction(label)
        action.triggered.connect(partial(view.message_action.emit, key, message))
        action.setEnabled(view.actions_enabled)
    return menu
