"""The preparation pool of `serve`: bounded, its work stopped by a flag, closed without waiting for a reader."""

from __future__ import annotations

import threading

import pytest

from app.engine.server.preparing import Cancelled, PreparerFullError, RequestPreparer

HANG_BOUND = 60  # a hang fails the test; no timing is asserted


def test_the_line_is_bounded_and_a_freed_place_is_taken_again() -> None:
    preparer = RequestPreparer(workers=1, waiting=1)
    release = threading.Event()
    try:
        first = preparer.submit(lambda cancel: release.wait(HANG_BOUND) and "first")
        second = preparer.submit(lambda cancel: "second")
        with pytest.raises(PreparerFullError):
            preparer.submit(lambda cancel: "third")
        release.set()
        assert first.wait(HANG_BOUND) and first.result() == "first"
        assert second.wait(HANG_BOUND) and second.result() == "second"
        third = preparer.submit(lambda cancel: "third")
        assert third.wait(HANG_BOUND) and third.result() == "third"
    finally:
        preparer.close()


def test_an_abandoned_preparation_stops_at_its_next_check_and_one_waiting_never_runs() -> None:
    preparer = RequestPreparer(workers=1, waiting=1)
    started = threading.Event()
    ran: list[str] = []

    def long(cancel: threading.Event) -> str:
        started.set()
        if cancel.wait(HANG_BOUND):  # a step of the work, then its check of the flag
            raise Cancelled
        return "finished"

    try:
        running = preparer.submit(long)
        assert started.wait(HANG_BOUND)
        waiting = preparer.submit(lambda cancel: ran.append("waiting"))
        preparer.abandon(waiting)
        preparer.abandon(running)
        assert running.wait(HANG_BOUND) and waiting.wait(HANG_BOUND)
        with pytest.raises(Cancelled):
            running.result()
        assert ran == [] and preparer.abandoned == 2
        assert preparer.submit(lambda cancel: "next").wait(HANG_BOUND)  # both places are free again
    finally:
        preparer.close()


def test_closing_flags_the_running_work_and_refuses_more_without_waiting() -> None:
    preparer = RequestPreparer(workers=2, waiting=0)
    started = threading.Event()

    def stuck(cancel: threading.Event) -> bool:
        started.set()
        return cancel.wait(HANG_BOUND)  # a reader that cannot be interrupted, only told

    preparation = preparer.submit(stuck)
    assert started.wait(HANG_BOUND)
    preparer.close()  # returns at once: the worker is a daemon that ends on its own
    assert preparation.wait(HANG_BOUND) and preparation.result() is True
    with pytest.raises(PreparerFullError):
        preparer.submit(lambda cancel: None)
