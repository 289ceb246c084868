"""A short-lived bar that offers to undo what was just done ("Deleted 'title' — Undo").

It hides itself after :data:`UNDO_SECONDS`; Undo runs the callback it was
shown with, once. A newer action replaces the offer (the older deletion stays
in the store's trash, restorable from the command line).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

UNDO_SECONDS = 10


class UndoBar(QFrame):
    """Says what happened, with an Undo button, for a few seconds."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 2, 2)
        self.text = QLabel("")
        self.text.setWordWrap(True)
        self.button = QToolButton()
        self.button.setText(self.tr("Undo"))
        self.button.setAccessibleName(self.tr("Undo"))
        layout.addWidget(self.text, 1)
        layout.addWidget(self.button)
        self._undo: Callable[[], None] | None = None
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(UNDO_SECONDS * 1000)
        self.timer.timeout.connect(self.dismiss)
        self.button.clicked.connect(self.undo)
        self.hide()

    def offer(self, text: str, undo: Callable[[], None]) -> None:
        """Show ``text`` with Undo running ``undo``."""
        self._undo = undo
        self.text.setText(text)
        self.show()
        self.timer.start()

    def undo(self) -> None:
        """Run the offered undo (once) and hide."""
        undo, self._undo = self._undo, None
        self.dismiss()
        if undo is not None:
            undo()

    def dismiss(self) -> None:
        """Hide without undoing."""
        self.timer.stop()
        self._undo = None
        self.hide()
