"""Playing a reply's steps at a chosen speed: a timer that asks for the next step, steps per second.

The player knows nothing of the steps: it ticks, and the step view moves one
step on each tick and stops the player at the last one.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

MIN_SPEED = 0.25  # steps per second
MAX_SPEED = 20.0
DEFAULT_SPEED = 2.0


class StepPlayer(QObject):
    """Play/pause with a speed; :attr:`tick` asks for the next step."""

    tick = Signal()
    playing_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.tick)
        self.speed = DEFAULT_SPEED
        self._apply()

    @property
    def playing(self) -> bool:
        """Whether the steps advance by themselves."""
        return self._timer.isActive()

    def set_speed(self, steps_per_second: float) -> None:
        """Steps per second (clamped to the range the control offers); applies at once while playing."""
        self.speed = max(MIN_SPEED, min(MAX_SPEED, steps_per_second))
        self._apply()

    def _apply(self) -> None:
        self._timer.setInterval(max(1, round(1000.0 / self.speed)))

    def play(self) -> None:
        """Start advancing."""
        if not self.playing:
            self._timer.start()
            self.playing_changed.emit(True)

    def pause(self) -> None:
        """Stop advancing."""
        if self.playing:
            self._timer.stop()
            self.playing_changed.emit(False)

    def toggle(self) -> None:
        """Play when paused, pause when playing."""
        if self.playing:
            self.pause()
        else:
            self.play()
