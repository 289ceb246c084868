"""The centre of the window: error banner, chat view, legend with view switches, context gauge, prompt box.

Enter sends and Shift+Enter adds a line (with the "Send with Ctrl+Enter"
preference, Enter adds a line instead; Ctrl+Enter sends in both), Up in an
empty prompt box edits the last message, Esc stops. While a message is edited a bar above the
prompt box says so, with Cancel: sending then makes a new branch. The legend doubles as the place for the view
switches (origins or plain reading, underline cues, ghost text) so the meaning
of the colours and the way to change them sit side by side. Every control has
an accessible name for screen readers.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.decoding.events import TokenOrigin
from app.ui import theme
from app.ui.chat.attachments.bar import AttachmentRow, PaperclipButton
from app.ui.chat.context.gauge import ContextGauge
from app.ui.chat.shape_line import ShapeLine
from app.ui.chat.view.chat_view import ChatView
from app.ui.layout_fit import FlowLayout


class PromptBox(QPlainTextEdit):
    """Multi-line prompt: Enter sends (or Ctrl+Enter only), Shift+Enter adds a line, Esc stops the reply."""

    submitted = Signal()
    stop_requested = Signal()
    edit_last_requested = Signal()  # Up in an empty box

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.send_with_ctrl_enter = False
        self.setAccessibleName(self.tr("Message"))
        self.set_send_with_ctrl_enter(False)
        self.setTabChangesFocus(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.textChanged.connect(self._fit_height)
        self._fit_height()

    def _fit_height(self) -> None:
        # Grow with the text from three lines up to ten, then scroll.
        lines = max(3, min(10, self.document().lineCount()))
        margins = self.contentsMargins().top() + self.contentsMargins().bottom()
        frame = int(self.document().documentMargin() * 2) + margins + 4
        self.setFixedHeight(self.fontMetrics().lineSpacing() * lines + frame)

    def set_send_with_ctrl_enter(self, on: bool) -> None:
        """Ctrl+Enter only sends (Enter adds a line), or Enter sends (Shift+Enter adds a line)."""
        self.send_with_ctrl_enter = on
        send = self.tr("Ctrl+Enter to send") if on else self.tr("Enter to send")
        line = self.tr("Enter for a new line") if on else self.tr("Shift+Enter for a new line")
        self.setPlaceholderText(self.tr("Ask something…   ({keys})").format(keys=send))  # short: the box may be narrow
        more = self.tr("Esc stops the reply; Up in an empty box edits the last message")
        self.setToolTip(f"{send}, {line}; {more}")
        self.setAccessibleDescription(f"{send}, {line}, {more}")

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        """Enter, Shift+Enter, Ctrl+Enter, Up in an empty box, and Esc."""
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        modifiers = event.modifiers()
        if enter and modifiers & Qt.KeyboardModifier.ControlModifier:
            self.submitted.emit()  # in both modes, as before
            return
        if enter and modifiers & Qt.KeyboardModifier.ShiftModifier:
            self.insertPlainText("\n")  # a real newline, not Qt's line separator
            return
        if enter and not self.send_with_ctrl_enter and not modifiers & Qt.KeyboardModifier.AltModifier:
            self.submitted.emit()
            return
        if event.key() == Qt.Key.Key_Up and not self.toPlainText() and not modifiers:
            self.edit_last_requested.emit()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.stop_requested.emit()
            return
        super().keyPressEvent(event)


class Legend(QWidget):
    """Colour swatches per origin, the reading-view switch and the ghost-text switch."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Chips and switches flow into a second row when the chat is narrow, rather than widen the window.
        layout = FlowLayout(self, spacing=10)
        layout.setContentsMargins(2, 0, 2, 0)
        self.swatches: dict[TokenOrigin, QLabel] = {}
        for origin in (TokenOrigin.DRAFT, TokenOrigin.CORRECTED, TokenOrigin.BONUS, TokenOrigin.TARGET):
            label = QLabel(theme.origin_label(origin))
            label.setToolTip(
                self.tr("{meaning} (with Underlines on: {underline})").format(
                    meaning=theme.origin_explanation(origin), underline=theme.origin_underline_name(origin)
                )
            )
            label.setAccessibleName(self.tr("legend: {origin}").format(origin=theme.origin_label(origin)))
            label.setMargin(3)
            self.swatches[origin] = label
            layout.addWidget(label)
        self.coloured = QCheckBox(self.tr("Origins"))
        self.coloured.setToolTip(self.tr("on: tokens tinted by origin; off: the plain reading view (Markdown kept)"))
        self.coloured.setAccessibleName(self.tr("Show token origins"))
        self.coloured.setChecked(True)
        self.underlines = QCheckBox(self.tr("Underlines"))
        self.underlines.setToolTip(
            self.tr("mark each origin with its own underline style too: the cue that needs no colour")
        )
        self.underlines.setAccessibleName(self.tr("Underline tokens by origin"))
        self.ghosts = QCheckBox(self.tr("Rejected drafts"))
        self.ghosts.setToolTip(self.tr("show each rejected draft proposal inline, struck through"))
        self.ghosts.setAccessibleName(self.tr("Show rejected drafts"))
        layout.addWidget(self.coloured)
        layout.addWidget(self.underlines)
        layout.addWidget(self.ghosts)
        self._paint_swatches()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """Follow theme changes."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._paint_swatches()

    def _paint_swatches(self) -> None:
        palette = self.palette()
        colours = theme.origin_colours(palette)
        border = theme.blend(palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base), 0.3)
        for origin, label in self.swatches.items():
            colour = colours[origin]
            background = colour.name() if colour is not None else "transparent"
            label.setStyleSheet(
                f"QLabel {{ background: {background}; border: 1px solid {border.name()}; border-radius: 3px; "
                "padding: 0px 4px; }"
            )


class ErrorBanner(QFrame):
    """A dismissible message above the chat: errors stay visible without blocking the window."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.text = QLabel("")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)  # messages carry server and file text: never rich text
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setText("✕")
        close.setToolTip(self.tr("dismiss"))
        close.setAccessibleName(self.tr("Dismiss message"))
        close.clicked.connect(self.hide)
        layout.addWidget(self.text, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(self, message: str) -> None:
        """Show ``message`` (plain text)."""
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, theme.warning_background(self.window().palette()))
        self.setPalette(palette)
        self.text.setText(message)
        self.show()


