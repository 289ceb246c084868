"""Choosing the pair: a target, a drafter (draft model, n-gram lookup, the target's MTP layers or none) and a
draft model; or a server.

The drafter buttons show the open chat's drafter, which the chat's settings
own (Settings ▸ Drafter edits the same setting): the window calls
:meth:`PairPicker.show_drafter` when the chat's drafter changes, and a click
on a button is sent out as ``drafter_picked`` for the window to store with
the chat. The drafter also decides whether Load loads the draft model.

"Local pair" and "Server" switch between the pair's form and
:class:`~app.ui.models.server_choice.ServerChoice` (a remote OpenAI-compatible server).
The draft list is never silently empty: compatible drafts come first, best
first, each with the reason it was ranked there; local models that cannot
draft for the target follow, greyed out, each with the rule it breaks. The
verdict for the chosen pair lists every failed rule with its evidence.
The MTP button is offered when the target's header says it carries MTP
layers this llama.cpp runs (it asks for no draft file); otherwise it is
greyed out and its tooltip says why.
"""

from __future__ import annotations

import html
import threading
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.pairing.compatibility import CompatibilityReport
from app.core.pairing.own_drafter import OwnDrafter
from app.engine.llama.session import DrafterKind
from app.ui.i18n.words import number, say, say_error
from app.ui.layout_fit import ElidedComboBox
from app.ui.models import library
from app.ui.models.own_drafter_row import OwnDrafterRow
from app.ui.models.projector_row import ProjectorRow
from app.ui.models.server_choice import ServerChoice
from app.ui.settings.folders import FolderKind, LastFolders
from app.ui.settings.store import PairChoice
from app.ui.threads.background import Background

_PATH_ROLE = int(Qt.ItemDataRole.UserRole) + 1


