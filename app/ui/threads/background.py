"""Plain-Python work off the GUI thread: header reads, compatibility checks, downloads.

None of this touches llama.cpp (that belongs to the engine thread); it is
file reading and network I/O that would otherwise freeze the window for a
second or more. Results come back to the GUI thread through a queued signal,
so callbacks may touch widgets.

Each job is typed by its result, as Anki's ``QueryOp`` types its operation:
:meth:`Background.submit` binds the type ``work`` returns to the one
``on_done`` receives, so mypy rejects a callback that expects something else.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal, Slot

T = TypeVar("T")  # one job's result: what ``work`` returns and ``on_done`` receives


class Background(QObject):
    """A small thread pool whose results are delivered on the GUI thread.

    One pool serves jobs of every result type, so the type is bound per call
    (each :meth:`submit` and :meth:`post`), not per pool.
    """

    _deliver = Signal(object, object)  # callback, value

    def __init__(self, parent: QObject | None = None, workers: int = 2) -> None:
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tandem-bg")
        self._deliver.connect(self._call)
        self._closed = False

    def submit(
        self,
        work: Callable[[], T],
        on_done: Callable[[T], object],
        on_error: Callable[[Exception], object] | None = None,
    ) -> Future[None]:
        """Run ``work`` on a pool thread; ``on_done(result)`` or ``on_error(exc)`` runs on the GUI thread."""

        def run() -> None:
            try:
                result = work()
            except Exception as exc:  # reported to the caller, never lost
                if on_error is not None and not self._closed:
                    self._deliver.emit(on_error, exc)
                return
            if not self._closed:
                self._deliver.emit(on_done, result)

        return self._pool.submit(run)

    def post(self, callback: Callable[[T], object], value: T) -> None:
        """Call ``callback(value)`` on the GUI thread (safe from any thread)."""
        if not self._closed:
            self._deliver.emit(callback, value)

    @Slot(object, object)
    def _call(self, callback: Callable[[Any], object], value: Any) -> None:
        # The signal carries ``object``: each caller's type was checked at submit/post.
        if not self._closed:
            callback(value)

    def shutdown(self) -> None:
        """Drop pending work and wait for running work to end."""
        self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
