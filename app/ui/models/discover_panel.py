"""The Discover tab: search the Hub for GGUF models, see a repository's files, download one.

Thin over the engine's model library: a search box with a sort order and a
"More" button that fetches the next page, the chosen repository's GGUF files
(quantisation, exact size from the Hub's LFS metadata, one Download button
per file, split models as one row), and a progress line with the ETA and a
Cancel button. Every Hub call runs through :class:`~app.ui.threads.background.Background`.

Offline (``HF_HUB_OFFLINE`` set, or the Hub unreachable) the tab says so in
one line and disables its controls; nothing else in the window depends on it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.display.units import bytes_words, rate_words
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.pairing.on_disk import on_disk_words
from app.engine.models import library as model_library
from app.engine.models.library import DownloadCancelledError, DownloadProgress
from app.ui.i18n.words import number, say, say_error
from app.ui.layout_fit import ElidedLabel
from app.ui.models.library import stage_text
from app.ui.threads.background import Background

SORTS = [
    (str(QT_TRANSLATE_NOOP("DiscoverPanel", "Most downloaded")), "downloads"),
    (str(QT_TRANSLATE_NOOP("DiscoverPanel", "Most liked")), "likes"),
    (str(QT_TRANSLATE_NOOP("DiscoverPanel", "Recently updated")), "updated"),
]
PAGE_SIZE = 20
OFFLINE_TEXT = str(
    QT_TRANSLATE_NOOP(
        "DiscoverPanel", "Offline: Hub search and downloads are off (HF_HUB_OFFLINE); local models work as usual."
    )
)


class DiscoverPanel(QWidget):
    """Hub search results, a repository's files with a Download button each, and download progress."""

    downloaded = Signal(object)  # Path of the model's first file, once it is complete and verified
    _progress_arrived = Signal(object)  # DownloadProgress, from the download thread

    def __init__(
        self,
        background: Background,
        current_target: Callable[[], Path | None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.background = background
        self._current_target = current_target or (lambda: None)
        self.drafts: model_library.DraftSearch | None = None
        self._page = 0
        self._query = ""
        self._generation = 0  # answers to superseded searches are dropped
        self._cancel: threading.Event | None = None
        self.files: list[object] = []
        self.on_disk: dict[str, Path] = {}  # spec -> the library's file with the same content

        self.offline = QLabel(self.tr(OFFLINE_TEXT))
        self.offline.setWordWrap(True)
        self.query = QLineEdit()
        self.query.setPlaceholderText(self.tr("Search GGUF models on the Hub, e.g. qwen2.5 coder"))
        self.sort = QComboBox()
        for label, key in SORTS:
            self.sort.addItem(self.tr(label), key)
        self.search_button = QPushButton(self.tr("Search"))
        # The query gets a row of its own: beside the sort and the button it shrank to a sliver.
        row = QHBoxLayout()
        row.addWidget(self.sort, 1)
        row.addWidget(self.search_button)

        self.results = QListWidget()
        self.more = QPushButton(self.tr("More results"))
        self.more.setVisible(False)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels([self.tr("File"), self.tr("Quant"), self.tr("Size"), ""])
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):  # as wide as their contents: the name takes the rest, never a sideways scroll
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setMinimumSectionSize(24)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.cancel_button = QPushButton(self.tr("Cancel download"))
        self.cancel_button.setVisible(False)
        self.find_button = QPushButton(self.tr("Find a draft for the Model tab's target"))
        self.best_button = QPushButton(self.tr("Download the best draft"))
        self.best_button.setVisible(False)
        self.find_button.setToolTip(self.tr("search the Hub for drafts that share the Model tab's target's vocabulary"))
        drafts_row = QVBoxLayout()  # one above the other: side by side they set a wide minimum
        drafts_row.addWidget(self.find_button)
        drafts_row.addWidget(self.best_button)

        layout = QVBoxLayout(self)
        layout.addWidget(self.offline)
        layout.addWidget(self.query)
        layout.addLayout(row)
        layout.addWidget(self.results, 2)
        layout.addWidget(self.more)
        layout.addLayout(drafts_row)
        layout.addWidget(self.table, 2)
        layout.addWidget(self.progress)
        layout.addWidget(self.cancel_button)
        layout.addWidget(self.status)

        self.search_button.clicked.connect(self.search)
        self.query.returnPressed.connect(self.search)
        self.more.clicked.connect(self._next_page)
        self.results.currentItemChanged.connect(self._repo_chosen)
        self.cancel_button.clicked.connect(self.cancel)
        self.find_button.clicked.connect(self.find_drafts)
        self.best_button.clicked.connect(self._download_best)
        self._progress_arrived.connect(self._show_progress)
        self.refresh_offline()

    # -- state -------------------------------------------------------------------------

    def refresh_offline(self) -> bool:
        """Show or hide the offline line (HF_HUB_OFFLINE is read now); True when offline."""
        offline = model_library.offline_mode()
        self.offline.setVisible(offline)
        for widget in (self.query, self.sort, self.search_button, self.results, self.table, self.find_button):
            widget.setEnabled(not offline)
        return offline

    @property
    def busy(self) -> bool:
        """True while a download runs."""
        return self._cancel is not None

    # -- search ------------------------------------------------------------------------

    def search(self) -> None:
        """Search for the box's text (first page)."""
        if self.refresh_offline():
            return
        self._query = self.query.text().strip()
        self._page = 0
        self.results.clear()
        self.table.setRowCount(0)
        self._fetch_page()

    def _next_page(self) -> None:
        self._page += 1
        self._fetch_page()

    def _fetch_page(self) -> None:
        self._generation += 1
        generation = self._generation
        query, page, sort = self._query, self._page, str(self.sort.currentData())
        self.status.setText(
            self.tr("Searching the Hub for {query}...").format(query=repr(query))
            if query
            else self.tr("Searching the Hub...")
        )
        self.more.setEnabled(False)
        self.background.submit(
            lambda: model_library.search_hub(query, sort=sort, limit=PAGE_SIZE, page=page),
            lambda result: self._results_ready(generation, result),
            lambda exc: self._failed(generation, exc),
        )

    def _results_ready(self, generation: int, result: model_library.SearchPage) -> None:
        if generation != self._generation:
            return
        for repo in result.results:
            gated = "  ·  " + self.tr("gated: needs a token") if repo.gated else ""
            # The catalogue's sentence rendered like the engine's, so the counts get the locale's group marks.
            counts = say(
                QT_TRANSLATE_NOOP("DiscoverPanel", "{downloads:,} downloads  ·  {likes:,} likes").fill(
                    downloads=repo.downloads, likes=repo.likes
                )
            )
            item = QListWidgetItem(f"{repo.repo_id}  ·  {counts}{gated}")
            item.setData(Qt.ItemDataRole.UserRole, repo.repo_id)
            self.results.addItem(item)
        self.more.setVisible(result.has_more)
        self.more.setEnabled(True)
        shown = self.results.count()
        if not shown:
            self.status.setText(self.tr("No GGUF models found."))
        elif shown == 1:
            self.status.setText(self.tr("1 repository"))
        else:
            self.status.setText(self.tr("{n} repositories").format(n=shown))

    def _failed(self, generation: int, exc: Exception) -> None:
        if generation != self._generation:
            return
        self.more.setEnabled(True)
        self.status.setText(say_error(exc))

    # -- files -------------------------------------------------------------------------

    def _repo_chosen(self, item: QListWidgetItem | None) -> None:
        if item is None:
            return
        repo_id = str(item.data(Qt.ItemDataRole.UserRole))
        self._generation += 1
        generation = self._generation
        self.table.setRowCount(0)
        self.status.setText(self.tr("Listing the files of {repo}...").format(repo=repo_id))
        self.background.submit(
            lambda: _files_and_copies(repo_id),
            lambda found: self._files_ready(generation, repo_id, *found),
            lambda exc: self._failed(generation, exc),
        )

    def _files_ready(
        self, generation: int, repo_id: str, files: list[model_library.RepoGGUF], on_disk: dict[str, Path]
    ) -> None:
        if generation != self._generation:
            return
        self.files = list(files)
        self.drafts = None  # the table shows this repository now, not a draft search
        self.best_button.setVisible(False)
        self.on_disk = dict(on_disk)
        self.table.setRowCount(len(files))
        for row, model in enumerate(files):
            parts = "  " + self.tr("({n} parts)").format(n=len(model.parts)) if model.split else ""
            name = model.filename + parts
            self._set_name(row, name, name)
            # The quantisation is the file's own general.file_type, read from its header: a name can say anything.
            quant = QTableWidgetItem("…")
            quant.setToolTip(self.tr("reading the quantisation from the file's GGUF header"))
            self.table.setItem(row, 1, quant)
            size = QTableWidgetItem(say(bytes_words(model.size)))
            size.setToolTip(say(QT_TRANSLATE_NOOP("DiscoverPanel", "{n:,} bytes").fill(n=model.size)))
            self.table.setItem(row, 2, size)
            self.table.setCellWidget(row, 3, self._download_button(model.spec))
        self._read_quants(self.files)
        held = sum(1 for m in files if m.spec in self.on_disk)
        tail = "; " + self.tr("{n} already on disk").format(n=held) if held else ""
        count = self.tr("1 GGUF model") if len(files) == 1 else self.tr("{n} GGUF models").format(n=len(files))
        self.status.setText(f"{repo_id}: {count}{tail}")

    def _read_quants(self, listing: list[object]) -> None:
        """Fill the Quant column from each model's (first) file header, read with Range requests and cached."""
        for row, model in enumerate(listing):
            assert isinstance(model, model_library.RepoGGUF)
            # A split model's spec names its first shard: the one holding the metadata.
            self.background.submit(
                partial(_header_quant, model.spec),
                partial(self._quant_ready, listing, row, tip=self.tr("from the file's GGUF header")),
                partial(self._quant_failed, listing, row),
            )

    def _quant_failed(self, listing: list[object], row: int, exc: Exception) -> None:
        self._quant_ready(
            listing, row, "?", tip=self.tr("cannot read the header: {error}").format(error=say_error(exc))
        )

    def _quant_ready(self, listing: list[object], row: int, quant: str, *, tip: str) -> None:
        if listing is not self.files or row >= self.table.rowCount():
            return  # another listing is on screen now
        item = QTableWidgetItem(quant)
        item.setToolTip(tip)
        self.table.setItem(row, 1, item)

    def _row_spec(self, row: int) -> str | None:
        """The spec a row offers: a listed file, or a found draft."""
        if self.files and row < len(self.files):
            model = self.files[row]
            return model.spec if isinstance(model, model_library.RepoGGUF) else None
        if self.drafts is not None:
            good = [c for c in self.drafts.candidates if c.compatible]
            return str(good[row].spec) if row < len(good) else None
        return None

    def _set_name(self, row: int, name: str, tooltip: str) -> None:
        """The full name as the item's text and tooltip, painted elided in the middle (names differ at their end)."""
        item = QTableWidgetItem(name)
        item.setToolTip(tooltip)
        self.table.setItem(row, 0, item)
        label = ElidedLabel(name, mode=Qt.TextElideMode.ElideMiddle)
        label.setToolTip(tooltip)
        label.setAutoFillBackground(True)  # the item's own text must not show through
        self.table.setCellWidget(row, 0, label)

    def _download_button(self, spec: str) -> QPushButton:
        """Download, or a disabled "On disk" naming the library's copy."""
        held = self.on_disk.get(spec)
        if held is not None:
            button = QPushButton(self.tr("On disk"))
            button.setToolTip(say(on_disk_words(held.name)))
            button.setEnabled(False)
            button.setProperty("on_disk", True)
            return button
        button = QPushButton(self.tr("Download"))
        button.clicked.connect(lambda _checked=False, spec=spec: self.download(spec))
        button.setEnabled(not self.busy)
        return button

    # -- find a draft ------------------------------------------------------------------

    def find_drafts(self, target: Path | None = None) -> None:
        """Search the Hub for drafts of ``target`` (default: the Model tab's), checked from their remote headers."""
        if self.refresh_offline():
            return
        chosen = target or self._current_target()
        if chosen is None:
            self.status.setText(self.tr("Choose a target model in the Model tab first."))
            return
        self._generation += 1
        generation = self._generation
        self.table.setRowCount(0)
        self.on_disk = {}  # the draft list is checked against the library by the search itself
        self.best_button.setVisible(False)
        self.status.setText(
            self.tr("Looking for drafts of {name} on the Hub (reading only their headers)...").format(name=chosen.name)
        )
        self.background.submit(
            lambda: model_library.find_drafts(chosen),
            lambda found: self._drafts_ready(generation, found),
            lambda exc: self._failed(generation, exc),
        )

    def _drafts_ready(self, generation: int, found: model_library.DraftSearch) -> None:
        if generation != self._generation:
            return
        self.drafts = found
        good = [c for c in found.candidates if c.compatible]
        self.files = []
        self.table.setRowCount(len(good))
        for row, candidate in enumerate(good):
            self._set_name(row, str(candidate.spec), f"{candidate.spec}: {say(candidate.reason_words)}")
            speed = f", {number(candidate.prediction.speedup, '.2f')}x" if candidate.prediction else ""
            self.table.setItem(row, 1, QTableWidgetItem(f"{candidate.quant}{speed}"))
            self.table.setItem(row, 2, QTableWidgetItem(say(bytes_words(candidate.size))))
            self.table.setCellWidget(row, 3, self._download_button(str(candidate.spec)))
        self.best_button.setVisible(found.best is not None)
        others = len(found.candidates) - len(good)
        tail = "; " + self.tr("{n} incompatible").format(n=others) if others else ""
        if found.best is None:
            queries = self.tr(" or ").join(repr(q) for q in found.queries)
            self.status.setText(self.tr("No compatible draft found for {queries}").format(queries=queries) + tail + ".")
        else:
            self.status.setText(
                self.tr("Best: {spec}: {reason}").format(spec=found.best.spec, reason=say(found.best.reason_words))
                + tail
            )

    def _download_best(self) -> None:
        if self.drafts is not None and self.drafts.best is not None:
            self.download(str(self.drafts.best.spec))

    def download_buttons(self) -> list[QPushButton]:
        """The per-file Download buttons, in row order."""
        buttons = [self.table.cellWidget(row, 3) for row in range(self.table.rowCount())]
        return [b for b in buttons if isinstance(b, QPushButton)]

    # -- download ----------------------------------------------------------------------

    def download(self, spec: str) -> None:
        """Download ``owner/name/path.gguf`` (every part of a split model) into the models folder."""
        if self.busy or self.refresh_offline():
            return
        held = self.on_disk.get(spec)
        if held is not None:  # the library has this content already: a second copy would only take space
            self.status.setText(f"{spec}: {say(on_disk_words(held.name))}")
            return
        cancel = threading.Event()
        self._cancel = cancel
        for button in self.download_buttons():
            button.setEnabled(False)
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.cancel_button.setVisible(True)
        self.status.setText(self.tr("Starting {spec}...").format(spec=spec))
        self.background.submit(
            lambda: model_library.download_hub_file(spec, self._progress_arrived.emit, cancel),
            partial(self._download_done, spec),
            self._download_failed,
        )

    def cancel(self) -> None:
        """Stop the running download (its bytes are kept for a resume)."""
        if self._cancel is not None:
            self._cancel.set()

    def _show_progress(self, update: DownloadProgress) -> None:
        if update.bytes_total:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * update.bytes_done / update.bytes_total))
        which = (
            " " + self.tr("({index} of {count})").format(index=update.file_index, count=update.file_count)
            if update.file_count > 1
            else ""
        )
        speed = f", {say(rate_words(update.speed_bps))}" if update.speed_bps > 0 else ""
        eta = (
            ", "
            + self.tr("{minutes} min {seconds:02d} s left").format(
                minutes=int(update.eta_s // 60), seconds=int(update.eta_s % 60)
            )
            if update.eta_s
            else ""
        )
        total = (
            " " + self.tr("of {size}").format(size=say(bytes_words(update.bytes_total))) if update.bytes_total else ""
        )
        done = say(bytes_words(update.bytes_done))
        self.status.setText(f"{stage_text(update.stage)} {update.filename}{which}: {done}{total}{speed}{eta}")

    def _finish(self) -> None:
        self._cancel = None
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        for button in self.download_buttons():
            button.setEnabled(not button.property("on_disk"))

    def _download_done(self, spec: str, path: Path) -> None:
        self.on_disk[spec] = path  # its row says "On disk" from now on: a second click fetches nothing
        for row in range(self.table.rowCount()):
            if self._row_spec(row) == spec:
                self.table.setCellWidget(row, 3, self._download_button(spec))
        self._finish()
        self.status.setText(self.tr("Downloaded {name}: it is in the model list now.").format(name=path.name))
        self.downloaded.emit(path)

    def _download_failed(self, exc: Exception) -> None:
        self._finish()
        if isinstance(exc, DownloadCancelledError):
            self.status.setText(self.tr("{error}. Download it again to resume.").format(error=say_error(exc)))
        else:
            self.status.setText(say_error(exc))


def _files_and_copies(repo_id: str) -> tuple[list[model_library.RepoGGUF], dict[str, Path]]:
    """A repository's models and which of them the library already holds (runs in the background)."""
    files = model_library.list_repo_models(repo_id)
    return files, model_library.find_on_disk(files)


def _header_quant(spec: str) -> str:
    """The quantisation a Hub file's own header states (general.file_type), read in the background."""
    return model_library.inspect_remote(spec).inspection.quant
