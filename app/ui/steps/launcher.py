"""Where the step view meets the window: its actions, where its steps come from, slow motion, the export.

- A reply's "Steps" action (and the View menu's "Steps of this reply",
  Ctrl+J: the reply at the chat's caret, else the branch's last) opens the
  :class:`~app.ui.steps.step_view.StepView` on the reply's stored steps.
- While the view shows a stored reply, moving the chat's caret onto one of its
  tokens (a click puts it under the pointer; Alt+arrows walk the tokens)
  selects the step that made that token.
- Slow motion (the View menu's switch and its hold time, 0.25-5 s) asks the
  engine thread to wait after each step of a local reply
  (:meth:`~app.ui.threads.worker.EngineHost.set_step_hold`); while it is on, or
  while the view is open, the view follows the live reply step by step from
  the step events' records.
- "Export steps as HTML…" (the view's button, the reply's menu) writes
  :func:`~app.core.reply.step_page.render_page` through the safe writer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDoubleSpinBox, QFileDialog, QHBoxLayout, QLabel, QMenu, QWidget, QWidgetAction

from app.core.decoding.events import StepEvent
from app.core.errors import TandemError
from app.core.reply.step_page import render_page
from app.core.reply.step_record import StepRecord
from app.core.reply.step_words import explain_words
from app.engine.safe_files import write_text_safely
from app.engine.store.conversations import ChatStore, StoredMessage
from app.ui.chat.controller import ChatController
from app.ui.chat.view.token_painter import Prop
from app.ui.i18n.words import say, say_error
from app.ui.settings.folders import FolderKind, LastFolders
from app.ui.steps.step_view import StepView
from app.ui.threads.jobs import PromptInfo

MIN_HOLD_S = 0.25
MAX_HOLD_S = 5.0
DEFAULT_HOLD_S = 1.0


class StepsLauncher(QObject):
    """Owns the step view and the slow-motion switch; wired to the chat controller and the engine thread."""

    def __init__(
        self,
        window: QWidget,
        controller: ChatController,
        store: Callable[[], ChatStore],
        status: Callable[[str, int], None],
        folders: LastFolders | None = None,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._folders = folders or LastFolders()  # where the export dialog opens
        self._controller = controller
        self._store = store
        self._status = status
        self.view = StepView(window, explain_here)
        self.ask_path: Callable[[str], Path | None] = self._ask_path  # the tests answer for the dialog
        self._following = False  # the view shows the live reply

        self.open_action = QAction(self.tr("Steps of this reply"), window)
        self.open_action.setShortcut(QKeySequence("Ctrl+J"))
        self.open_action.setToolTip(
            self.tr("replay the reply at the caret (else the last one) one verify step at a time")
        )
        self.open_action.triggered.connect(self.open_at_caret)
        self.slow_action = QAction(self.tr("Slow motion (hold each step)"), window, checkable=True)
        self.slow_action.setToolTip(self.tr("a local reply waits after each verify step, and the step view follows it"))
        self.slow_action.toggled.connect(self._apply_hold)
        self.hold = QDoubleSpinBox()
        self.hold.setRange(MIN_HOLD_S, MAX_HOLD_S)
        self.hold.setSingleStep(0.25)
        self.hold.setValue(DEFAULT_HOLD_S)
        self.hold.setSuffix(" s")
        self.hold.setAccessibleName(self.tr("Slow motion hold per step"))
        self.hold.valueChanged.connect(lambda _value: self._apply_hold(self.slow_action.isChecked()))
        holder = QWidget()
        row = QHBoxLayout(holder)
        row.setContentsMargins(24, 2, 8, 2)
        row.addWidget(QLabel(self.tr("Hold each step for")))
        row.addWidget(self.hold)
        self.hold_action = QWidgetAction(window)
        self.hold_action.setDefaultWidget(holder)

        controller.steps_requested.connect(self.open_reply)
        controller.steps_export_requested.connect(self.export)
        controller.reply_finished.connect(self._reply_finished)
        controller.panel.view.cursorPositionChanged.connect(self._caret_moved)
        self.view.export_requested.connect(lambda: self.export(self.view.message_id))
        self.view.caret_jump_requested.connect(self.jump_to_caret)
        worker = controller.host.worker
        worker.prompt_ready.connect(self._prompt_ready)
        worker.step.connect(self._step)

    def add_to(self, menu: QMenu) -> None:
        """Put the view's and slow motion's entries in ``menu`` (the View menu)."""
        menu.addSeparator()
        menu.addAction(self.open_action)
        menu.addAction(self.slow_action)
        menu.addAction(self.hold_action)

    # -- opening -------------------------------------------------------------------------

    def _message(self, message_id: int) -> StoredMessage | None:
        return next((m for m in self._controller.path if m.id == message_id), None)

    def _title(self, message_id: int) -> str:
        conversation = self._controller.conversation_id
        try:
            chat = self._store().conversation_title(conversation) if conversation is not None else ""
        except KeyError:
            chat = ""
        if chat:
            return self.tr("{chat} · reply {id}").format(chat=chat, id=message_id)
        return self.tr("reply {id}").format(id=message_id)

    def steps_of(self, message_id: int) -> list[StepRecord]:
        """The stored reply's steps (empty when it has none, or they cannot be read)."""
        try:
            return self._store().steps(message_id)
        except (ValueError, TandemError) as exc:
            self._status(self.tr("the steps of this reply cannot be read: {error}").format(error=say_error(exc)), 8000)
            return []

    def open_reply(self, message_id: int) -> None:
        """Show the step view on a stored reply."""
        self._following = False
        self.view.show_reply(message_id, self._title(message_id), self.steps_of(message_id))
        self.view.show()
        self.view.raise_()
        self.view.activateWindow()

    def _caret_token(self) -> tuple[int, int] | None:
        """(message id, token index) of the reply token at the chat's caret, if it is on one."""
        chat = self._controller.panel.view
        cursor = chat.textCursor()
        fmt = chat.format_at(cursor.selectionStart() if cursor.hasSelection() else cursor.position())
        if fmt.property(Prop.KIND) != "token":
            return None
        index = int(fmt.property(Prop.MESSAGE_INDEX))
        messages = chat.messages
        if not 0 <= index < len(messages) or messages[index].message_id is None:
            return None
        message_id = messages[index].message_id
        assert message_id is not None
        return message_id, int(fmt.property(Prop.TOKEN_INDEX))

    def open_at_caret(self) -> None:
        """Open the steps of the reply at the caret (at its token's step), else of the branch's last reply."""
        at = self._caret_token()
        if at is not None:
            self.open_reply(at[0])
            self.view.jump_to_token(at[1])
            return
        replies = [m for m in self._controller.path if m.role == "assistant"]
        if not replies:
            self._status(self.tr("no reply to show the steps of yet"), 4000)
            return
        self.open_reply(replies[-1].id)

    def jump_to_caret(self) -> bool:
        """Select the step of the token at the chat's caret, when it is a token of the reply shown."""
        at = self._caret_token()
        if at is None or at[0] != self.view.message_id:
            self._status(self.tr("put the chat's caret on a token of this reply first (click it)"), 4000)
            return False
        return self.view.jump_to_token(at[1])

    def _caret_moved(self) -> None:
        if not self.view.isVisible() or self.view.live:
            return
        at = self._caret_token()
        if at is not None and at[0] == self.view.message_id:
            self.view.jump_to_token(at[1])

    # -- slow motion and the live reply -------------------------------------------------------

    @property
    def hold_seconds(self) -> float:
        """The engine thread's wait after each step now (0: slow motion is off)."""
        return self.hold.value() if self.slow_action.isChecked() else 0.0

    def _apply_hold(self, on: bool) -> None:
        self._controller.host.set_step_hold(self.hold.value() if on else 0.0)

    @Slot(object)
    def _prompt_ready(self, info: PromptInfo) -> None:
        if info.plan is None or not (self.slow_action.isChecked() or self.view.isVisible()):
            return
        self._following = True
        slow = self.slow_action.isChecked()
        self.view.begin_live(
            self.tr("the reply being written (slow motion)") if slow else self.tr("the reply being written")
        )
        self.view.show()

    @Slot(object)
    def _step(self, event: StepEvent) -> None:
        record = event.record
        if self._following and record is not None:
            self.view.add_live(record)

    def _reply_finished(self, _event: object) -> None:
        if not self._following:
            return
        self._following = False
        path = self._controller.path
        last = path[-1].id if path and path[-1].role == "assistant" else None
        self.view.end_live(last)

    # -- export ------------------------------------------------------------------------------

    def _ask_path(self, suggested: str) -> Path | None:
        chosen, _ = QFileDialog.getSaveFileName(
            self._window,
            self.tr("Export steps"),
            self._folders.start(FolderKind.EXPORTS, suggested),
            self.tr("HTML (*.html)"),
        )
        if not chosen:
            return None
        self._folders.remember(FolderKind.EXPORTS, chosen)
        return Path(chosen)

    def export(self, message_id: int | None, path: Path | None = None) -> Path | None:
        """Write a stored reply's steps as a self-contained HTML page (asks where unless ``path`` is given)."""
        if message_id is None:
            return None
        message = self._message(message_id)
        steps = self.steps_of(message_id)
        if message is None or not steps:
            self._status(self.tr("this reply has no recorded steps to export"), 6000)
            return None
        if path is None:
            path = self.ask_path(f"steps-{message_id}.html")
            if path is None:
                return None
        tokens = message.tokens
        page = render_page(self._title(message_id), [t.text for t in tokens], [str(t.origin) for t in tokens], steps)
        try:  # the dialog asked before replacing a file; a link, folder or device is still never replaced
            write_text_safely(path, page, overwrite=True)
        except TandemError as exc:
            self._status(self.tr("not exported: {error}").format(error=say_error(exc)), 8000)
            return None
        self._status(self.tr("steps exported to {path}").format(path=path), 6000)
        return path


def explain_here(step: StepRecord) -> str:
    """The step told in words in the window's language (its numbers with the locale's marks)."""
    return " ".join(say(sentence) for sentence in explain_words(step))
