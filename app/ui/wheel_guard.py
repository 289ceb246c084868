"""The mouse wheel scrolls the panel under it, never a value the pointer happens to pass over.

Qt lets the wheel change any spin box, combo box or slider under the pointer,
focused or not: scrolling through the Settings tab silently moved Max tokens
from 512 to 576. :class:`WheelGuard`, installed once on the application,
lets a wheel event reach such a field only when the field has keyboard focus
(clicked or tabbed into); otherwise the event goes to the scroll area around
it, which scrolls as the person meant.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QWidget

_GUARDED = (QAbstractSpinBox, QComboBox, QAbstractSlider)


class WheelGuard(QObject):
    """An application-wide event filter: wheel events over unfocused value fields go to the panel instead."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Swallow the wheel for an unfocused field and scroll its nearest scroll area instead."""
        kind = event.type()
        if kind not in (QEvent.Type.Wheel, QEvent.Type.Polish) or not isinstance(watched, _GUARDED):
            return False
        if isinstance(watched, QAbstractSlider) and _is_scroll_bar_of_area(watched):
            return False  # a scroll area's own bar is meant to be wheeled
        if kind == QEvent.Type.Polish:
            # Spin boxes take focus from the wheel itself (WheelFocus), before any filter sees the event:
            # click or Tab only, so an unfocused field stays unfocused under a passing wheel.
            if watched.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            return False
        if watched.hasFocus():
            return False
        area = _scroll_area_around(watched)
        if area is not None:
            QApplication.sendEvent(area.viewport(), event)  # the panel scrolls as if the field were not there
        return True

    @classmethod
    def install(cls, app: QApplication) -> WheelGuard:
        """Install the guard on ``app`` once (a second call returns the one installed)."""
        existing = app.findChild(WheelGuard)
        if isinstance(existing, WheelGuard):
            return existing
        guard = cls(app)
        app.installEventFilter(guard)
        return guard


def _scroll_area_around(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return parent
        parent = parent.parentWidget()
    return None


def _is_scroll_bar_of_area(slider: QAbstractSlider) -> bool:
    area = _scroll_area_around(slider)
    return area is not None and slider in (area.horizontalScrollBar(), area.verticalScrollBar())
