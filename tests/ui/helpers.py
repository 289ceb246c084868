"""Shared steps for the GUI tests: make a window, load a real pair, send a prompt and wait.

Not a test module. Waiting spins the Qt event loop (the GUI thread must stay
responsive while the engine thread works) with generous timeouts: the CI
machine has two shared cores, so nothing here depends on speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, Qt, Slot
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.core.decoding.events import FinishedEvent, StepEvent
from app.engine.llama.session import DrafterKind
from app.ui.chat.controller import Activity
from app.ui.main_window import MainWindow
from app.ui.settings.store import PairChoice

LOAD_TIMEOUT_S = 240.0
REPLY_TIMEOUT_S = 300.0


def wait_until(predicate: Callable[[], bool], timeout_s: float, what: str = "condition") -> None:
    """Process Qt events until ``predicate()`` holds; fail after ``timeout_s``."""
    app = QApplication.instance()
    assert app is not None
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.005)


def pair_choice(pair: tuple[Path, Path], drafter: DrafterKind = DrafterKind.MODEL) -> PairChoice:
    """A picker choice for a (target, draft) tuple."""
    return PairChoice(pair[0], pair[1] if drafter is DrafterKind.MODEL else None, drafter)


def load(window: MainWindow, choice: PairChoice) -> None:
    """Load ``choice`` and wait until it is loaded (or fail with the error the window shows)."""
    window.load_pair(choice)
    wait_until(
        lambda: window.controller.activity is Activity.IDLE,
        LOAD_TIMEOUT_S,
        "the pair to load",
    )
    assert window.controller.pair is not None, window.chat.banner.text.text()


class Recorder(QObject):
    """Collects the engine thread's step and finished events as the GUI thread receives them.

    A QObject with slots, so the connections are queued to the GUI thread and
    run after the window's own handlers (a plain callable would run on the
    engine thread, before the window has seen the event).
    """

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.steps: list[StepEvent] = []
        self.finished: list[FinishedEvent] = []
        self.errors: list[str] = []
        worker = window.host.worker
        worker.step.connect(self._step)
        worker.finished.connect(self._finished)
        worker.error.connect(self._error)

    @Slot(object)
    def _step(self, event: StepEvent) -> None:
        self.steps.append(event)

    @Slot(object)
    def _finished(self, event: FinishedEvent) -> None:
        self.finished.append(event)

    @Slot(str)
    def _error(self, message: str) -> None:
        self.errors.append(message)


def send(window: MainWindow, text: str, recorder: Recorder | None = None) -> FinishedEvent:
    """Type ``text``, press Ctrl+Enter in the prompt box and wait for the reply to finish."""
    recorder = recorder or Recorder(window)
    before = len(recorder.finished)
    window.chat.prompt.setPlainText(text)
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert window.chat.prompt.toPlainText() == "", "Ctrl+Enter did not send the prompt"
    wait_until(
        lambda: len(recorder.finished) > before or bool(recorder.errors),
        REPLY_TIMEOUT_S,
        "the reply to finish",
    )
    assert not recorder.errors, recorder.errors
    wait_until(lambda: window.controller.activity is Activity.IDLE, 30, "the window to go idle")
    return recorder.finished[-1]


def click_action(window: MainWindow, action: str, message_index: int) -> None:
    """Click a message's action link (Edit, Regenerate, ‹, ›...) where the view draws it, as a user would."""
    from app.ui.chat.view.message_lines import MESSAGE_ACTION

    href = f"{MESSAGE_ACTION}?do={action}&message={message_index}"
    click_href(window, href, f"no {action!r} link on message {message_index}")


def click_href(window: MainWindow, href: str, missing: str | None = None) -> None:
    """Click the link ``href`` where the chat view draws it, as a person would (near its start: a link may wrap)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QTextCursor

    view = window.chat.view
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position())
                view.setTextCursor(cursor)
                view.ensureCursorVisible()  # scrolled into view first, then measured
                start = view.cursorRect(cursor)
                cursor.setPosition(fragment.position() + min(3, fragment.length()))
                end = view.cursorRect(cursor)
                point = QPoint((start.left() + end.left()) // 2, start.center().y())
                QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
                return
            it += 1
        block = block.next()
    raise AssertionError(missing or f"no link {href!r} in the chat view")


def wait_reply(window: MainWindow, recorder: Recorder, before: int) -> FinishedEvent:
    """Wait for the reply started by an action (Regenerate, Continue) to finish."""
    wait_until(lambda: len(recorder.finished) > before or bool(recorder.errors), REPLY_TIMEOUT_S, "the reply")
    assert not recorder.errors, recorder.errors
    wait_until(lambda: window.controller.activity is Activity.IDLE, 30, "the window to go idle")
    return recorder.finished[-1]
