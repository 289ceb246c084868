"""Where a message lies in the conversation's document, and the highlight a search jump puts on it.

A search result opens its chat and jumps to the message: the view scrolls the
message's start into view and tints everything drawn for it (header, text,
footer, action line) for :data:`HIGHLIGHT_MS`, so the eye finds it, then the
tint goes by itself. The message's extent is read back from the characters'
``MESSAGE_INDEX`` property, the same facts the token cards read.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextEdit

from app.ui import theme
from app.ui.chat.view.token_painter import Prop

HIGHLIGHT_MS = 2000  # how long a message found by search stays highlighted


def message_range(document: QTextDocument, index: int) -> tuple[int, int]:
    """Document positions (start, end) of everything drawn for message ``index`` ((-1, -1): nothing)."""
    start = end = -1
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            value = fragment.charFormat().property(Prop.MESSAGE_INDEX)
            if value is not None and int(value) == index:
                if start < 0:
                    start = fragment.position()
                end = fragment.position() + fragment.length()
            it += 1
        block = block.next()
    return start, end


class MessageHighlight(QObject):
    """The tint a search jump puts on one message of a text view, for a moment."""

    def __init__(self, view: QTextEdit) -> None:
        super().__init__(view)
        self._view = view
        self.index: int | None = None  # the message highlighted, while it lasts
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(HIGHLIGHT_MS)
        self._timer.timeout.connect(self.clear)

    def show(self, index: int) -> None:
        """Scroll message ``index`` into view, its start last, and tint it."""
        view = self._view
        start, end = message_range(view.document(), index)
        if start < 0:
            return
        cursor = QTextCursor(view.document())
        cursor.setPosition(end)
        view.setTextCursor(cursor)
        view.ensureCursorVisible()
        cursor.setPosition(start)
        view.setTextCursor(cursor)
        view.ensureCursorVisible()  # the start last: a long message shows its beginning
        selection = QTextEdit.ExtraSelection()
        selection.cursor = QTextCursor(view.document())
        selection.cursor.setPosition(start)
        selection.cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        selection.format.setBackground(theme.highlight_background(view.palette()))
        view.setExtraSelections([selection])
        self.index = index
        self._timer.start()

    def clear(self) -> None:
        """End the highlight."""
        self._timer.stop()
        self._view.setExtraSelections([])
        self.index = None
