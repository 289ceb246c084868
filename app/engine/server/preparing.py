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

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, wait
from dataclasses import dataclass

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
    """A bounded pool for request preparations (see the module).

    Its threads are daemons and closing it does not wait for them: a reader
    cannot be interrupted mid-file, and stopping the server (or the process)
    must not wait for one. A preparation still running then finds the engine
    gone (:meth:`.scheduler.ServerEngine.prepare` does nothing) and ends unseen.
    """

    def __init__(self, workers: int, waiting: int) -> None:
        self._workers = workers
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._room = threading.BoundedSemaphore(workers + waiting)
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._running: set[threading.Event] = set()  # the cancel flags of the preparations on a worker
        self._closed = False
        self.abandoned = 0  # preparations stopped because their client left or their deadline passed

    @property
    def running(self) -> int:
        """Preparations on a worker now."""
        with self._lock:
            return len(self._running)

    def submit(self, work: Callable[[threading.Event], object]) -> Preparation:
        """Run ``work(cancel)`` on the pool; :class:`PreparerFullError` when the line is full or the pool closed."""
        with self._lock:
            if self._closed or not self._room.acquire(blocking=False):
                raise PreparerFullError
            if not self._threads:  # started with the first request: a server that never binds starts none
                for n in range(self._workers):
                    thread = threading.Thread(target=self._run, name=f"tandem-server-prepare-{n}", daemon=True)
                    thread.start()
                    self._threads.append(thread)
        job = _Job(Future(), work, threading.Event())
        self._jobs.put(job)
        return Preparation(job.future, job.cancel)

    def abandon(self, preparation: Preparation) -> None:
        """Stop ``preparation`` (its client left or its deadline passed) and count it."""
        preparation.abandon()
        with self._lock:
            self.abandoned += 1

    def close(self) -> None:
        """Refuse new work and stop every preparation at its next check, without waiting for them."""
        with self._lock:
            self._closed = True
            for cancel in self._running:
                cancel.set()
            threads = len(self._threads)
        for _ in range(threads):
            self._jobs.put(None)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                if not job.future.set_running_or_notify_cancel():  # abandoned while it waited: now it is done
                    continue
                with self._lock:
                    self._running.add(job.cancel)
                try:
                    if self._closed or job.cancel.is_set():
                        raise Cancelled
                    result = job.work(job.cancel)
                except BaseException as exc:  # the connection thread re-raises it (a bug there is its 500)
                    job.future.set_exception(exc)
                else:
                    job.future.set_result(result)
                finally:
                    with self._lock:
                        self._running.discard(job.cancel)
            finally:
                self._room.release()


@dataclass(frozen=True, slots=True)
class _Job:
    future: Future[object]
    work: Callable[[threading.Event], object]
    cancel: threading.Event


def busy_error() -> RequestError:
    """The 429 for a full line of preparations."""
    return RequestError("too many requests are being read; try again in a moment", status=429, kind="rate_limit_error")
