"""The notice above the window about the chat database: what is wrong, in plain words, and the ways out as buttons.

It stays until the problem is solved (a damaged file, a second instance, a
full disk); unlike the chat's error banner it is not dismissed by the next
reply, because the problem outlives it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.ui import theme


class StoreNotice(QFrame):
    """A message with up to a few action buttons; :meth:`show_notice` replaces what was shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("store-notice")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        self.text = QLabel("")
        self.text.setWordWrap(True)
        layout.addWidget(self.text)
        self._buttons_row = QHBoxLayout()
        self._buttons_row.addStretch(1)
        layout.addLayout(self._buttons_row)
        self.buttons: dict[str, QPushButton] = {}
        self.hide()

    def show_notice(self, message: str, actions: Sequence[tuple[str, Callable[[], object]]] = ()) -> None:
        """Show ``message`` (plain text) with one button per ``(label, action)``."""
        for button in self.buttons.values():
            self._buttons_row.removeWidget(button)
            button.deleteLater()
        self.buttons = {}
        for label, action in actions:
            button = QPushButton(label)
            button.clicked.connect(action)
            self._buttons_row.addWidget(button)
            self.buttons[label] = button
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, theme.warning_background(self.window().palette()))
        self.setPalette(palette)
        self.text.setText(message)
        self.show()