class PairPicker(QWidget):
    """Target, drafter kind and draft, with the compatibility verdict and a Load button."""

    load_requested = Signal(object)  # PairChoice
    choice_changed = Signal(object)  # PairChoice or None
    drafter_picked = Signal(object)  # DrafterKind: the user clicked a drafter button (the chat's setting to change)

    def __init__(
        self, background: Background, folders: LastFolders | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._background = background
        self._folders = folders or LastFolders()  # where "…" opens to add a GGUF file
        self._models: list[library.LocalModel] = []
        self._options: list[library.DraftOption] = []
        self._pending_draft: Path | None = None
        self._busy = False
        self._download_cancel: threading.Event | None = None
        self._report: CompatibilityReport | None = None
        self._target_error: str | None = None  # why the current target cannot be read; no drafter makes it loadable
        # What the target's header says it carries as its own drafter (None: nothing, or not read yet).
        self._own: OwnDrafter | None = None
        self.fallback_reason = ""  # why no draft was selected by default (n-gram lookup instead); "" when one was
        self._chat_drafter: DrafterKind | None = None  # the open chat's drafter, shown in place of a choice's own
        self._generation = 0  # discards answers to questions that are no longer current

        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 8, 8, 8)
        sources = QHBoxLayout()
        self.local_button = QRadioButton(self.tr("Local pair"))
        self.local_button.setToolTip(self.tr("models on this computer, run by Tandem's own engine"))
        self.server_button = QRadioButton(self.tr("Server"))
        self.server_button.setToolTip(self.tr("a llama-server, vLLM, Tandem or other OpenAI-compatible server"))
        self.local_button.setChecked(True)
        self._source_group = QButtonGroup(self)
        for button in (self.local_button, self.server_button):
            self._source_group.addButton(button)
            sources.addWidget(button)
        sources.addStretch(1)
        outer.addLayout(sources)
        self.pages = QStackedWidget()
        outer.addWidget(self.pages)
        self.local_page = QWidget()
        self.server = ServerChoice(background)
        self.pages.addWidget(self.local_page)
        self.pages.addWidget(self.server)
        self.server_button.toggled.connect(
            lambda on: self.pages.setCurrentWidget(self.server if on else self.local_page)
        )

        layout = QVBoxLayout(self.local_page)
        layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.target = ElidedComboBox()  # file names differ at their end: elided in the middle
        form.addRow(self.tr("Target"), self._file_row(self.target, for_draft=False))

        kinds = QGridLayout()  # two by two: one row of four would set the side panel's minimum width
        kinds.setContentsMargins(0, 0, 0, 0)
        self.kind_group = QButtonGroup(self)
        self.kind_buttons: dict[DrafterKind, QRadioButton] = {}
        for kind, text, tip in (
            (
                DrafterKind.HYBRID,
                self.tr("Hybrid"),
                self.tr("prompt lookup where the reply copies earlier text, the draft model everywhere else"),
            ),
            (
                DrafterKind.MODEL,
                self.tr("Draft model"),
                self.tr("a small model with the same vocabulary proposes tokens"),
            ),
            (
                DrafterKind.NGRAM,
                self.tr("N-gram"),
                self.tr("proposes continuations found earlier in the conversation; no second model"),
            ),
            (DrafterKind.NONE, self.tr("None"), self.tr("target only: the baseline")),
            (
                DrafterKind.MTP,
                self.tr("MTP layers"),
                self.tr("the model's own MTP layers propose tokens; no second file"),
            ),
        ):
            button = QRadioButton(text)
            button.setToolTip(tip + "; " + self.tr("this chat's drafter, as in Settings ▸ Drafter"))
            self.kind_group.addButton(button)
            kinds.addWidget(button, len(self.kind_buttons) // 2, len(self.kind_buttons) % 2)
            self.kind_buttons[kind] = button
        kinds.setColumnStretch(2, 1)
        self.kind_buttons[DrafterKind.HYBRID].setChecked(True)
        self._show_own_layers()
        form.addRow(self.tr("Drafter"), kinds)

        self.draft = ElidedComboBox()
        form.addRow(self.tr("Draft"), self._file_row(self.draft, for_draft=True))
        self.projector_row = ProjectorRow(background, self._folders)
        form.addRow(self.tr("Images"), self.projector_row)
        layout.addLayout(form)

        self.verdict = QLabel("")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.verdict)
        self.own_drafter = OwnDrafterRow(background)  # the target's own MTP layers, run through llama-server
        layout.addWidget(self.own_drafter)

        buttons = QHBoxLayout()
        self.load_button = QPushButton(self.tr("Load pair"))
        self.load_button.setDefault(True)
        self.load_button.clicked.connect(self._request_load)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        buttons.addWidget(self.load_button)
        buttons.addWidget(self.status, 1)
        layout.addLayout(buttons)

        self.target.currentIndexChanged.connect(self._target_changed)
        self.draft.currentIndexChanged.connect(self._draft_changed)
        self.kind_group.buttonToggled.connect(self._kind_toggled)
        self.kind_group.buttonClicked.connect(self._kind_clicked)

    # -- public API ---------------------------------------------------------------------

    def refresh(self, select: PairChoice | None = None) -> None:
        """Rescan the local models (in the background) and select ``select``, else keep the current pair.

        A download or a library change triggers a rescan; only the user changes
        the chosen pair, so without ``select`` the pair on screen is kept.
        """
        if select is None:
            select = self.choice()
        self._generation += 1
        generation = self._generation
        self.status.setText(self.tr("scanning models…"))
        self._background.submit(
            library.local_models,
            lambda models: self._models_ready(generation, models, select),
            lambda exc: self.status.setText(self.tr("could not list models: {error}").format(error=say_error(exc))),
        )

    def choice(self) -> PairChoice | None:
        """The pair as currently chosen, or None without a target."""
        target = self.target.currentData(_PATH_ROLE)
        if target is None:
            return None
        kind = self.drafter_kind()
        option = self._current_option()
        draft = option.path if kind.uses_draft_model and option is not None else None
        return PairChoice(Path(target), draft, kind, self.projector_row.projector())

    def ready_choice(self) -> PairChoice | None:
        """The picked pair when Load would load it now (not download a draft first, not while busy), else None."""
        option = self._current_option()
        if not self._loadable() or (
            self.drafter_kind().uses_draft_model and option is not None and option.path is None
        ):
            return None
        return self.choice()

    def show_drafter(self, kind: DrafterKind) -> None:
        """Show ``kind``, the open chat's drafter (from now on also in place of a refreshed choice's own).

        A drafter that needs a draft model shows as n-gram lookup while no draft is known to fit
        the target, as the reply will run (Settings keeps the chat's choice for a pair with one).
        """
        self._chat_drafter = kind
        if (kind.uses_draft_model and not self._local_draft_fits()) or (
            kind.uses_own_layers and not self._own_layers_run()
        ):
            # No draft here is known to fit this target, or it has no MTP layers to run (or its header is still
            # being read: its arrival shows the chat's drafter again when it can run): n-gram lookup is what a
            # load would run, and Enter may load it.
            kind = DrafterKind.NGRAM
        self.kind_buttons[kind].setChecked(True)  # a change of state, not a click: drafter_picked stays quiet

    def drafter_kind(self) -> DrafterKind:
        """The selected drafter kind."""
        for kind, button in self.kind_buttons.items():
            if button.isChecked():
                return kind
        return DrafterKind.HYBRID

    @property
    def report(self) -> CompatibilityReport | None:
        """The verdict for the current target and draft (None until checked)."""
        return self._report

    @property
    def options(self) -> list[library.DraftOption]:
        """The draft list as shown: compatible first, best first."""
        return list(self._options)

    def set_loaded(self, text: str) -> None:
        """Say what is loaded."""
        self.status.setText(text)

    def set_busy(self, busy: bool) -> None:
        """Disable Load (and the server's switch-over) while a load or reply runs."""
        self._busy = busy
        self.load_button.setEnabled(self._loadable())
        self.server.set_busy(busy)

    def show_server(self, on: bool) -> None:
        """Show the Server page (True) or the local pair's form."""
        (self.server_button if on else self.local_button).setChecked(True)

    def add_model(self, path: Path, as_draft: bool = False) -> None:
        """Register a file the user chose, then rescan and select it."""
        current = self.choice()

        def added(registered: Path) -> None:
            if as_draft and current is not None:
                self.refresh(PairChoice(current.target, registered, DrafterKind.HYBRID))
            else:
                kind = DrafterKind.HYBRID if current and current.draft else DrafterKind.NGRAM
                self.refresh(PairChoice(registered, current.draft if current else None, kind))

        self.status.setText(self.tr("reading {name}…").format(name=path.name))
        self._background.submit(
            lambda: library.add_local_model(path),
            added,
            lambda exc: self.status.setText(
                self.tr("cannot use {name}: {error}").format(name=path.name, error=say_error(exc))
            ),
        )

    # -- internals --------------------------------------------------------------------------

    def _current_option(self) -> library.DraftOption | None:
        index = self.draft.currentIndex()
        return self._options[index] if 0 <= index < len(self._options) else None

    def _models_ready(self, generation: int, models: list[library.LocalModel], select: PairChoice | None) -> None:
        if generation != self._generation:
            return
        self._models = models
        self.status.setText("" if models else self.tr("no models yet: use the … button or Tools › Get models"))
        current = select.target if select else self.target.currentData(_PATH_ROLE)
        self.target.blockSignals(True)
        self.target.clear()
        for model in models:
            self.target.addItem(model.label)
            row = self.target.count() - 1
            self.target.setItemData(row, str(model.path), _PATH_ROLE)
            self.target.setItemData(row, model.error or str(model.path), Qt.ItemDataRole.ToolTipRole)
        index = self.target.findData(str(current), _PATH_ROLE) if current else -1
        self.target.setCurrentIndex(max(0, index) if models else -1)
        self.target.blockSignals(False)
        if select is not None:
            # The chat's drafter wins over the one the choice was stored with (the chat's settings own it), unless
            # it needs a draft model and the choice has none: a lone target is loaded with n-gram lookup.
            chat = self._chat_drafter
            usable = chat is not None and (select.draft is not None or not chat.uses_draft_model)
            self.kind_buttons[chat if chat is not None and usable else select.drafter].setChecked(True)
            self._pending_draft = select.draft
            self.projector_row.remember(select.target, select.projector)
        self._target_changed()

    def _target_changed(self) -> None:
        target = self.target.currentData(_PATH_ROLE)
        self._report = None
        self._options = []
        self._target_error = None
        self.fallback_reason = ""
        self.draft.clear()
        self._own = None
        self._show_own_layers()
        self.own_drafter.show_target(None, None, ())
        self.projector_row.show_target(Path(target) if target is not None else None)
        if target is None:
            self._show_verdict()
            return
        self._generation += 1
        generation = self._generation
        self.verdict.setText(self.tr("checking which drafts fit this target…"))
        self._background.submit(
            lambda: library.draft_options(Path(target)),
            lambda options: self._drafts_ready(generation, options),
            lambda exc: self._drafts_failed(generation, exc),
        )

    def _drafts_failed(self, generation: int, exc: Exception) -> None:
        if generation == self._generation:
            self._target_error = say_error(exc)
            self._show_verdict()

    def _drafts_ready(self, generation: int, found: library.DraftOptions) -> None:
        if generation != self._generation:
            return
        options = found.options
        self._options = options
        self._own = found.own
        self._show_own_layers()
        self.own_drafter.show_target(Path(str(self.target.currentData(_PATH_ROLE))), found.own, found.heads)
        self.draft.blockSignals(True)
        self.draft.clear()
        model = self.draft.model()
        for row, option in enumerate(options):
            self.draft.addItem(option.label if option.compatible else f"✗ {option.label}")
            # The closed box elides long labels: the tooltip names the file too.
            tip = f"{option.path.name}: {option.reason}" if option.path is not None else option.reason
            self.draft.setItemData(row, tip, Qt.ItemDataRole.ToolTipRole)
            if not option.compatible and isinstance(model, QStandardItemModel):
                item = model.item(row)
                if item is not None:
                    item.setEnabled(False)
        wanted = self._pending_draft
        self._pending_draft = None
        compatible = [i for i, o in enumerate(options) if o.compatible]
        index = next((i for i, o in enumerate(options) if wanted and o.path == wanted and o.compatible), -1)
        if wanted is not None and index < 0:
            # The draft the user picked cannot draft for this target: say why rather than pick another silently.
            refused = next((o for o in options if o.path == wanted), None)
            reason = refused.reason if refused is not None else self.tr("it is not among this target's possible drafts")
            target_name = Path(str(self.target.currentData(_PATH_ROLE))).name
            self.status.setText(
                "✗ "
                + self.tr("{draft} cannot draft for {target}: {reason}").format(
                    draft=wanted.name, target=target_name, reason=reason
                )
            )
        fallback = False
        if index < 0 and wanted is None:
            # No choice of the user's to keep: the default is a draft smaller than the target, or none.
            if found.default.index is not None:
                index = found.default.index
            else:
                fallback = True
                why = found.default.reason_words
                self.fallback_reason = say(why) if why is not None else ""
        if index < 0:
            index = compatible[0] if compatible else (0 if options else -1)
        self.draft.setCurrentIndex(index)
        self.draft.blockSignals(False)
        chat = self._chat_drafter
        if (fallback or not compatible) and self.drafter_kind().uses_draft_model:
            # Nothing smaller can draft for this target (or nothing at all): n-gram lookup still can.
            self.kind_buttons[DrafterKind.NGRAM].setChecked(True)
        elif self.drafter_kind().uses_own_layers and not self._own_layers_run():
            self.kind_buttons[DrafterKind.NGRAM].setChecked(True)  # this target has no MTP layers to run
        elif chat is not None and chat.uses_own_layers and self._own_layers_run():
            self.kind_buttons[chat].setChecked(True)  # a target with MTP layers again after one without
        elif chat is not None and chat.uses_draft_model and self._local_draft_fits() and self.drafter_kind() != chat:
            # A target with a draft again after one without: the chat's own drafter, not the stand-in, shows.
            self.kind_buttons[chat].setChecked(True)
        self._draft_changed()

    def _draft_changed(self) -> None:
        target = self.target.currentData(_PATH_ROLE)
        option = self._current_option()
        self._report = None
        if target is None or option is None or not self.drafter_kind().uses_draft_model:
            self._show_verdict()
            self.choice_changed.emit(self.choice())
            return
        if option.path is None:  # a catalog draft: the catalog's tokenizer facts gave the verdict
            self._show_verdict()
            return
        self._generation += 1
        generation = self._generation
        draft = option.path
        self.verdict.setText(self.tr("checking the pair…"))
        self._background.submit(
            lambda: library.check_pair(Path(target), draft),
            lambda report: self._report_ready(generation, report),
            lambda exc: self.verdict.setText(
                self.tr("<b>Cannot read the draft:</b> {error}").format(error=html.escape(say_error(exc)))
            ),
        )

    def _report_ready(self, generation: int, report: CompatibilityReport) -> None:
        if generation != self._generation:
            return
        self._report = report
        self._show_verdict()
        self.choice_changed.emit(self.choice())

    def _kind_toggled(self, button: QRadioButton, checked: bool) -> None:
        if checked:
            self.draft.setEnabled(self.drafter_kind().uses_draft_model)
            self._draft_changed()

    def _own_layers_run(self) -> bool:
        """The target's header says it carries MTP layers that this llama.cpp drafts with."""
        own = self._own
        return own is not None and own.runs_in_process

    def _own_layers_words(self) -> str:
        """What the target's header says about MTP layers, in one line."""
        own = self._own
        if own is None or own.kind.needs_head_file:
            return self.tr("this model carries no MTP layers: choose a draft model, n-gram lookup or none")
        return say(own.explanation())

    def _show_own_layers(self) -> None:
        """The MTP button: offered when the target's own layers can draft, else greyed out with the reason."""
        button = self.kind_buttons[DrafterKind.MTP]
        runs = self._own_layers_run()
        button.setEnabled(runs)
        why = self.tr("the model's own MTP layers propose tokens; no second file") if runs else self._own_layers_words()
        button.setToolTip(why + "; " + self.tr("this chat's drafter, as in Settings ▸ Drafter"))

    def _local_draft_fits(self) -> bool:
        """A draft on this computer fits the current target (a catalog draft would need a download first)."""
        return any(o.compatible and o.path is not None for o in self._options)

    def _kind_clicked(self, button: QAbstractButton) -> None:
        kind = next(k for k, b in self.kind_buttons.items() if b is button)
        self._chat_drafter = kind
        self.drafter_picked.emit(kind)

    def _show_verdict(self) -> None:
        kind = self.drafter_kind()
        option = self._current_option()
        self.load_button.setText(self.tr("Load pair"))
        if self.target.currentData(_PATH_ROLE) is None:
            self.verdict.setText(self.tr("Pick a target model."))
        elif self._target_error is not None:
            self.verdict.setText(
                self.tr("<b>Cannot read the target:</b> {error}").format(error=html.escape(self._target_error))
            )
        elif kind is DrafterKind.NGRAM:
            why = f"<br>{html.escape(self.fallback_reason)}" if self.fallback_reason else ""
            self.verdict.setText(
                self.tr("N-gram lookup: drafts from text already in the conversation; fits any target.") + why
            )
        elif kind is DrafterKind.NONE:
            self.verdict.setText(self.tr("Target only: no drafting (the baseline speed)."))
        elif kind.uses_own_layers:
            words = html.escape(self._own_layers_words())
            if self._own_layers_run():
                self.verdict.setText(self.tr("<b>✓ The model's own MTP layers</b>: {why}").format(why=words))
            else:
                self.verdict.setText(self.tr("<b>✗ No MTP layers to draft with</b>: {why}").format(why=words))
        elif option is None or not any(o.compatible for o in self._options):
            reasons = "".join(
                f"<li>{html.escape(o.path.name if o.path else o.label)}: {html.escape(o.reason)}</li>"
                for o in self._options[:4]
            )
            text = self.tr("<b>No compatible draft</b> among your models: use n-gram lookup, or add a model")
            self.verdict.setText(
                text
                + (
                    " "
                    + self.tr("(why the others do not fit:{list})").format(list=f"<ul style='margin:0'>{reasons}</ul>")
                    if reasons
                    else "."
                )
            )
        elif option.path is None:
            self.verdict.setText(
                self.tr("<b>✓ Compatible</b>, not downloaded yet: {reason}").format(reason=html.escape(option.reason))
            )
            self.load_button.setText(self.tr("Download draft"))
        elif self._report is None:
            self.verdict.setText(self.tr("checking the pair…"))
        elif self._report.compatible:
            warnings = "".join(f"<br>⚠ {html.escape(say(w))}" for w in self._report.warning_words)
            # The reason opens with "compatible" (the verdict already says so): the rest is why it ranks there.
            head = QCoreApplication.translate("PairingReasons", "compatible")
            reason = option.reason.removeprefix(f"{head}; ").removeprefix(head)
            self.verdict.setText(self.tr("<b>✓ Compatible</b>: {reason}").format(reason=html.escape(reason)) + warnings)
        else:
            items = "".join(
                f"<li><b>{html.escape(say(p.rule_words))}</b>: {html.escape(say(p.detail_words))}</li>"
                for p in self._report.problems
            )
            self.verdict.setText(self.tr("<b>✗ Not compatible</b>") + f"<ul style='margin:0'>{items}</ul>")
        self.load_button.setEnabled(self._loadable())

    def _loadable(self) -> bool:
        if self._busy or self._download_cancel is not None or self.target.currentData(_PATH_ROLE) is None:
            return False
        if self._target_error is not None:
            return False
        if self.drafter_kind().uses_own_layers:
            return self._own_layers_run()
        if self.drafter_kind().uses_draft_model:
            option = self._current_option()
            if option is not None and option.path is None:
                return option.compatible
            return self._report is not None and self._report.compatible
        return True

    def _request_load(self) -> None:
        option = self._current_option()
        if self.drafter_kind().uses_draft_model and option is not None and option.path is None:
            self._download(option)
            return
        choice = self.choice()
        if choice is not None:
            self.load_requested.emit(choice)

    def _download(self, option: library.DraftOption) -> None:
        catalog_model = option.catalog_model
        if catalog_model is None:
            return
        target = Path(self.target.currentData(_PATH_ROLE))
        cancel = threading.Event()
        self._download_cancel = cancel
        self.load_button.setEnabled(False)

        def progress(stage: str, done: int, total: int) -> None:
            share = f" {number(100 * done / total, '.0f')}%" if total else ""
            self._background.post(self.status.setText, f"{stage}{share}")

        def finished(path: Path) -> None:
            self._download_cancel = None
            self.status.setText(self.tr("downloaded {name}").format(name=path.name))
            self.refresh(PairChoice(target, path, DrafterKind.HYBRID))

        def failed(exc: Exception) -> None:
            self._download_cancel = None
            self.status.setText(self.tr("download failed: {error}").format(error=say_error(exc)))
            self._show_verdict()

        self._background.submit(lambda: library.download_draft(catalog_model, progress, cancel), finished, failed)

    def _file_row(self, combo: QComboBox, for_draft: bool) -> QHBoxLayout:
        """A model list with its "…" button that adds a GGUF file to it."""
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(10)  # the open list shows names in full; each item's tooltip too
        browse = QToolButton()
        browse.setText("…")
        browse.setToolTip(self.tr("add a GGUF file"))
        browse.clicked.connect(lambda: self._browse(for_draft=for_draft))
        row = QHBoxLayout()
        row.addWidget(combo, 1)
        row.addWidget(browse)
        return row

    def _browse(self, for_draft: bool) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Choose a GGUF model"),
            self._folders.start(FolderKind.MODELS),
            self.tr("GGUF models (*.gguf)"),
        )
        if path:
            self._folders.remember(FolderKind.MODELS, path)
            self.add_model(Path(path), as_draft=for_draft)
