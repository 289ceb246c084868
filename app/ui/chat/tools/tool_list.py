"""The open chat's tools: one check box per tool the MCP servers offer, on or off for this chat."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QGroupBox, QLabel, QVBoxLayout, QWidget

from app.core.tools.records import ToolSpec


class ToolListBox(QGroupBox):
    """Check boxes for the tools on offer; ``changed`` carries the names switched off."""

    changed = Signal(object)  # frozenset[str]: the tools this chat leaves out

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Tools for this chat"))
        self._layout = QVBoxLayout(self)
        self.status = QLabel(self.tr("No MCP configuration: choose one under MCP servers."))
        self.status.setWordWrap(True)
        self._layout.addWidget(self.status)
        self.boxes: dict[str, QCheckBox] = {}

    def set_tools(self, tools: Sequence[ToolSpec], off: Collection[str], status: str = "") -> None:
        """Show ``tools``, those in ``off`` unchecked; ``status`` is the line above them (notices, errors)."""
        for box in self.boxes.values():
            self._layout.removeWidget(box)
            box.deleteLater()
        self.boxes = {}
        for spec in tools:
            box = QCheckBox(spec.name)
            box.setToolTip(spec.description)
            box.setChecked(spec.name not in off)
            box.toggled.connect(self._toggled)
            self._layout.addWidget(box)
            self.boxes[spec.name] = box
        if status:
            self.status.setText(status)
        elif tools:
            self.status.setText(self.tr("The model may call the checked tools; each call is asked about first."))
        self.status.setVisible(bool(self.status.text()))

    def off(self) -> frozenset[str]:
        """The tools unchecked."""
        return frozenset(name for name, box in self.boxes.items() if not box.isChecked())

    def _toggled(self, _checked: bool) -> None:
        self.changed.emit(self.off())
