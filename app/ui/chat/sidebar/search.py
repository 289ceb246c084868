"""Search across all chats, over the sidebar: type, and the matching messages replace the list.

The store answers with SQLite FTS5 (:meth:`ChatStore.search`); each result
names its chat, who wrote it and a snippet (the matches in bold in its hover card). Choosing one emits
:attr:`ChatSearch.hit_chosen`, and the window opens that chat on the
message's branch and highlights the message. Ctrl+K (or Ctrl+F) focuses the
box; Esc clears it and brings the list back.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from app.engine.store.conversations import ChatStore, SearchHit
from app.engine.store.search import snippet_parts

_TYPING_MS = 200  # pause after the last key before searching
_LIMIT = 50


class _SearchBox(QLineEdit):
    """The query line: Esc clears it, Down moves into the results."""

    escaped = Signal()
    down = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        """Esc and Down."""
        if event.key() == Qt.Key.Key_Escape:
            self.escaped.emit()
            return
        if event.key() == Qt.Key.Key_Down:
            self.down.emit()
            return
        super().keyPressEvent(event)


class ChatSearch(QWidget):
    """The search box and, while it holds a query, the results in place of the chat list."""

    hit_chosen = Signal(object)  # SearchHit
    searching = Signal(bool)  # the results are shown (True) or the chat list is back (False)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store: Callable[[], ChatStore] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        self.box = _SearchBox()
        self.box.setPlaceholderText(self.tr("Search all chats  (Ctrl+K)"))
        self.box.setClearButtonEnabled(True)
        self.box.setAccessibleName(self.tr("Search all chats"))
        self.results = QListWidget()
        self.results.setWordWrap(True)
        self.results.setAlternatingRowColors(True)  # where one result ends and the next begins
        self.results.setSpacing(2)
        self.results.setAccessibleName(self.tr("Search results"))
        self.results.hide()
        self.status = QLabel("")
        self.status.setEnabled(False)
        self.status.setWordWrap(True)
        self.status.hide()
        layout.addWidget(self.box)
        layout.addWidget(self.status)
        layout.addWidget(self.results, 1)
        self.hits: list[SearchHit] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(_TYPING_MS)
        self._timer.timeout.connect(self.run)
        self.box.textChanged.connect(lambda _text: self._timer.start())
        self.box.returnPressed.connect(self._choose_first)
        self.box.escaped.connect(self.clear)
        self.box.down.connect(self._into_results)
        self.results.itemActivated.connect(self._chosen)
        self.results.itemClicked.connect(self._chosen)

    def set_store(self, store: Callable[[], ChatStore]) -> None:
        """Where to search (a callable: the window may swap its store after a recovery)."""
        self._store = store

    def focus(self) -> None:
        """Put the caret in the box, its text selected (Ctrl+K)."""
        self.box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.box.selectAll()

    def clear(self) -> None:
        """Empty the box and bring the chat list back."""
        self.box.clear()
        self.run()

    def run(self) -> None:
        """Search now for what the box holds."""
        self._timer.stop()
        query = self.box.text().strip()
        self.results.clear()
        self.hits = []
        if not query or self._store is None:
            self.results.hide()
            self.status.hide()
            self.searching.emit(False)
            return
        try:
            self.hits = self._store().search(query, limit=_LIMIT)
        except Exception as exc:  # a query FTS cannot parse, or a store that fails: say so, keep the window
            self.status.setText(self.tr("search failed: {error}").format(error=exc))
        else:
            count = len(self.hits)
            self.status.setText(
                self.tr("nothing found")
                if not count
                else self.tr("%n message(s)", "", count)
                + (" " + self.tr("(the first ones)") if count >= _LIMIT else "")
            )
        for hit in self.hits:
            who = {"user": self.tr("You"), "assistant": self.tr("Assistant")}.get(hit.role, hit.role)
            parts = snippet_parts(hit.snippet)
            plain = " ".join("".join(text for text, _match in parts).split())
            marked = "".join(f"<b>{html.escape(t)}</b>" if match else html.escape(t) for t, match in parts)
            item = QListWidgetItem(f"{hit.title}\n{who}: {plain}")
            item.setToolTip(f"<p><b>{html.escape(hit.title)}</b></p><p>{who}: {marked}</p>")
            self.results.addItem(item)
        self.status.show()
        self.results.show()
        self.searching.emit(True)

    def choose(self, row: int) -> None:
        """Jump to result ``row``, as a click would."""
        if 0 <= row < len(self.hits):
            self.hit_chosen.emit(self.hits[row])

    def _chosen(self, item: QListWidgetItem) -> None:
        self.choose(self.results.row(item))

    def _choose_first(self) -> None:
        self.run()
        self.choose(0)

    def _into_results(self) -> None:
        if self.results.count():
            self.results.setFocus()
            self.results.setCurrentRow(0)
