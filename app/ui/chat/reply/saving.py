"""The store guard: the reply in flight written a few times a second, and kept whole when the store refuses it.

Every step's tokens (and its record, for replay) go into a small buffer that is committed to SQLite a few
times a second and when the reply ends, so a crash loses at most the tail of
the reply in flight. When the store cannot take a write (full disk, I/O
error, read-only file) the reply stays whole in memory (:class:`UnsavedReply`),
:attr:`ReplySaver.failed` tells the controller (which stops the reply and
tells the window), and a retry every few seconds writes it once the store
takes it again (:attr:`ReplySaver.saved_late`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.reply.step_record import StepRecord
from app.core.reply.token_record import TokenRecord
from app.engine.store.conversations import ACTIVE_LEAF, ChatStore
from app.engine.store.database import StoreWriteError

_FLUSH_MS = 300
_RETRY_MS = 5000  # how often an unsaved reply tries the store again


@dataclass(slots=True)
class UnsavedReply:
    """The reply in flight, and whatever of it the store has not taken yet."""

    conversation_id: int
    meta: dict[str, Any]
    reply_id: int | None = None  # None until the store has a row for it
    parent_id: int | None = ACTIVE_LEAF  # what the reply answers (a regenerated reply: the same user message)
    prefix: str = ""  # a continued reply: its text before this generation
    unsaved: list[TokenRecord] = field(default_factory=list)
    unsaved_steps: list[StepRecord] = field(default_factory=list)  # written with the tokens, in their transaction
    texts: list[str] = field(default_factory=list)  # every token's text so far, saved or not
    ending: tuple[str, str, dict[str, Any]] | None = None  # content, state, meta once the reply ended

    @property
    def text(self) -> str:
        """The reply so far."""
        return "".join(self.texts)

    def pending(self) -> bool:
        """Something is still to be written."""
        return self.reply_id is None or bool(self.unsaved) or bool(self.unsaved_steps) or self.ending is not None


class ReplySaver(QObject):
    """Writes replies to the store in batches; holds the one the store refused until a retry takes it."""

    failed = Signal(object)  # StoreWriteError: a write was refused (the reply is kept)
    saved_late = Signal()  # the reply that waited has now been written

    def __init__(self, store: ChatStore, busy: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.error: StoreWriteError | None = None  # the last refusal, until a write succeeds again
        self.waiting: UnsavedReply | None = None  # a finished reply the store has not taken yet
        self._busy = busy  # a reply is still being generated: it is written (or kept) when it has ended
        self._flushing: UnsavedReply | None = None
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(_FLUSH_MS)
        self._flush_timer.timeout.connect(self._flush)
        self._retry_timer = QTimer(self)
        self._retry_timer.setInterval(_RETRY_MS)
        self._retry_timer.timeout.connect(self.retry)

    def write(self, reply: UnsavedReply) -> bool:
        """Give the store what it has not got of ``reply``; on failure keep it all and say so."""
        try:
            if reply.reply_id is None:
                reply.reply_id = self.store.begin_reply(reply.conversation_id, reply.meta, parent_id=reply.parent_id)
            if reply.unsaved or reply.unsaved_steps:
                self.store.append_tokens(reply.reply_id, reply.unsaved, reply.unsaved_steps)
                reply.unsaved = []
                reply.unsaved_steps = []
            if reply.ending is not None:
                self.store.finish_reply(reply.reply_id, *reply.ending)
                reply.ending = None
        except StoreWriteError as exc:
            self.refused(exc)
            return False
        return True

    def refused(self, error: StoreWriteError) -> None:
        """The store refused a write (this saver's or the controller's own): say so and retry from now on."""
        self.error = error
        if not self._retry_timer.isActive():
            self._retry_timer.start()
        self.failed.emit(error)

    def flush_soon(self, reply: UnsavedReply) -> None:
        """Write ``reply``'s new tokens within a moment (nothing while the store is refusing)."""
        self._flushing = reply
        if not self._flush_timer.isActive() and self.error is None:
            self._flush_timer.start()

    def stop_flushing(self) -> None:
        """The reply ended: its last write is :meth:`finish`'s."""
        self._flush_timer.stop()
        self._flushing = None

    def finish(self, reply: UnsavedReply) -> bool:
        """Write the ended ``reply`` (its ``ending`` set), or keep it to retry; True when it is in the store."""
        self.stop_flushing()
        if self.error is not None or not self.write(reply):
            self.waiting = reply
            return False
        return True

    def retry(self) -> bool:
        """Try the store again with the reply that waits; True when nothing waits any more."""
        if self._busy():
            return False
        waiting = self.waiting
        if waiting is None:
            self.error = None
            self._retry_timer.stop()
            return True
        if self.store.read_only:
            return False
        self.error = None
        if not self.write(waiting):
            return False
        self.waiting = None
        self._retry_timer.stop()
        self.saved_late.emit()
        return True

    def markdown(self, in_flight: UnsavedReply | None) -> str:
        """The reply the store has not taken, as Markdown for an export (empty when there is none)."""
        reply = self.waiting or in_flight
        if reply is None or not reply.pending():
            return ""
        return f"### Assistant _(not saved)_\n\n{reply.text.rstrip()}\n"

    def reset(self, store: ChatStore) -> None:
        """Write to ``store`` from now on; what waited belonged to the other file."""
        self.store = store
        self.waiting = None
        self.error = None
        self._retry_timer.stop()

    def stop(self) -> None:
        """No more timed writes (the window is closing)."""
        self.stop_flushing()
        self._retry_timer.stop()

    def _flush(self) -> None:
        if self._flushing is not None and self.error is None:
            self.write(self._flushing)
