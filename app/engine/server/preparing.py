"""The heavy, model-free part of a request, on a small pool of its own: never on the engine thread.

A request body may carry 16 MiB of documents. Decoding it, reading its
attachments (PDF, HTML...), checking its schema and tokenising its documents
for the prompt planner take seconds for a large one; done on the one engine
thread, every other client waited behind them (a 7 MB text file held a
one-line question for 32 s). :class:`RequestPreparer` runs that work for each
request on one of ``workers`` threads, with at most ``waiting`` requests in
line for them (more get a 429 at once), and the engine is given only
prepared requests. The connection waits for its preparation while watching
its socket: a client that leaves, or a preparation past its deadline, sets
the request's cancel flag, which the preparation checks between its steps,
and nothing of it reaches the engine.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait

from app.engine.server.protocol import RequestError


class PreparerFullError(Exception):
    """Every worker is busy and the line in front of them is full."""


class Cancelled(Exception):  # noqa: N818  # a normal outcome, not a failure
    """The preparation stopped at a check of its cancel flag (the client left or the deadline passed)."""


class Preparation:
    """One request's preparation: its result when done, and the flag that stops it."""

    def __init__(self, future: Future[object], cancel: threading.Event) -> None:
        self._future = future
        self.cancel = cancel

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds; whether it has finished (with a value or an error)."""
        done, _ = wait([self._future], timeout)
        return bool(done)

    def result(self) -> object:
        """The prepared value of a finished preparation, or what it raised."""
        return self._future.result(0)

    def abandon(self) -> None:
        """Stop it at its next check, or before it starts."""
        self.cancel.set()
        self._future.cancel()


class RequestPreparer:
    """A bounded pool for request preparations (see the module)."""

    def __init__(self, workers: int, waiting: int) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tandem-server-prepare")
        self._room = threading.BoundedSemaphore(workers + waiting)
        self._lock = threading.Lock()
        self.abandoned = 0  # preparations stopped because their client left or their deadline passed
        self.running = 0  # preparations on a worker now

    def submit(self, work: Callable[[threading.Event], object]) -> Preparation:
        """Run ``work(cancel)`` on the pool; :class:`PreparerFullError` when the line is full."""
        if not self._room.acquire(blocking=False):
            raise PreparerFullError
        cancel = threading.Event()

        def run() -> object:
            with self._lock:
                self.running += 1
            try:
                if cancel.is_set():
                    raise Cancelled
                return work(cancel)
            finally:
                with self._lock:
                    self.running -= 1
                self._room.release()

        try:
            future = self._pool.submit(run)
        except RuntimeError:  # shut down: the server is stopping
            self._room.release()
            raise PreparerFullError from None
        future.add_done_callback(lambda done: self._room.release() if done.cancelled() else None)
        return Preparation(future, cancel)

    def abandon(self, preparation: Preparation) -> None:
        """Stop ``preparation`` (its client left or its deadline passed) and count it."""
        preparation.abandon()
        with self._lock:
            self.abandoned += 1

    def close(self) -> None:
        """Refuse new work, drop what waits, and wait for the running preparations to reach their end."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def busy_error() -> RequestError:
    """The 429 for a full line of preparations."""
    return RequestError("too many requests are being read; try again in a moment", status=429, kind="rate_limit_error")
