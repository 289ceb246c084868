"""The open chat's tools: one row per tool the MCP servers offer, on or off for this chat, and on for new chats.

A tool that may change things (``ToolSpec.writes``) carries a mark in words
("writes", never a glyph a font may lack) and is
asked about before every call. None and All switch every tool of this chat at
once; the "new chats" box beside a tool starts every new chat with it on
(a new chat offers no tool otherwise).
"""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.core.tools.records import ToolSpec


class ToolListBox(QGroupBox):
    """Rows for the tools on offer; ``changed`` carries the names this chat offers."""

    changed = Signal(object)  # frozenset[str]: the tools this chat offers
    new_chat_changed = Signal(str, bool)  # a tool's "on for new chats" switched

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Tools for this chat"))
        self._layout = QVBoxLayout(self)
        self.status = QLabel(self.tr("No MCP configuration: choose one under MCP servers."))
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # servers' notices quote what they wrote: data, never markup
        self.status.setWordWrap(True)
        self._layout.addWidget(self.status)
        switches = QHBoxLayout()
        self.none_button = QPushButton(self.tr("None"))
        self.none_button.setToolTip(self.tr("Offer no tool in this chat"))
        self.all_button = QPushButton(self.tr("All"))
        self.all_button.setToolTip(self.tr("Offer every tool in this chat"))
        self.none_button.clicked.connect(lambda: self._set_all(False))
        self.all_button.clicked.connect(lambda: self._set_all(True))
        switches.addWidget(self.none_button)
        switches.addWidget(self.all_button)
        switches.addStretch(1)
        self.switches = QWidget()
        self.switches.setLayout(switches)
        switches.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.switches)
        self.grid_widget = QWidget()
        self._grid = QGridLayout(self.grid_widget)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.grid_widget)
        self.boxes: dict[str, QCheckBox] = {}
        self.new_chat_boxes: dict[str, QCheckBox] = {}
        self.switches.hide()

    def set_tools(
        self, tools: Sequence[ToolSpec], on: Collection[str], new_chats: Collection[str] = (), status: str = ""
    ) -> None:
        """Show ``tools``, those in ``on`` checked for this chat and those in ``new_chats`` for new chats.

        ``status`` is the line above them (notices, errors).
        """
        for box in [*self.boxes.values(), *self.new_chat_boxes.values()]:
            self._grid.removeWidget(box)
            box.deleteLater()
        self.boxes, self.new_chat_boxes = {}, {}
        for row, spec in enumerate(tools):
            label = self.tr("{name} (writes)").format(name=spec.name) if spec.writes else spec.name
            box = QCheckBox(label)
            tip = spec.description
            if spec.writes:
                tip = self.tr("May change things: asked about before every call.") + ("\n" + tip if tip else "")
            box.setToolTip(as_plain_tip(tip))
            box.setAccessibleName(spec.name)
            box.setChecked(spec.name in on)
            box.toggled.connect(self._toggled)
            fresh = QCheckBox(self.tr("new chats"))
            fresh.setToolTip(self.tr("On in every new chat"))
            fresh.setAccessibleName(self.tr("{name} on in new chats").format(name=spec.name))
            fresh.setChecked(spec.name in new_chats)
            fresh.toggled.connect(lambda checked, name=spec.name: self.new_chat_changed.emit(name, checked))
            self._grid.addWidget(box, row, 0)
            self._grid.addWidget(fresh, row, 1)
            self.boxes[spec.name] = box
            self.new_chat_boxes[spec.name] = fresh
        self.switches.setVisible(bool(tools))
        if status:
            self.status.setText(status)
        elif tools:
            self.status.setText(
                self.tr("The model may call the checked tools; each call is asked about first (writes: every call).")
            )
        self.status.setVisible(bool(self.status.text()))

    def on(self) -> frozenset[str]:
        """The tools checked for this chat."""
        return frozenset(name for name, box in self.boxes.items() if box.isChecked())

    def _set_all(self, checked: bool) -> None:
        for box in self.boxes.values():
            box.blockSignals(True)
            box.setChecked(checked)
            box.blockSignals(False)
        self.changed.emit(self.on())

    def _toggled(self, _checked: bool) -> None:
        self.changed.emit(self.on())


def as_plain_tip(text: str) -> str:
    """``text`` as a tool tip that shows it as written: a tool's description is the server's data, never markup."""
    if not text:
        return ""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"
