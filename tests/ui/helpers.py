"""Shared steps for the GUI tests: make a window, load a real pair, send a prompt and wait.

Not a test module. Waiting is pytest-qt's: ``qtbot.waitSignal`` on the controller's
or the recorder's signals where one marks the moment (named, so a timeout says what
did not happen), ``qtbot.waitUntil`` otherwise; both spin the Qt event loop (the GUI thread must stay responsive while
the engine thread works). The timeouts are generous: the CI machine has two
shared cores, so nothing here depends on speed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog
from pytestqt.qtbot import QtBot

from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.tools.turns import ChatTools
from app.engine.llama.session import DrafterKind
from app.engine.remote.limits import RemoteLimits
from app.ui.chat.controller import Activity
from app.ui.main_window import MainWindow
from app.ui.settings.store import GenerationSettings, PairChoice

LOAD_TIMEOUT_MS = 240_000
REPLY_TIMEOUT_MS = 300_000
IDLE_TIMEOUT_MS = 30_000  # after a reply has finished, the window's own handlers only tidy up


def pair_choice(pair: tuple[Path, Path], drafter: DrafterKind = DrafterKind.MODEL) -> PairChoice:
    """A picker choice for a (target, draft) tuple."""
    return PairChoice(pair[0], pair[1] if drafter is DrafterKind.MODEL else None, drafter)


def load(qtbot: QtBot, window: MainWindow, choice: PairChoice) -> None:
    """Load ``choice`` and wait until it is loaded (or fail with the error the window shows)."""
    with qtbot.waitSignal(
        (window.controller.activity_changed, "activity_changed to IDLE (the pair loaded or failed to load)"),
        timeout=LOAD_TIMEOUT_MS,
        raising=True,
        check_params_cb=lambda activity: activity is Activity.IDLE,
    ):
        window.load_pair(choice)
    assert window.controller.pair is not None, window.chat.banner.text.text()


class Recorder(QObject):
    """Collects the engine thread's step and finished events as the GUI thread receives them.

    A QObject with slots, so the connections are queued to the GUI thread and
    run after the window's own handlers (a plain callable would run on the
    engine thread, before the window has seen the event). ``ended`` fires once
    the recorder has seen a reply finish or fail, with the number finished so far:
    the signal the helpers wait on.
    """

    ended = Signal(int)

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
        self.ended.emit(len(self.finished))

    @Slot(str)
    def _error(self, message: str) -> None:
        self.errors.append(message)
        self.ended.emit(len(self.finished))


def send(qtbot: QtBot, window: MainWindow, text: str, recorder: Recorder | None = None) -> FinishedEvent:
    """Type ``text``, press Ctrl+Enter in the prompt box and wait for the reply to finish."""
    recorder = recorder or Recorder(window)
    before = len(recorder.finished)
    window.chat.prompt.setPlainText(text)
    # A reply that ended earlier may still be on its way to the recorder: only a newer one counts.
    with qtbot.waitSignal(
        (recorder.ended, "the reply to end (Recorder.ended)"),
        timeout=REPLY_TIMEOUT_MS,
        raising=True,
        check_params_cb=lambda finished: finished > before or bool(recorder.errors),
    ):
        QTest.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        assert window.chat.prompt.toPlainText() == "", "Ctrl+Enter did not send the prompt"
    assert not recorder.errors, recorder.errors
    wait_idle(qtbot, window)
    return recorder.finished[-1]


def wait_idle(qtbot: QtBot, window: MainWindow) -> None:
    """Wait until the window's controller is idle (fails naming the activity it is stuck in)."""

    def idle() -> None:
        assert window.controller.activity is Activity.IDLE, f"the window is still {window.controller.activity}"

    qtbot.waitUntil(idle, timeout=IDLE_TIMEOUT_MS)


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


def wait_reply(qtbot: QtBot, window: MainWindow, recorder: Recorder, before: int) -> FinishedEvent:
    """Wait for the reply started by an action (Regenerate, Continue) to finish: ``before`` replies had finished.

    Polls the recorder rather than waiting for ``ended``: the reply may have ended
    while the action's click was still being handled.
    """

    def ended() -> None:
        assert len(recorder.finished) > before or recorder.errors, f"no reply after {before} finished ones"

    qtbot.waitUntil(ended, timeout=REPLY_TIMEOUT_MS)
    assert not recorder.errors, recorder.errors
    wait_idle(qtbot, window)
    return recorder.finished[-1]


