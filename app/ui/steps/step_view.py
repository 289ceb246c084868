"""The step view: a window that replays one reply a verify step at a time.

It shows the reply's timeline strip (:mod:`app.ui.steps.timeline`), the
selected step's card (:mod:`app.ui.steps.step_card`) with the card's words
under it, and the controls: first, previous, play/pause, next, last, the
playing speed in steps per second, "Step of the token at the caret" and
"Export steps as HTML…". From the keyboard: Left/Right move one step,
Home/End go to the first and last, Space plays or pauses. A click on a
column of the strip selects its step.

The view holds only what it shows; where the steps come from (the store, or
the live reply's step events) and where an export goes is
:mod:`app.ui.steps.launcher`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.core.reply.step_record import StepRecord, step_of_token
from app.ui.steps.media_icons import Media, media_icon
from app.ui.steps.player import MAX_SPEED, MIN_SPEED, StepPlayer
from app.ui.steps.step_card import StepCard
from app.ui.steps.timeline import StepTimeline

NO_STEPS = str(
    QT_TRANSLATE_NOOP(
        "StepView", "No steps were recorded for this reply (made before Tandem kept them, or by a server)"
    )
)


class StepView(QDialog):
    """The replay window for one reply's steps."""

    export_requested = Signal()
    caret_jump_requested = Signal()

    def __init__(self, parent: QWidget | None = None, words: Callable[[StepRecord], str] | None = None) -> None:
        super().__init__(parent)
        self._built = False
        self.setWindowTitle(self.tr("Steps"))
        self.setModal(False)
        self.resize(960, 620)
        self.message_id: int | None = None  # the stored reply shown (None: the live reply, or nothing)
        self.live = False
        self._steps: list[StepRecord] = []
        self.current: int | None = None
        self._words = words or (lambda _step: "")
        self.player = StepPlayer(self)
        self.player.tick.connect(self._tick)
        self.player.playing_changed.connect(self._playing_changed)

        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.notice = QLabel(self.tr(NO_STEPS))
        self.notice.setWordWrap(True)
        self.timeline = StepTimeline()
        self.timeline.step_clicked.connect(self.select)
        self.strip = QScrollArea()
        self.strip.setWidget(self.timeline)
        self.strip.setWidgetResizable(False)
        self.strip.setFixedHeight(self.timeline.sizeHint().height() + 22)
        self.strip.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.card = StepCard()
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.words.setTextFormat(Qt.TextFormat.PlainText)
        self.words.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        card_area = QScrollArea()
        inner = QWidget()
        inner_layout = QVBoxLayout(inner)
        inner_layout.setContentsMargins(0, 0, 0, 0)
        inner_layout.addWidget(self.card)
        inner_layout.addWidget(self.words)
        inner_layout.addStretch(1)
        card_area.setWidget(inner)
        card_area.setWidgetResizable(True)
        for area in (self.strip, card_area):
            area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # their arrow keys would scroll instead of stepping

        self.first_button = QPushButton(self.tr("◀◀ First"))
        self.previous_button = QPushButton(self.tr("◀ Previous"))
        self.play_button = QPushButton(self.tr("Play"))  # its icon painted (media_icons): "⏸" drew as a box
        self.next_button = QPushButton(self.tr("Next ▶"))
        self.last_button = QPushButton(self.tr("Last ▶▶"))
        self.speed = QDoubleSpinBox()
        self.speed.setRange(MIN_SPEED, MAX_SPEED)
        self.speed.setSingleStep(0.5)
        self.speed.setDecimals(2)
        self.speed.setSuffix(self.tr(" steps/s"))
        self.speed.setValue(self.player.speed)
        self.speed.setAccessibleName(self.tr("Playing speed"))
        self.speed.valueChanged.connect(self.player.set_speed)
        self.caret_button = QPushButton(self.tr("Step of the token at the caret"))
        self.caret_button.setToolTip(
            self.tr("the step that made the token at the chat's caret (clicking a token moves it)")
        )
        self.export_button = QPushButton(self.tr("Export steps as HTML…"))
        self.first_button.clicked.connect(self.first)
        self.previous_button.clicked.connect(self.previous)
        self.play_button.clicked.connect(self.player.toggle)
        self.next_button.clicked.connect(self.next)
        self.last_button.clicked.connect(self.last)
        self.caret_button.clicked.connect(self.caret_jump_requested)
        self.export_button.clicked.connect(self.export_requested)
        self._buttons = (self.first_button, self.previous_button, self.play_button, self.next_button, self.last_button)
        for button in (*self._buttons, self.caret_button, self.export_button):
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # the arrow keys stay the view's
            button.setAutoDefault(False)  # Return is not a click on whichever button had focus

        controls = QHBoxLayout()
        for button in self._buttons:
            controls.addWidget(button)
        controls.addWidget(QLabel(self.tr("Speed")))
        controls.addWidget(self.speed)
        controls.addStretch(1)
        controls.addWidget(self.caret_button)
        controls.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.notice)
        layout.addWidget(self.strip)
        layout.addWidget(card_area, 1)
        layout.addLayout(controls)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._paint_play_icon()
        self._built = True
        self._refresh()

    # -- what is shown ----------------------------------------------------------------

    @property
    def steps(self) -> list[StepRecord]:
        """The steps of the reply shown, in order."""
        return self._steps

    def set_words(self, words: Callable[[StepRecord], str]) -> None:
        """How a step is told in words under the card."""
        self._words = words
        self._refresh()

    def show_reply(self, message_id: int | None, title: str, steps: Sequence[StepRecord]) -> None:
        """Show a stored reply's steps from the first (its "no steps" line when there are none)."""
        self.player.pause()
        self.message_id = message_id
        self.live = False
        self.title.setText(title)
        self._steps = list(steps)
        self.current = 0 if self._steps else None
        self._refresh()
        self.setFocus(Qt.FocusReason.OtherFocusReason)  # the arrow keys step at once, whatever had focus before

    def begin_live(self, title: str) -> None:
        """Follow a reply as it streams: empty until its first step arrives."""
        self.player.pause()
        self.message_id = None
        self.live = True
        self.title.setText(title)
        self._steps = []
        self.current = None
        self._refresh()

    def add_live(self, step: StepRecord) -> None:
        """A live reply's next step: shown at once unless the user went back to an earlier one."""
        following = self.current is None or self.current == len(self._steps) - 1
        self._steps.append(step)
        if following:
            self.current = len(self._steps) - 1
        self._refresh()

    def end_live(self, message_id: int | None) -> None:
        """The live reply ended (stored as ``message_id``); its steps stay on screen."""
        self.live = False
        self.message_id = message_id
        self._refresh()

    # -- moving ----------------------------------------------------------------------

    def select(self, index: int) -> None:
        """Show step ``index`` (clamped to the reply's steps)."""
        if not self._steps:
            return
        self.current = max(0, min(len(self._steps) - 1, index))
        self._refresh()

    def next(self) -> None:
        """One step on."""
        if self.current is not None:
            self.select(self.current + 1)

    def previous(self) -> None:
        """One step back."""
        if self.current is not None:
            self.select(self.current - 1)

    def first(self) -> None:
        """The first step."""
        self.select(0)

    def last(self) -> None:
        """The last step."""
        self.select(len(self._steps) - 1)

    def jump_to_token(self, token_index: int) -> bool:
        """Show the step that made the reply's token ``token_index``; False when no step did."""
        step = step_of_token(self._steps, token_index)
        if step is None:
            return False
        self.select(self._steps.index(step))
        return True

    def _tick(self) -> None:
        if self.current is None or self.current >= len(self._steps) - 1:
            self.player.pause()  # the end: the next Play starts again from the first step
            return
        self.next()

    def _playing_changed(self, playing: bool) -> None:
        if playing and self.current is not None and self.current >= len(self._steps) - 1:
            self.select(0)  # Play at the last step replays from the start
        self.play_button.setText(self.tr("Pause") if playing else self.tr("Play"))
        self._paint_play_icon()

    def _paint_play_icon(self) -> None:
        colour = self.play_button.palette().color(QPalette.ColorRole.ButtonText)
        self.play_button.setIcon(media_icon(Media.PAUSE if self.player.playing else Media.PLAY, colour))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """A new palette (light or dark theme) repaints the play icon in its text colour."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._built:  # not while __init__ builds the button
            self._paint_play_icon()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        """Left/Right, Home/End and Space move through the steps; the rest as a dialog does."""
        moves: dict[int, Callable[[], None]] = {
            Qt.Key.Key_Left: self.previous,
            Qt.Key.Key_Right: self.next,
            Qt.Key.Key_Home: self.first,
            Qt.Key.Key_End: self.last,
            Qt.Key.Key_Space: self.player.toggle,
        }
        move = moves.get(Qt.Key(event.key()))
        if move is not None and event.modifiers() in (
            Qt.KeyboardModifier.NoModifier,
            Qt.KeyboardModifier.KeypadModifier,
        ):
            move()
            return
        super().keyPressEvent(event)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """Opened, the view itself takes the keys (a dialog would give them to its first field, the speed)."""
        super().showEvent(event)
        self.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def closeEvent(self, event: object) -> None:  # noqa: N802 - Qt override
        """Playing stops with the window."""
        self.player.pause()
        super().closeEvent(event)  # type: ignore[arg-type]

    def _refresh(self) -> None:
        steps = self._steps
        self.notice.setVisible(not steps and not self.live)
        self.timeline.set_steps(steps)
        self.timeline.select(self.current)
        step = steps[self.current] if self.current is not None else None
        self.card.empty_text = self.tr("Waiting for the reply's first step…") if self.live else self.tr(NO_STEPS)
        self.card.set_step(step, (self.current or 0) + 1, len(steps))
        self.words.setText(self._words(step) if step is not None else "")
        at = self.current
        self.first_button.setEnabled(bool(steps) and at != 0)
        self.previous_button.setEnabled(bool(steps) and at != 0)
        self.next_button.setEnabled(at is not None and at < len(steps) - 1)
        self.last_button.setEnabled(at is not None and at < len(steps) - 1)
        self.play_button.setEnabled(len(steps) > 1)
        self.export_button.setEnabled(bool(steps) and self.message_id is not None)
        if at is not None:
            column = self.timeline.column_rect(at)
            self.strip.ensureVisible(int(column.center().x()), 10, 40, 0)
