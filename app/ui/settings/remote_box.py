"""The Settings panel's "Remote server" group: how long a remote reply may take, and may stay silent.

Per machine (a slow link or a busy server is this computer's situation, not
a chat's), kept in the INI file by :class:`~app.ui.settings.store.AppSettings`
and applied to the server in use from the next reply on.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QSpinBox, QWidget

from app.engine.remote.limits import RemoteLimits

MAX_SECONDS = 24 * 3600


def _seconds(low: int, tooltip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, MAX_SECONDS)
    box.setSingleStep(30)
    box.setSuffix(" s")
    box.setToolTip(tooltip)
    return box


class RemoteTimeoutBox(QGroupBox):
    """Two spin boxes, the reply's deadline and its idle time-out; ``changed`` carries a :class:`RemoteLimits`."""

    changed = Signal(object)  # RemoteLimits

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Remote server (this machine)"))
        self._updating = False
        form = QFormLayout(self)
        self.deadline = _seconds(
            10, self.tr("a remote reply that has not finished after this long ends, its text kept")
        )
        self.idle = _seconds(
            5,
            self.tr(
                "a remote reply ends when the server sends no event for this long (a long prompt's "
                "prefill sends nothing: leave room for it)"
            ),
        )
        form.addRow(self.tr("Reply deadline"), self.deadline)
        form.addRow(self.tr("Idle time-out"), self.idle)
        self.set_limits(RemoteLimits())
        self.deadline.valueChanged.connect(self._emit)
        self.idle.valueChanged.connect(self._emit)

    def limits(self) -> RemoteLimits:
        """The limits the boxes show."""
        return RemoteLimits(deadline_s=float(self.deadline.value()), idle_s=float(self.idle.value()))

    def set_limits(self, limits: RemoteLimits) -> None:
        """Show ``limits`` without emitting ``changed``."""
        self._updating = True
        try:
            self.deadline.setValue(round(limits.deadline_s))
            self.idle.setValue(round(limits.idle_s))
        finally:
            self._updating = False

    def _emit(self) -> None:
        if not self._updating:
            self.changed.emit(self.limits())
