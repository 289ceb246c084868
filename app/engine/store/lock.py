"""One writer per data folder: an OS file lock beside the database, held while a store may write.

A second Tandem on the same folder would otherwise mark the first one's live
reply "interrupted" (it looks exactly like a reply left by a crash). The lock
is ``flock`` through the filelock library: the OS drops it when the holder
exits, even under ``kill -9``, so a crash never leaves a stale lock behind.

Taking the lock is the moment before anything writes, so the holder makes
the lock file and the database's own files private (0600) then: the store
opens the file only after it holds the lock.
"""

from __future__ import annotations

from pathlib import Path

import filelock

from app.engine.safe_files import PRIVATE_FILE, tighten
from app.engine.store.database import make_files_private


class WriterLock:
    """The right to write one database; :meth:`acquire` without waiting, :meth:`release` when done."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = database.with_name(database.name + ".lock")
        self._lock = filelock.FileLock(str(self.path), timeout=0, thread_local=False, mode=PRIVATE_FILE)

    def acquire(self) -> bool:
        """Take the lock now; False when another process (or another store in this one) holds it."""
        try:
            self._lock.acquire(timeout=0)
        except filelock.Timeout:
            return False
        tighten(self.path)  # a lock file an older Tandem made 0644
        make_files_private(self.database)
        return True

    def release(self) -> None:
        """Give the lock back (safe to call when not held)."""
        if self._lock.is_locked:
            self._lock.release(force=True)
