"""The first Tandem on a data folder answers the second: "I am here", and comes to the front.

The writer lock (:mod:`app.engine.store.lock`) decides who writes; this only
lets the one that lost bring the winner's window forward, through a
QLocalServer named after the data folder (a Unix socket or a Windows pipe).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket


def beacon_name(folder: Path) -> str:
    """The server name for a data folder: the same for every process that opens it."""
    digest = hashlib.sha256(str(folder.expanduser().resolve()).encode()).hexdigest()[:16]
    return f"tandem-{digest}"


class InstanceBeacon(QObject):
    """Listens in the instance that holds the lock; calls it from the others."""

    raise_requested = Signal()

    def __init__(self, folder: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = beacon_name(folder)
        self._server: QLocalServer | None = None

    def listen(self) -> bool:
        """Answer later instances (call only while holding the writer lock); False when the name cannot be used."""
        if self._server is not None:
            return True
        # A crashed holder leaves its socket file behind; holding the lock proves it is stale.
        QLocalServer.removeServer(self.name)
        server = QLocalServer(self)
        if not server.listen(self.name):
            return False
        server.newConnection.connect(self._answer)
        self._server = server
        return True

    def call_first(self, timeout_ms: int = 2000) -> bool:
        """Ask the instance that holds the lock to come to the front; True when it was reached."""
        socket = QLocalSocket()
        socket.connectToServer(self.name)
        if not socket.waitForConnected(timeout_ms):
            return False
        socket.write(b"raise\n")
        socket.waitForBytesWritten(timeout_ms)
        socket.disconnectFromServer()
        return True

    def close(self) -> None:
        """Stop answering."""
        if self._server is not None:
            self._server.close()
            self._server = None

    def _answer(self) -> None:
        assert self._server is not None
        while self._server.hasPendingConnections():
            connection = self._server.nextPendingConnection()
            connection.disconnected.connect(connection.deleteLater)
            connection.disconnectFromServer()
        self.raise_requested.emit()
