"""Slow motion on the real SmolLM2 pair: each step held on screen, Stop ending a reply during a hold.

The gaps are measured between the step events as the GUI thread receives them
(timestamps taken in the receiving slot): with a hold of H seconds the engine
thread waits H after sending a step before it starts the next, so no two
events can arrive closer than H (less the few milliseconds the event loop
may take to deliver the earlier one: 30 ms of slack). Nothing here is a speed
measurement: a slow machine only makes the gaps longer.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, Slot
from PySide6.QtTest import QTest

from app.core.decoding.events import FinishReason, StepEvent
from app.ui.chat.controller import Activity
from app.ui.main_window import MainWindow
from tests.ui.helpers import Recorder

SLACK_S = 0.03


class TimedRecorder(Recorder):
    """A recorder that also notes when each step event reached the GUI thread."""

    def __init__(self, window) -> None:
        self.times: list[float] = []
        super().__init__(window)

    @Slot(object)
    def _step(self, event: StepEvent) -> None:
        self.times.append(time.monotonic())
        super()._step(event)


def _sampled(window: MainWindow, max_tokens: int) -> None:
    """Sampled replies of at most ``max_tokens`` in the module's loaded window (a fixed draft length: every step
    drafts on this pair)."""
    window.settings_panel.max_tokens.setValue(max_tokens)
    window.settings_panel.temperature.setValue(0.8)


def test_slow_motion_holds_each_step_and_the_view_follows_the_reply(window, qtbot):
    _sampled(window, max_tokens=12)
    steps = window.steps
    steps.hold.setValue(0.5)
    steps.slow_action.trigger()
    assert steps.slow_action.isChecked() and window.host.worker.step_hold == 0.5
    recorder = TimedRecorder(window)
    view = steps.view
    shown: list[tuple[float, object]] = []  # (when, the step on the card) while the reply streams

    def look() -> bool:
        if view.live:
            shown.append((time.monotonic(), view.card.step))
        return bool(recorder.finished or recorder.errors)

    window.chat.prompt.setPlainText("Name three colours.")
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(look, timeout=300_000)
    assert not recorder.errors, recorder.errors
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=30_000)
    assert len(recorder.times) >= 3, "too few steps to measure a gap"
    gaps = [b - a for a, b in zip(recorder.times, recorder.times[1:], strict=False)]
    print(f"\nslow motion 0.5 s: {len(recorder.times)} steps, gaps {min(gaps):.3f}-{max(gaps):.3f} s")
    assert min(gaps) >= 0.5 - SLACK_S, gaps
    # The card followed the live reply: each step was on it for most of its hold.
    for event in recorder.steps:
        held = [when for when, step in shown if step is event.record]
        assert held and held[-1] - held[0] >= 0.5 - 0.2, (event.record, held)
    assert view.isVisible() and not view.live
    assert view.message_id == window.controller.path[-1].id
    records = [e.record for e in recorder.steps if e.record is not None]
    assert len(records) == len(recorder.steps)  # the window traces its replies
    assert view.steps == records
    # What was shown live is what the store kept (to its six decimals).
    kept = window.store.steps(view.message_id)
    assert [r.to_json() for r in records] == [r.to_json() for r in kept]
    assert view.current == len(records) - 1

    # Off again: the engine thread no longer waits.
    steps.slow_action.trigger()
    assert window.host.worker.step_hold == 0.0


def test_stop_ends_the_reply_within_a_second_during_a_hold(window, qtbot):
    _sampled(window, max_tokens=200)
    window.steps.hold.setValue(5.0)
    window.steps.slow_action.trigger()
    recorder = TimedRecorder(window)
    window.chat.prompt.setPlainText("Write a long story about a lighthouse keeper.")
    window.chat.send_button.click()
    qtbot.waitUntil(lambda: len(recorder.steps) >= 1, timeout=120_000)
    qtbot.waitUntil(lambda: time.monotonic() - recorder.times[0] > 0.3, timeout=5_000)
    assert len(recorder.steps) == 1  # held: no second step within the 5 s
    pressed = time.monotonic()
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: bool(recorder.finished), timeout=5_000)
    waited = time.monotonic() - pressed
    print(f"\nstop during a 5 s hold: finished {waited:.3f} s after Esc")
    assert waited < 1.0
    assert recorder.finished[-1].reason is FinishReason.CANCELLED