class EditBar(QFrame):
    """Shown while a message is edited: what sending will do, and a way back."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 2, 2)
        self.text = QLabel(self.tr("Editing a message: sending makes a new branch from it; the old one is kept."))
        self.text.setWordWrap(True)
        self.cancel = QToolButton()
        self.cancel.setText(self.tr("Cancel"))
        self.cancel.setAccessibleName(self.tr("Cancel editing"))
        layout.addWidget(self.text, 1)
        layout.addWidget(self.cancel)
        self.hide()


class ChatPanel(QWidget):
    """Banner, transcript, legend and prompt."""

    send_requested = Signal(str)
    stop_requested = Signal()
    edit_cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        self.banner = ErrorBanner()
        self.view = ChatView()
        self.legend = Legend()
        self.gauge = ContextGauge()
        self.prompt = PromptBox()
        self.edit_bar = EditBar()
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setToolTip(self.tr("Enter (Shift+Enter adds a line)"))
        self.send_button.setAccessibleName(self.tr("Send message"))
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setToolTip(self.tr("Esc"))
        self.stop_button.setAccessibleName(self.tr("Stop reply"))
        self.stop_button.setEnabled(False)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        self.attachments = AttachmentRow()  # the chips of the files the next message carries
        self.shape = ShapeLine()  # what holds the chat's replies to a shape (schema, system prompt, tools)
        self.paperclip = PaperclipButton()
        bottom = QHBoxLayout()
        bottom.addWidget(self.paperclip, 0, Qt.AlignmentFlag.AlignTop)
        bottom.addWidget(self.prompt, 1)
        bottom.addLayout(buttons)
        layout.addWidget(self.banner)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.gauge)
        layout.addWidget(self.edit_bar)
        layout.addWidget(self.attachments)
        layout.addWidget(self.shape)
        layout.addLayout(bottom)
        self.edit_bar.cancel.clicked.connect(self.edit_cancelled)

        self.prompt.submitted.connect(self._submit)
        self.send_button.clicked.connect(self._submit)
        self.prompt.stop_requested.connect(self.stop_requested)
        self.stop_button.clicked.connect(self.stop_requested)
        self.legend.coloured.toggled.connect(self.view.set_coloured)
        self.legend.ghosts.toggled.connect(self.view.set_show_ghosts)
        self.legend.underlines.toggled.connect(self.view.set_underlines)
        # Esc stops from anywhere in the chat, not only from the prompt box.
        stop = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        stop.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        stop.activated.connect(self.stop_requested)

    def set_send_with_ctrl_enter(self, on: bool) -> None:
        """Which key sends (the Preferences' "Send with Ctrl+Enter"): the prompt box and the Send button's tooltip."""
        self.prompt.set_send_with_ctrl_enter(on)
        self.send_button.setToolTip(
            self.tr("Ctrl+Enter (Enter adds a line)") if on else self.tr("Enter (Shift+Enter adds a line)")
        )

    def set_generating(self, generating: bool, can_send: bool) -> None:
        """Swap the buttons' availability while a reply streams."""
        self.send_button.setEnabled(can_send and not generating)
        self.stop_button.setEnabled(generating)

    def show_editing(self, editing: bool) -> None:
        """Show or hide the editing bar; Send says what it will do."""
        self.edit_bar.setVisible(editing)
        self.send_button.setText(self.tr("Resend") if editing else self.tr("Send"))

    def _submit(self) -> None:
        if not self.send_button.isEnabled():
            return
        text = self.prompt.toPlainText().strip()
        if text or self.attachments.others:  # a picture alone is a message too
            self.send_requested.emit(text)
