"""The line above the prompt that says what holds the open chat's replies to a shape.

A JSON schema, a system prompt and the tools a chat enables all change what
a reply can be, and all are set away from the chat (in the side panel). The
line names each one the open chat has ("Shaped by: JSON schema · system
prompt · 2 tools"), each part a button that opens where it is changed, and
hides when none is set. :class:`ShapeWatch` keeps it up to date as the chat's settings,
its tools or the open chat change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from app.core.conversation.chat_settings import ChatSettings
from app.ui.i18n import QT_TRANSLATE_NOOP


class ShapePart(Enum):
    """One thing that shapes a reply."""

    SCHEMA = "schema"
    SYSTEM_PROMPT = "system_prompt"
    TOOLS = "tools"


@dataclass(frozen=True, slots=True)
class ReplyShape:
    """What shapes the open chat's next reply."""

    schema: bool = False
    system_prompt: bool = False
    tools: int = 0  # the tools the chat enables (0: none, or none on offer)

    @classmethod
    def of(cls, settings: ChatSettings, tools: int) -> ReplyShape:
        """The shape ``settings`` and ``tools`` enabled tools give a reply (blank text shapes nothing)."""
        return cls(
            schema=bool(settings.json_schema.strip()), system_prompt=bool(settings.system_prompt.strip()), tools=tools
        )

    def parts(self) -> tuple[ShapePart, ...]:
        """The parts set, in the order the line names them."""
        chosen = (
            (ShapePart.SCHEMA, self.schema),
            (ShapePart.SYSTEM_PROMPT, self.system_prompt),
            (ShapePart.TOOLS, self.tools > 0),
        )
        return tuple(part for part, on in chosen if on)


_ACCESSIBLE = {
    ShapePart.SCHEMA: QT_TRANSLATE_NOOP("ShapeLine", "Change the chat's JSON schema"),
    ShapePart.SYSTEM_PROMPT: QT_TRANSLATE_NOOP("ShapeLine", "Change the chat's system prompt"),
    ShapePart.TOOLS: QT_TRANSLATE_NOOP("ShapeLine", "Change the chat's tools"),
}


def _words(part: ShapePart, shape: ReplyShape) -> str:
    if part is ShapePart.SCHEMA:
        return QCoreApplication.translate("ShapeLine", "JSON schema")
    if part is ShapePart.SYSTEM_PROMPT:
        return QCoreApplication.translate("ShapeLine", "system prompt")
    return QCoreApplication.translate("ShapeLine", "%n tool(s)", "", shape.tools)


class ShapeLine(QWidget):
    """The words "Shaped by:" and a flat button per part set; ``open_requested`` carries the part clicked.

    Hidden while nothing shapes the chat's replies.
    """

    open_requested = Signal(object)  # ShapePart

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.setSpacing(2)
        self.title = QLabel(self.tr("Shaped by:"))
        layout.addWidget(self.title)
        self.buttons: dict[ShapePart, QToolButton] = {}
        self._dots: list[QLabel] = []
        for part in ShapePart:
            if self.buttons:
                dot = QLabel("·")
                layout.addWidget(dot)
                self._dots.append(dot)
            button = QToolButton()
            button.setAutoRaise(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setAccessibleName(QCoreApplication.translate("ShapeLine", _ACCESSIBLE[part]))
            font = button.font()
            font.setUnderline(True)  # read as a link: it opens the place where the part is changed
            button.setFont(font)
            button.clicked.connect(lambda _checked=False, p=part: self.open_requested.emit(p))
            layout.addWidget(button)
            self.buttons[part] = button
        layout.addStretch(1)
        self.setToolTip(self.tr("What this chat's replies are held to: click a part to change it"))
        self.shape = ReplyShape()
        self.set_shape(self.shape)

    def set_shape(self, shape: ReplyShape) -> None:
        """Show ``shape`` (hidden when nothing shapes the reply)."""
        self.shape = shape
        parts = shape.parts()
        for part, button in self.buttons.items():
            button.setText(_words(part, shape))
            button.setVisible(part in parts)
        for index, dot in enumerate(self._dots):
            dot.setVisible(index < len(parts) - 1)
        self.setVisible(bool(parts))

    def text(self) -> str:
        """The line as read: "Shaped by: JSON schema · system prompt" ("" when hidden)."""
        parts = self.shape.parts()
        return f"{self.title.text()} " + " · ".join(self.buttons[p].text() for p in parts) if parts else ""


class ShapeWatch(QObject):
    """Keeps a :class:`ShapeLine` on the open chat: ``refresh`` whenever its settings, its tools or the chat change."""

    def __init__(
        self,
        line: ShapeLine,
        settings: Callable[[], ChatSettings],
        tools: Callable[[], int],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.line = line
        self._settings = settings
        self._tools = tools
        self.refresh()

    def refresh(self, *_changed: object) -> None:
        """Show the open chat's shape now (the arguments of the signal that called, if any, are not needed)."""
        self.line.set_shape(ReplyShape.of(self._settings(), self._tools()))
