"""The first Tandem on a data folder answers the second: it comes to the front.

The writer lock (:mod:`app.engine.store.lock`) decides who writes; this only
lets the instance that lost bring the winner's window forward. The request is
a small file in the data folder that the first instance watches with
QFileSystemWatcher and removes when it has answered: QtCore only (the bundle
leaves Qt Network out), the same on every platform, and nothing listens on a
socket.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, Signal

REQUEST_NAME = "raise-request"


class InstanceBeacon(QObject):
    """Watches for requests in the instance that holds the lock; makes them from the others."""

    raise_requested = Signal()

    def __init__(self, folder: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.folder = folder
        self.request = folder / REQUEST_NAME
        self._watcher: QFileSystemWatcher | None = None

    def listen(self) -> bool:
        """Answer later instances (call only while holding the writer lock); False when the folder cannot be watched."""
        if self._watcher is not None:
            return True
        with contextlib.suppress(OSError):
            self.request.unlink(missing_ok=True)  # left by an instance that gave up waiting
        watcher = QFileSystemWatcher(self)
        if not watcher.addPath(str(self.folder)):
            return False
        watcher.directoryChanged.connect(self._check)
        self._watcher = watcher
        return True

    def call_first(self, timeout_s: float = 2.0) -> bool:
        """Ask the instance that holds the lock to come to the front; True when it answered in time."""
        try:
            self.request.write_text(str(os.getpid()), encoding="utf-8")
        except OSError:
            return False
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self.request.exists():
                return True
            time.sleep(0.05)
        with contextlib.suppress(OSError):
            self.request.unlink(missing_ok=True)
        return False

    def close(self) -> None:
        """Stop answering."""
        if self._watcher is not None:
            self._watcher.deleteLater()
            self._watcher = None

    def _check(self, _folder: str) -> None:
        if not self.request.exists():
            return
        with contextlib.suppress(OSError):
            self.request.unlink()
        self.raise_requested.emit()