@dataclass(frozen=True, slots=True)
class FreshWindow:
    """What a window shows right after ``make_window()`` and loading a pair: what :func:`reset_window` restores.

    Captured once, from the window itself, right after its first load (so a
    setting added to the panel later is restored without a change here as long
    as it is part of the chat's or the machine's settings).
    """

    choice: PairChoice
    chat: ChatSettings  # the settings panel's chat part, which a new chat starts from
    generation: GenerationSettings  # the panel's machine part (context, threads, GPU layers)
    remote_limits: RemoteLimits
    hold: float  # slow motion's hold per step (slow motion itself is off)
    coloured: bool
    ghosts: bool
    underlines: bool
    send_with_ctrl_enter: bool
    side_tab: int
    baseline: float | None  # the target-only rate the Stats tab compares against

    @classmethod
    def of(cls, window: MainWindow, choice: PairChoice) -> FreshWindow:
        """The state ``window`` is in now (freshly loaded with ``choice``)."""
        legend = window.chat.legend
        return cls(
            choice=choice,
            chat=window.settings_panel.chat_settings(),
            generation=window.settings_panel.settings(),
            remote_limits=window.app_settings.remote_limits(),
            hold=window.steps.hold.value(),
            coloured=legend.coloured.isChecked(),
            ghosts=legend.ghosts.isChecked(),
            underlines=legend.underlines.isChecked(),
            send_with_ctrl_enter=window.chat.prompt.send_with_ctrl_enter,
            side_tab=window.side.currentIndex(),
            baseline=window.app_settings.baseline(choice.target, window.settings_panel.settings().n_threads),
        )


@dataclass(frozen=True, slots=True)
class LoadedWindow:
    """A test module's shared window (the ``loaded_window`` fixture), and what it showed right after its pair loaded."""

    window: MainWindow
    fresh: FreshWindow
    data_dir: Path  # its data folder (the module's own)


def reset_window(qtbot: QtBot, window: MainWindow, fresh: FreshWindow) -> None:
    """Bring a shared, loaded window back to the state ``fresh`` recorded, for the next test.

    In order: nothing in flight (a reply or a tool still running is stopped, the
    controller idle, then every dialog closed); the machine settings as they were and the
    same pair loaded (loaded again only if a test changed or unloaded it); the chat
    database emptied through the store's own API (chats, the trash, presets, the
    default preset), each chat's demo switch turned off first; then a new, empty chat
    on the recorded settings, with the prompt box, attachment chips, banners, undo
    bar, search, legend, slow motion, the Stats tab and the side panel's tab as a
    fresh window has them. Fails if the settings panel then shows anything but the recorded settings.
    """
    controller = window.controller
    if controller.activity is not Activity.IDLE and controller.activity is not Activity.LOADING:
        controller.stop()
    window.tools.close_dialog()  # an A/B or sweep stops with its dialog
    wait_idle(qtbot, window)
    window.steps.slow_action.setChecked(False)
    window.steps.hold.setValue(fresh.hold)
    # Only now: the step view opens by itself while a reply streams in slow motion.
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QDialog) and widget.isVisible():
            widget.reject()

    window.settings_panel.set_settings(fresh.generation, emit=True)
    window.settings_panel.remote.set_limits(fresh.remote_limits)
    window.app_settings.set_remote_limits(fresh.remote_limits)
    pair = controller.pair
    if pair is None or pair.remote is not None or pair.config != fresh.choice.config(fresh.generation):
        load(qtbot, window, fresh.choice)

    store = window.store
    chats = [c.id for c in store.list_conversations()] + [c.id for c in store.trashed_conversations()]
    for conversation_id in chats:
        # SQLite gives a deleted chat's id to the next one: no choice made for this chat may outlive it.
        controller.open_conversation(conversation_id, force=True)
        if controller.demo.on:
            controller.demo.set_on(False)
    for conversation_id in chats:
        store.delete_conversation(conversation_id, permanent=True)
    store.set_default_preset(None)
    for name in store.presets():
        store.delete_preset(name)
    if window.settings_panel.presets is not None:
        window.settings_panel.presets.refresh()

    controller.new_conversation()  # cancels an edit, forgets the new chat's demo choice, shows its settings
    controller.attachments.clear()
    window.chat.prompt.clear()
    window.chat.banner.hide()
    window.conversations.undo.dismiss()
    window.conversations.search.clear()
    legend = window.chat.legend
    legend.coloured.setChecked(fresh.coloured)
    legend.ghosts.setChecked(fresh.ghosts)
    legend.underlines.setChecked(fresh.underlines)
    window.chat.set_send_with_ctrl_enter(fresh.send_with_ctrl_enter)
    window.app_settings.set_flag("send_with_ctrl_enter", fresh.send_with_ctrl_enter)
    loaded = controller.pair
    assert loaded is not None
    window.stats.reset(loaded.config.drafter.value, fresh.chat.adaptive)  # as a load leaves it
    # An A/B or a target-only reply may have measured a rate: the tab shows the one the load found. (The settings
    # file keeps what was measured: it has no way to forget a rate, and only a later load reads it.)
    window.stats.set_baseline(fresh.baseline, "measured here" if fresh.baseline else "")
    window.stats.set_copied({})
    window.side.setCurrentIndex(fresh.side_tab)
    window.statusBar().clearMessage()
    assert window.settings_panel.chat_settings() == fresh.chat, "the settings panel did not return to its start"
    assert controller.conversation_id is None and not controller.path and not window.chat.view.messages
    assert not store.list_conversations() and not controller.demo.on
    # MCP tools are not reset (no shared-window test uses them): a test that leaves a new chat's choices fails here.
    assert controller.tool_flow.chat_tools() == ChatTools(), "a new chat's MCP tool choices were left behind"
