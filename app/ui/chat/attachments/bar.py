"""The prompt's attachments on screen: the paperclip button and the row of chips above the prompt box.

A chip says what will be sent (name, size, tokens); × takes it off, the
"whole" switch asks for the whole document in the prompt instead of the
passages retrieval picks (with a warning on the chip when it will not fit),
and clicking the name opens its extracted text. The paperclip opens the file
dialog (several files at once); its menu also has "Folder…". The chips and
the button only show and ask: :mod:`app.ui.chat.attachments.flow` reads the
files and keeps the list.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QWidget,
)

from app.core.attachments.record import Attachment
from app.ui import theme
from app.ui.chat.attachments.access import chip_label, paperclip
from app.ui.layout_fit import FlowLayout

NAME_CHARS = 28  # a chip shortens a longer name in the middle (the dialog and the tooltip say it whole)


@dataclass(slots=True)
class PendingAttachment:
    """An attachment waiting in the prompt: what was read, its counted tokens and the user's "whole" choice."""

    attachment: Attachment
    tokens: int | None = None  # None until the engine has counted it (the chip shows an estimate)
    whole: bool = False  # the user asked for whole documents, even where retrieval would pick passages
    fits: bool = True  # whether it fits the context beside the chat (the gauge decides)


class AttachmentChip(QFrame):
    """One pending attachment: its name (click to read it), size and tokens, "whole", and ×."""

    removed = Signal(object)  # the chip
    opened = Signal(object)  # the chip
    whole_toggled = Signal(object, bool)  # the chip, on

    def __init__(self, pending: PendingAttachment, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pending = pending
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 1, 2, 1)
        layout.setSpacing(4)
        self.name = QToolButton()
        self.name.setAutoRaise(True)
        self.name.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.name.setToolTip(self.tr("{name}: show the text that will be sent").format(name=pending.attachment.name))
        self.name.clicked.connect(lambda: self.opened.emit(self))
        self.whole = QToolButton()
        self.whole.setText(self.tr("whole"))
        self.whole.setCheckable(True)
        self.whole.setAutoRaise(True)
        self.whole.setToolTip(self.tr("send the whole document, not only the passages retrieved for each question"))
        self.whole.toggled.connect(lambda on: self.whole_toggled.emit(self, on))
        self.remove = QToolButton()
        self.remove.setText("×")
        self.remove.setAutoRaise(True)
        self.remove.setToolTip(self.tr("remove this attachment"))
        self.remove.clicked.connect(lambda: self.removed.emit(self))
        layout.addWidget(self.name)
        layout.addWidget(self.whole)
        layout.addWidget(self.remove)
        self.update_text()

    def update_text(self) -> None:
        """Show the pending attachment's current numbers and warnings."""
        pending = self.pending
        label = chip_label(pending.attachment, pending.tokens, NAME_CHARS)
        warning = not pending.fits and pending.whole
        self.name.setText(("⚠ " if warning else "") + label)
        self.name.setAccessibleName(self.tr("attachment {label}").format(label=label))
        self.remove.setAccessibleName(self.tr("Remove {name}").format(name=pending.attachment.name))
        self.whole.setAccessibleName(self.tr("Send all of {name}").format(name=pending.attachment.name))
        self.whole.blockSignals(True)
        self.whole.setChecked(pending.whole)
        self.whole.blockSignals(False)
        if warning:
            self.setToolTip(
                self.tr("{name} does not fit the context whole: passages will be used instead").format(
                    name=pending.attachment.name
                )
            )
        elif not pending.fits:
            self.setToolTip(
                self.tr("{name} does not fit: passages will be retrieved per question").format(
                    name=pending.attachment.name
                )
            )
        else:
            self.setToolTip("")
        palette = self.palette()
        base = self.window().palette()
        colour = theme.warning_background(base) if warning else base.color(QPalette.ColorRole.AlternateBase)
        palette.setColor(QPalette.ColorRole.Window, colour)
        self.setPalette(palette)


class AttachmentRow(QWidget):
    """The chips of the attachments that the next message carries (hidden while there are none)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(self.tr("Attachments"))
        self._layout = FlowLayout(self, spacing=6)  # chips wrap onto a new line: no scroll bar to hide one
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.status = QLabel("")
        self.status.setAccessibleName(self.tr("Attachment status"))
        self.status.hide()
        self._layout.addWidget(self.status)
        self.chips: list[AttachmentChip] = []
        self.others: list[QWidget] = []  # chips of other kinds (an image's), shown on the same row
        self.hide()

    def add_chip(self, chip: AttachmentChip) -> None:
        """Show ``chip`` after the others."""
        self._layout.removeWidget(self.status)
        self._layout.addWidget(chip)
        self._layout.addWidget(self.status)  # "reading…" stays last
        self.chips.append(chip)
        self._fit()

    def remove_chip(self, chip: AttachmentChip) -> None:
        """Take ``chip`` off the row."""
        if chip in self.chips:
            self.chips.remove(chip)
            self._layout.removeWidget(chip)
            chip.setParent(None)
            chip.deleteLater()
        self._fit()

    def add_widget(self, widget: QWidget) -> None:
        """Show another kind of chip (an image's) after the others."""
        self._layout.removeWidget(self.status)
        self._layout.addWidget(widget)
        self._layout.addWidget(self.status)
        self.others.append(widget)
        self._fit()

    def remove_widget(self, widget: QWidget) -> None:
        """Take a chip shown with :meth:`add_widget` off the row."""
        if widget in self.others:
            self.others.remove(widget)
            self._layout.removeWidget(widget)
            widget.setParent(None)
            widget.deleteLater()
        self._fit()

    def set_status(self, text: str) -> None:
        """Say what is happening ("reading report.pdf…"); empty to say nothing."""
        self.status.setText(text)
        self.status.setVisible(bool(text))
        self._fit()

    def _fit(self) -> None:
        self.setVisible(bool(self.chips) or bool(self.others) or bool(self.status.text()))
        self._layout.invalidate()
        self.updateGeometry()


class PaperclipButton(QToolButton):
    """📎 beside the prompt: a click picks files; its menu also picks a folder."""

    files_requested = Signal()
    folder_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setText(paperclip(self.fontMetrics().inFontUcs4) or self.tr("Attach"))
        self.setToolTip(
            self.tr(
                "attach files (text, code, PDF, HTML, PNG or JPEG images) or a folder of code; "
                "you can also drop or paste them"
            )
        )
        self.setAccessibleName(self.tr("Attach files"))
        self.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        menu = QMenu(self)
        self.files_action = QAction(self.tr("Files…"), self)
        self.folder_action = QAction(self.tr("Folder…"), self)
        menu.addAction(self.files_action)
        menu.addAction(self.folder_action)
        self.setMenu(menu)
        self.clicked.connect(self.files_requested)
        self.files_action.triggered.connect(self.files_requested)
        self.folder_action.triggered.connect(self.folder_requested)
