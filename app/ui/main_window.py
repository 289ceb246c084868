"""The main window: conversations on the left, the chat in the middle, model, stats and settings on the right.

The window builds the widgets, restores settings and wires signals; the
chat flow itself lives in :class:`~app.ui.chat.controller.ChatController`,
the models on the engine thread behind :class:`~app.ui.worker.EngineHost`.

The window always opens, whatever state the chat database is in: a file it
cannot use is replaced by a store in memory and a notice at the top offers
the ways out (recover, start fresh, read-only); a second instance opens the
history read-only and brings the first one forward. Closing always stops the
engine thread, even when the store fails underneath.

The settings panel edits the open chat's own settings (a new chat starts from
the default preset, else from what the last new chat was given); the sidebar's
search jumps to a message on its branch; a deleted chat can be brought back
from the undo bar.
"""

from __future__ import annotations

import contextlib
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.chat_settings import ChatSettings
from app.core.decoding.events import FinishedEvent, FinishReason
from app.core.errors import TandemError
from app.engine.llama.model import gpu_offload_supported
from app.engine.llama.session import DrafterKind
from app.engine.models.library import installed_default_pair
from app.engine.remote.client import RemoteEngine
from app.engine.remote.limits import RemoteLimits
from app.engine.safe_files import write_text_safely
from app.engine.store.conversations import ChatStore, default_path
from app.engine.store.database import Problem, StoreOpenError, StoreWriteError
from app.engine.store.recovery import move_aside, recover_in_place
from app.ui import branding, theme
from app.ui.background import Background
from app.ui.chat.controller import Activity, ChatController, info_label, pair_label
from app.ui.chat.conversation_list import ConversationList
from app.ui.chat.panel import ChatPanel
from app.ui.chat.store_notice import StoreNotice
from app.ui.models.discover_panel import DiscoverPanel
from app.ui.models.memory_meter import MemoryMeter, MeterState
from app.ui.models.memory_sources import estimate_state, measured_state
from app.ui.models.pair_picker import PairPicker
from app.ui.models.welcome_panel import WelcomePanel
from app.ui.server_switch import ServerSwitch
from app.ui.settings.panel import SettingsPanel
from app.ui.settings.store import AppSettings, GenerationSettings, PairChoice, RemoteChoice
from app.ui.single_instance import InstanceBeacon
from app.ui.stats_panel import StatsPanel
from app.ui.tools.ab_dialog import ABDialog
from app.ui.tools.preflight_dialog import PreflightDialog
from app.ui.tools.sweep_dialog import SweepDialog
from app.ui.worker import LOCAL_ONLY, ComparisonJob, EngineHost, PairInfo, RemoteInfo

if TYPE_CHECKING:
    from app.engine.store.conversations import SearchHit

SWEEP_TEMPERATURES = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5)


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    return area


class MainWindow(QMainWindow):
    """Tandem's window."""

    def __init__(
        self, settings: AppSettings | None = None, store: ChatStore | None = None, autoload: bool = True
    ) -> None:
        super().__init__()
        self.setWindowTitle(branding.window_title())
        self.app_settings = settings or AppSettings()
        self.notice = StoreNotice()
        self.beacon = InstanceBeacon((store.path if store is not None else default_path()).parent, self)
        self.beacon.raise_requested.connect(self._raised_by_another)
        self.raise_requests = 0
        self.store = store if store is not None else self._open_store()
        self.background = Background(self)
        self.host = EngineHost(self)
        self._server_engine: RemoteEngine | None = None  # the server chosen last (Settings' time-outs reach it)
        self._loading: PairChoice | None = None  # the pair being loaded, saved as the default once it has loaded
        self._estimate: MeterState | None = None
        self._estimate_generation = 0
        self._dialog: ABDialog | SweepDialog | None = None
        self._closed = False

        self.conversations = ConversationList()
        self.chat = ChatPanel()
        self.welcome = WelcomePanel(self.background)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.welcome)
        self.stack.addWidget(self.chat)

        self.picker = PairPicker(self.background)
        self.memory = MemoryMeter()
        model_tab = QWidget()
        model_layout = QVBoxLayout(model_tab)
        model_layout.setContentsMargins(0, 0, 0, 0)
        model_layout.addWidget(self.picker)
        memory_title = QLabel("<b>Memory</b>")
        memory_title.setContentsMargins(8, 8, 8, 0)
        model_layout.addWidget(memory_title)
        model_layout.addWidget(self.memory)
        server_title = QLabel("<b>Local server</b>")
        server_title.setContentsMargins(8, 8, 8, 0)
        model_layout.addWidget(server_title)
        self.server_switch = ServerSwitch(self.host)
        model_layout.addWidget(self.server_switch)
        model_layout.addStretch(1)
        self.stats = StatsPanel()
        self.settings_panel = SettingsPanel(gpu_offload_supported(), lambda: self.store)
        self.side = QTabWidget()
        self.side.addTab(_scrolled(model_tab), "Model")
        self.side.addTab(_scrolled(self.stats), "Stats")
        self.side.addTab(_scrolled(self.settings_panel), "Settings")
        self.discover = DiscoverPanel(self.background, lambda: c.target if (c := self.picker.choice()) else None)
        self.side.addTab(self.discover, "Discover")
        self.discover.downloaded.connect(lambda _path: self.picker.refresh())

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.conversations)
        self.splitter.addWidget(self.stack)
        self.splitter.addWidget(self.side)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 0)
        self.splitter.setSizes([220, 760, 360])
        self.splitter.setChildrenCollapsible(False)
        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(0, 0, 0, 0)
        central_layout.setSpacing(0)
        central_layout.addWidget(self.notice)
        central_layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.splitter.setContentsMargins(6, 6, 6, 0)

        self.controller = ChatController(self.store, self.host, self.chat, self.stats, self.new_chat_settings)
        self.conversations.search.set_store(lambda: self.store)
        self.pair_status = QLabel("no pair loaded")
        self.statusBar().addPermanentWidget(self.pair_status)
        self._build_actions()
        self._restore()
        self._wire()
        self.refresh_conversations()
        self._initial_pair(autoload)
        self._activity_changed(self.controller.activity)

    # -- construction --------------------------------------------------------------------

    def _build_actions(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        self.new_action = file_menu.addAction("New chat", self.controller.new_conversation)
        self.new_action.setShortcut(QKeySequence.StandardKey.New)
        file_menu.addAction("Export chat as Markdown…", lambda: self.export_current("markdown"))
        file_menu.addAction("Export chat as JSON…", lambda: self.export_current("json"))
        file_menu.addSeparator()
        self.find_action = file_menu.addAction("Search all chats…", self.conversations.search.focus)
        self.find_action.setShortcuts([QKeySequence("Ctrl+K"), QKeySequence(QKeySequence.StandardKey.Find)])
        file_menu.addSeparator()
        quit_action = file_menu.addAction("Quit", self.close)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)

        view_menu = menu.addMenu("&View")
        self.coloured_action = QAction("Colour tokens by origin", self, checkable=True)
        self.coloured_action.toggled.connect(self.chat.legend.coloured.setChecked)
        self.chat.legend.coloured.toggled.connect(self.coloured_action.setChecked)
        self.ghost_action = QAction("Show rejected drafts", self, checkable=True)
        self.ghost_action.toggled.connect(self.chat.legend.ghosts.setChecked)
        self.chat.legend.ghosts.toggled.connect(self.ghost_action.setChecked)
        view_menu.addAction(self.coloured_action)
        view_menu.addAction(self.ghost_action)
        theme_menu = view_menu.addMenu("Theme (applies on restart)")
        for name in theme.THEMES:

            def choose_theme(n: str = name) -> None:
                self.app_settings.set_text("view/theme", n)

            action = theme_menu.addAction(name.capitalize(), choose_theme)
            action.setCheckable(True)
            action.setChecked(self.app_settings.text("view/theme", "system") == name)

        tools = menu.addMenu("&Tools")
        self.ab_action = tools.addAction("A/B: rerun the last prompt target-only and with the drafter", self.run_ab)
        self.ab_action.setShortcut(QKeySequence("Ctrl+B"))
        self.sweep_action = tools.addAction("Temperature sweep…", lambda: self.run_sweep())
        self.preflight_action = tools.addAction("Pre-flight: will speculation pay here?", self.run_preflight)
        tools.addSeparator()
        tools.addAction("Get models…", lambda: self.stack.setCurrentWidget(self.welcome))
        help_menu = menu.addMenu("&Help")
        help_menu.addAction("About Tandem", lambda: branding.show_about(self))

        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main-toolbar")
        toolbar.setMovable(False)
        toolbar.addAction(self.new_action)
        self.stop_action = toolbar.addAction("Stop", self.controller.stop)
        self.stop_action.setToolTip("stop the reply (Esc)")
        toolbar.addSeparator()
        toolbar.addAction(self.ab_action)
        self.ab_action.setIconText("A/B")
        toolbar.addAction(self.sweep_action)
        self.sweep_action.setIconText("Sweep")
        toolbar.addAction(self.preflight_action)
        self.preflight_action.setIconText("Pre-flight")

    def _restore(self) -> None:
        generation = self.app_settings.generation()
        self.settings_panel.set_settings(generation)
        self.settings_panel.remote.set_limits(self.app_settings.remote_limits())
        self.settings_panel.set_chat_settings(self.controller.chat_settings())
        self.settings_panel.show_chat(new=True)
        coloured = self.app_settings.flag("coloured", True)
        ghosts = self.app_settings.flag("ghosts", False)
        self.chat.legend.coloured.setChecked(coloured)
        self.chat.legend.ghosts.setChecked(ghosts)
        self.coloured_action.setChecked(coloured)
        self.ghost_action.setChecked(ghosts)
        self.chat.view.set_coloured(coloured)
        self.chat.view.set_show_ghosts(ghosts)
        self.chat.legend.underlines.setChecked(self.app_settings.flag("underlines", False))
        geometry = self.app_settings.geometry("geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1360, 860)
        splitter = self.app_settings.geometry("splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)

    def _wire(self) -> None:
        c = self.controller
        c.status.connect(self.statusBar().showMessage)
        c.activity_changed.connect(self._activity_changed)
        c.pair_loaded.connect(self._pair_loaded)
        c.conversations_changed.connect(self.refresh_conversations)
        c.reply_finished.connect(self._reply_finished)
        c.store_failed.connect(self._store_write_failed)
        c.store_recovered.connect(self.notice.hide)
        self.conversations.opened.connect(self._open_conversation)
        self.conversations.new_requested.connect(c.new_conversation)
        self.conversations.rename_requested.connect(self._rename)
        self.conversations.delete_requested.connect(self._delete)
        self.conversations.pin_requested.connect(self._pin)
        self.conversations.search.hit_chosen.connect(self.jump_to)
        c.chat_settings_changed.connect(self._chat_settings_shown)
        self.settings_panel.chat_changed.connect(self._chat_settings_edited)
        if self.settings_panel.presets is not None:
            self.settings_panel.presets.failed.connect(self.chat.banner.show_message)
        self.conversations.export_requested.connect(self.export)
        self.picker.load_requested.connect(self.load_pair)
        self.picker.server.use_requested.connect(self.use_server)
        self.picker.choice_changed.connect(self._estimate_memory)
        self.settings_panel.changed.connect(self._settings_changed)
        self.settings_panel.remote.changed.connect(self._remote_limits_changed)
        self.chat.legend.coloured.toggled.connect(lambda on: self.app_settings.set_flag("coloured", on))
        self.chat.legend.ghosts.toggled.connect(lambda on: self.app_settings.set_flag("ghosts", on))
        self.chat.legend.underlines.toggled.connect(lambda on: self.app_settings.set_flag("underlines", on))
        self.welcome.pair_ready.connect(self._welcome_pair)
        self.welcome.model_added.connect(self._welcome_model)
        # A slot of the window, so it runs on the GUI thread (a lambda would run on the engine thread).
        self.host.worker.comparison_finished.connect(self._comparison_finished)

    def _initial_pair(self, autoload: bool) -> None:
        self.picker.server.restore(self.app_settings.remote())  # filled in; connecting stays a click
        choice = self.app_settings.pair()
        if choice is not None and not (choice.target.is_file() and (choice.draft is None or choice.draft.is_file())):
            choice = None
        if choice is None:
            default = installed_default_pair()
            if default is not None:
                choice = PairChoice(default[0], default[1], DrafterKind.HYBRID)
        self.picker.refresh(choice)
        if choice is None:
            self.stack.setCurrentWidget(self.welcome)
            self.statusBar().showMessage("no models yet: install or add a pair to start")
            return
        self.stack.setCurrentWidget(self.chat)
        if autoload:
            self.load_pair(choice)

    # -- actions -------------------------------------------------------------------------

    def load_pair(self, choice: PairChoice) -> None:
        """Load ``choice`` with the current loading settings; it becomes the default once it has loaded."""
        self.stack.setCurrentWidget(self.chat)
        config = choice.config(self.settings_panel.settings())
        self.server_switch.set_pair(None, "loading a pair…")
        self.pair_status.setText(f"loading {pair_label(config)}…")
        self.picker.set_loaded(f"loading {pair_label(config)}…")
        self._loading = choice
        self.controller.load(config)
        self._estimate_memory(choice)

    def use_server(self, engine: RemoteEngine, info: RemoteInfo) -> None:
        """Answer from a remote server instead of a local pair (the local pair is freed)."""
        self.stack.setCurrentWidget(self.chat)
        self.server_switch.set_pair(None, "a server is chosen: the local server serves a local pair")
        self.app_settings.set_remote(RemoteChoice(info.base_url, info.model))
        self.pair_status.setText(f"switching to {info.label}…")
        engine.limits = self.app_settings.remote_limits()
        self._server_engine = engine  # Settings' remote time-outs apply to it from its next reply
        self.host.use_remote(engine, info)

    def _remote_limits_changed(self, limits: RemoteLimits) -> None:
        self.app_settings.set_remote_limits(limits)
        if self._server_engine is not None:
            self._server_engine.limits = limits

    def refresh_conversations(self) -> None:
        """Reload the sidebar."""
        self.conversations.set_conversations(self.store.list_conversations(), self.controller.conversation_id)

    def export_current(self, kind: str) -> None:
        """Export the open conversation."""
        if self.controller.conversation_id is None:
            self.statusBar().showMessage("nothing to export yet", 4000)
            return
        self.export(self.controller.conversation_id, kind)

    def export(self, conversation_id: int, kind: str, path: Path | None = None) -> Path | None:
        """Write a conversation as Markdown or JSON (asks where unless ``path`` is given)."""
        suffix = ".md" if kind == "markdown" else ".json"
        if path is None:
            title = self.store.conversation_title(conversation_id)
            safe = "".join(ch if ch.isalnum() or ch in " -_" else "_" for ch in title).strip() or "chat"
            chosen, _ = QFileDialog.getSaveFileName(self, "Export chat", str(Path.home() / f"{safe}{suffix}"))
            if not chosen:
                return None
            path = Path(chosen)
        if kind == "markdown":
            text = self.store.export_markdown(conversation_id)
        else:
            text = json.dumps(self.store.export_json(conversation_id), ensure_ascii=False, indent=2)
        try:  # the dialog asked before replacing a file; a link, folder or device is still never replaced
            write_text_safely(path, text, overwrite=True)
        except TandemError as exc:
            self.statusBar().showMessage(f"not exported: {exc}", 8000)
            return None
        self.statusBar().showMessage(f"exported to {path}", 6000)
        return path

    def comparison_job(
        self, temperatures: tuple[float, ...] = (), max_tokens: int | None = None
    ) -> ComparisonJob | None:
        """A job for the last prompt of the open chat, or None (with a message) when there is none."""
        cid = self.controller.conversation_id
        if not self.controller.can_send() or cid is None:
            self.statusBar().showMessage("load a pair and send a prompt first (and wait for the reply)", 6000)
            return None
        messages = self.controller.history(cid, upto_last_user=True)
        if not messages or messages[-1].role != "user":
            self.statusBar().showMessage("no prompt to rerun in this chat", 6000)
            return None
        settings = self.controller.chat_settings()
        params = settings.sampling_params()
        if params.seed is None:  # both runs must draw the same random numbers
            params = replace(params, seed=random.randrange(2**31))
        limit = max_tokens or min(settings.max_tokens, 256)
        return ComparisonJob(tuple(messages), params, limit, settings.draft_length, settings.adaptive, temperatures)

    def run_ab(self) -> ABDialog | None:
        """Open the A/B dialog and start it."""
        job = self.comparison_job()
        if job is None:
            return None
        dialog = ABDialog(self.host, job, self)
        dialog.baseline_measured.connect(self._baseline_measured)
        return self._start_dialog(dialog)

    def run_sweep(
        self, temperatures: tuple[float, ...] = SWEEP_TEMPERATURES, max_tokens: int = 64
    ) -> SweepDialog | None:
        """Open the temperature sweep and start it."""
        job = self.comparison_job(temperatures, max_tokens=max_tokens)
        if job is None:
            return None
        # The sweep measures acceptance, which needs drafts at every temperature: an adaptive
        # controller that (rightly) switches drafting off on a CPU would measure nothing.
        job = replace(job, adaptive=False, draft_length=max(1, job.draft_length))
        return self._start_dialog(SweepDialog(self.host, job, self))

    def run_preflight(self) -> PreflightDialog | None:
        """Measure this machine with the loaded pair (seeds the adaptive controller and the speedup baseline)."""
        if not self.controller.can_send():
            self.statusBar().showMessage("load a pair first (and wait for the reply to finish)", 6000)
            return None
        dialog = PreflightDialog(self.host, self.controller.chat_settings().sampling_params(), self)
        dialog.baseline_measured.connect(lambda rate: self._baseline_measured(rate, "pre-flight"))
        dialog.use_draft.connect(self.use_draft)
        return self._start_dialog(dialog)

    def use_draft(self, draft: Path) -> None:
        """Load the loaded pair again with ``draft`` in place of its draft (pre-flight's cheaper copy)."""
        pair = self.controller.pair
        if pair is None or pair.remote is not None:
            self.statusBar().showMessage("load a local pair first", 6000)
            return
        config = pair.config
        drafter = config.drafter if config.drafter.uses_draft_model else DrafterKind.HYBRID
        choice = PairChoice(config.target, draft, drafter)
        self.picker.refresh(choice)  # the new file is listed and chosen
        self.load_pair(choice)

    def _start_dialog(self, dialog: Any) -> Any:
        self._dialog = dialog
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.controller.set_comparing(True)
        dialog.show()
        dialog.start()
        return dialog

    # -- reactions ----------------------------------------------------------------------------

    def _activity_changed(self, activity: Activity) -> None:
        if activity is Activity.IDLE and self._loading is not None:
            choice, self._loading = self._loading, None
            if self.controller.pair is not None:
                self.app_settings.set_pair(choice)  # only a pair that loaded is tried again at the next start
            else:
                self._load_failed(choice)
        busy = activity is not Activity.IDLE
        self.picker.set_busy(busy)
        self.stop_action.setEnabled(activity in (Activity.GENERATING, Activity.COMPARING))
        pair = self.controller.pair
        remote = pair is not None and pair.remote is not None
        for action in (self.ab_action, self.sweep_action, self.preflight_action):
            action.setEnabled(not busy and pair is not None and not remote)
            # The tools measure the local engine; a server's speed and drafts are its own.
            action.setToolTip(LOCAL_ONLY if remote else action.text())

    @Slot()
    def _comparison_finished(self) -> None:
        self.controller.set_comparing(False)

    def _pair_loaded(self, info: PairInfo) -> None:
        if info.remote is not None:
            self._server_chosen(info)
            return
        self.memory.setEnabled(True)
        self.memory.setToolTip("")
        self.picker.server.status.setText("")  # no longer "chatting with" a server
        self.server_switch.set_pair(info.config)
        label = pair_label(info.config)
        self.pair_status.setText(label)
        self.picker.set_loaded(f"loaded in {info.load_seconds:.1f} s")
        self.memory.set_state(measured_state(self._estimate, info))
        threads = self.settings_panel.settings().n_threads
        self.stats.set_baseline(self.app_settings.baseline(info.config.target, threads), "measured here")
        self.stats.reset(info.config.drafter.value, self.controller.chat_settings().adaptive)
        self._activity_changed(self.controller.activity)
        self.chat.prompt.setFocus()

    def _server_chosen(self, info: PairInfo) -> None:
        remote = info.remote
        assert remote is not None
        self.pair_status.setText(info_label(info))
        self.picker.server.status.setText(f"chatting with {remote.label}")
        self.picker.set_loaded("a server is chosen (Server above): load a pair to use this computer again")
        self.memory.set_state(MeterState(verdict="a server is chosen: the memory meter is for a local pair"))
        self.memory.setEnabled(False)
        self.memory.setToolTip("the models run on the server, not on this computer")
        self.stats.set_baseline(None, "")
        self.stats.reset(info.drafter_name, False)
        self._activity_changed(self.controller.activity)
        self.chat.prompt.setFocus()

    def _load_failed(self, choice: PairChoice) -> None:
        # The worker unloads the old pair before loading: after a failure nothing is loaded.
        self.pair_status.setText("no pair loaded")
        self.picker.set_loaded(f"{choice.target.name} did not load: see the message above the chat")
        if self.app_settings.pair() == choice:
            self.app_settings.clear_pair()  # a default that no longer loads is not retried at every start

    def _reply_finished(self, event: FinishedEvent) -> None:
        pair = self.controller.pair
        if pair is None or event.reason is FinishReason.CANCELLED or event.stats.emitted < 16:
            return
        if pair.remote is not None:  # a server's speed says nothing about this computer
            return
        if pair.config.drafter is DrafterKind.NONE:
            # A target-only reply is a baseline measurement too.
            self._baseline_measured(event.stats.tokens_per_second)

    def _baseline_measured(self, rate: float, source: str = "measured here") -> None:
        pair = self.controller.pair
        if pair is None:
            return
        self.app_settings.set_baseline(pair.config.target, self.settings_panel.settings().n_threads, rate)
        self.stats.set_baseline(rate, source)

    def _estimate_memory(self, choice: PairChoice | None) -> None:
        if choice is None:
            return
        settings = self.settings_panel.settings()
        self._estimate_generation += 1
        generation = self._estimate_generation
        self.background.submit(
            lambda: estimate_state(choice, settings),
            lambda state: self._estimate_ready(generation, state),
            lambda exc: self.memory.set_state(MeterState(verdict=f"no estimate: {exc}")),
        )

    def _estimate_ready(self, generation: int, state: MeterState) -> None:
        if generation != self._estimate_generation:
            return  # an answer for a choice the user has since changed
        self._estimate = state
        pair = self.controller.pair
        choice = self.picker.choice()
        if pair is not None and choice is not None and choice.config(self.settings_panel.settings()) == pair.config:
            # The loaded pair's estimate arrived after loading finished: keep showing the measurement.
            self.memory.set_state(measured_state(state, pair))
        else:
            self.memory.set_state(state)

    def _settings_changed(self, settings: GenerationSettings) -> None:
        previous = self.app_settings.generation()
        self.app_settings.set_generation(settings)
        if previous.load_settings_differ(settings):
            self._estimate_memory(self.picker.choice())
            if self.controller.pair is not None:
                self.statusBar().showMessage("context, threads and GPU layers apply when the pair is reloaded", 6000)

    def _open_conversation(self, conversation_id: int) -> None:
        if self.controller.activity is Activity.GENERATING:
            self.statusBar().showMessage("wait for the reply to finish (or press Esc) before switching chats", 5000)
            self.refresh_conversations()  # put the selection back on the chat being written
            return
        self.stack.setCurrentWidget(self.chat)
        self.controller.open_conversation(conversation_id)

    def _rename(self, conversation_id: int) -> None:
        title, ok = QInputDialog.getText(
            self, "Rename chat", "Title", text=self.store.conversation_title(conversation_id)
        )
        if ok and title.strip():
            try:
                self.store.rename_conversation(conversation_id, title.strip())
            except StoreWriteError as exc:
                self.chat.banner.show_message(str(exc))
            self.refresh_conversations()

    def _delete(self, conversation_id: int) -> None:
        """Move a chat to the trash at once; the undo bar brings it back for a few seconds."""
        if self.controller.activity is Activity.GENERATING and conversation_id == self.controller.conversation_id:
            self.statusBar().showMessage("this chat is being written to: stop the reply first", 5000)
            return
        try:
            title = self.store.conversation_title(conversation_id)
            self.store.delete_conversation(conversation_id)
        except (StoreWriteError, KeyError) as exc:
            self.chat.banner.show_message(str(exc) if isinstance(exc, StoreWriteError) else "that chat is gone")
            self.refresh_conversations()
            return
        if conversation_id == self.controller.conversation_id:
            self.controller.new_conversation()
        self.refresh_conversations()
        self.conversations.undo.offer(f"Deleted '{title}'", lambda: self._restore_deleted(conversation_id))

    def _restore_deleted(self, conversation_id: int) -> None:
        try:
            self.store.restore_conversation(conversation_id)
        except StoreWriteError as exc:
            self.chat.banner.show_message(str(exc))
            return
        self.refresh_conversations()
        self.statusBar().showMessage("the chat is back", 4000)

    def _pin(self, conversation_id: int, pinned: bool) -> None:
        try:
            self.store.set_pinned(conversation_id, pinned)
        except StoreWriteError as exc:
            self.chat.banner.show_message(str(exc))
        self.refresh_conversations()

    def jump_to(self, hit: SearchHit) -> bool:
        """Open a search result's chat on the result's branch and highlight the message; False when it cannot."""
        if self.controller.activity is not Activity.IDLE:
            self.statusBar().showMessage("wait for the reply to finish (or press Esc) before jumping", 5000)
            return False
        try:
            if not self.store.read_only:
                self.store.switch_to(hit.message_id)
        except (StoreWriteError, KeyError) as exc:
            self.chat.banner.show_message(str(exc) if isinstance(exc, StoreWriteError) else "that message is gone")
            return False
        self.stack.setCurrentWidget(self.chat)
        self.controller.open_conversation(hit.conversation_id, force=True)
        self.refresh_conversations()
        index = self.chat.view.message_index_of(hit.message_id)
        if index is None:
            self.statusBar().showMessage("that message is on another branch of the chat", 5000)
            return False
        self.chat.view.highlight_message(index)
        return True

    # -- per-chat settings -----------------------------------------------------------------

    def new_chat_settings(self) -> ChatSettings:
        """What a new chat starts from: the default preset, else what the last new chat was given."""
        try:
            default = self.store.default_preset()
        except Exception:  # a store that cannot answer must not keep a chat from starting
            default = None
        if default is not None:
            return ChatSettings.from_dict(default[1])
        return self.app_settings.new_chat_settings()

    def _chat_settings_shown(self, settings: ChatSettings) -> None:
        self.settings_panel.set_chat_settings(settings)
        self.settings_panel.show_chat(new=self.controller.conversation_id is None)

    def _chat_settings_edited(self, settings: ChatSettings) -> None:
        if self.controller.conversation_id is None:
            self.app_settings.set_new_chat_settings(settings)
        self.controller.set_chat_settings(settings)

    def _welcome_pair(self, target: Path, draft: Path) -> None:
        choice = PairChoice(target, draft, DrafterKind.HYBRID)
        self.picker.refresh(choice)
        self.load_pair(choice)

    def _welcome_model(self, path: Path) -> None:
        self.picker.refresh(PairChoice(path, None, DrafterKind.NGRAM))
        self.side.setCurrentIndex(0)
        self.stack.setCurrentWidget(self.chat)

    # -- the chat database -------------------------------------------------------------------

    def _open_store(self) -> ChatStore:
        """The store on the data folder's file, or (with a notice saying why) a read-only or in-memory one."""
        try:
            store = ChatStore()
        except StoreOpenError as exc:
            return self._store_unusable(exc)
        self.beacon.listen()
        return store

    def _store_unusable(self, exc: StoreOpenError) -> ChatStore:
        path = default_path()
        if exc.problem is Problem.IN_USE:
            reached = self.beacon.call_first()
            try:
                store = ChatStore(read_only=True)
            except StoreOpenError:
                store = ChatStore.scratch()
            self.notice.show_notice(
                f"Tandem is already open on this data folder ({path.parent})"
                + (": that window was brought to the front. " if reached else ". ")
                + "This window shows your chats read-only; nothing new is saved here.",
                [("Close this window", self.close)],
            )
            return store
        kept = "Until you choose, chats in this window are not kept."
        actions: list[tuple[str, Any]] = []
        if exc.problem is Problem.DAMAGED:
            advice = (
                "Tandem has not changed it. You can recover what can still be read into a new file "
                "(the damaged one is kept beside it), move it aside and start with an empty history, "
                "or open it read-only to look."
            )
            actions = [
                ("Recover what can be read", self.recover_store),
                ("Move it aside and start fresh", self.start_fresh),
                ("Open read-only", self.open_read_only),
            ]
        elif exc.problem is Problem.NOT_A_FILE:
            advice = "You can move it aside (nothing in it is deleted) and start with an empty history."
            actions = [("Move it aside and start fresh", self.start_fresh)]
        elif exc.problem is Problem.READ_ONLY:
            advice = "You can open your chats read-only, or make the file and its folder writable and restart."
            if path.is_file():
                actions = [("Open read-only", self.open_read_only)]
        else:
            advice = "Set TANDEM_DATA_DIR to a folder you can write (or unset it) and restart."
        self.notice.show_notice(f"Your chats could not be opened: {exc}. {advice} {kept}", actions)
        return ChatStore.scratch()

    def recover_store(self) -> None:
        """Read what can be read from the damaged file into a new one, which takes its place."""
        if not self._can_swap_store():
            return
        path = default_path()
        self.store.close()  # a scratch store: nothing to keep
        try:
            report = recover_in_place(path)
            store = ChatStore(path)
        except TandemError as exc:
            self._use_store(ChatStore.scratch())
            self.notice.show_notice(
                f"Recovery did not work: {exc}. The original file was not changed.",
                [("Move it aside and start fresh", self.start_fresh), ("Open read-only", self.open_read_only)],
            )
            return
        self._use_store(store)
        self.beacon.listen()
        self.notice.show_notice("Your chats were recovered: " + report.summary() + ".", [("OK", self.notice.hide)])

    def start_fresh(self) -> None:
        """Move the unusable file (or folder) aside, unchanged, and start an empty history."""
        if not self._can_swap_store():
            return
        path = default_path()
        try:
            aside = move_aside(path)
            store = ChatStore(path)
        except TandemError as exc:
            self.notice.show_notice(f"Could not start fresh: {exc}.", [("Open read-only", self.open_read_only)])
            return
        self.store.close()
        self._use_store(store)
        self.beacon.listen()
        where = f" The old one is kept as {aside}." if aside is not None else ""
        self.notice.show_notice(f"Started with an empty history.{where}", [("OK", self.notice.hide)])

    def open_read_only(self) -> None:
        """Show the chats in the file without ever writing to it."""
        if not self._can_swap_store():
            return
        try:
            store = ChatStore(default_path(), read_only=True)
        except StoreOpenError as exc:
            self.notice.show_notice(
                f"It cannot be opened read-only either: {exc}.",
                [("Recover what can be read", self.recover_store), ("Move it aside and start fresh", self.start_fresh)],
            )
            return
        self.store.close()
        self._use_store(store)
        self.notice.show_notice(
            "Your chats are shown read-only: nothing new is saved. Restart Tandem to repair the file or start fresh.",
            [("OK", self.notice.hide)],
        )

    def _can_swap_store(self) -> bool:
        if self.controller.activity is not Activity.IDLE:
            self.statusBar().showMessage("wait for the reply to finish first", 5000)
            return False
        return True

    def _use_store(self, store: ChatStore) -> None:
        self.store = store
        self.controller.set_store(store)
        self.refresh_conversations()

    def _store_write_failed(self, error: StoreWriteError) -> None:
        self.notice.show_notice(
            str(error),
            [("Retry saving", self.controller.retry_save), ("Export the reply…", lambda: self.export_unsaved())],
        )

    def export_unsaved(self, path: Path | None = None) -> Path | None:
        """Write the reply the store could not take to a Markdown file (asks where unless ``path`` is given)."""
        text = self.controller.unsaved_markdown()
        if not text:
            self.statusBar().showMessage("nothing is waiting to be saved", 4000)
            return None
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self, "Export the unsaved reply", str(Path.home() / "reply.md"))
            if not chosen:
                return None
            path = Path(chosen)
        try:
            write_text_safely(path, text, overwrite=True)
        except TandemError as exc:
            self.statusBar().showMessage(f"not exported: {exc}", 8000)
            return None
        self.statusBar().showMessage(f"exported to {path}", 6000)
        return path

    def _raised_by_another(self) -> None:
        self.raise_requests += 1
        if self.isMinimized():
            self.showNormal()
        self.raise_()
        self.activateWindow()
        self.statusBar().showMessage(
            "another Tandem was started on this data folder: it shows the chats read-only", 8000
        )

    # -- closing -------------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        """Save the layout, stop the engine thread (freeing the models there) and close the store.

        Each step runs whatever the one before it did: a store that fails here must not
        leave the engine thread running when Qt destroys it.
        """
        if not self._closed:
            self._closed = True
            try:
                self.app_settings.set_geometry("geometry", self.saveGeometry())
                self.app_settings.set_geometry("splitter", self.splitter.saveState())
                self.app_settings.set_generation(self.settings_panel.settings())
                self.app_settings.sync()
                if self._dialog is not None:
                    with contextlib.suppress(RuntimeError):  # the dialog may already be deleted
                        self._dialog.close()
                self.server_switch.stop()  # before the engine thread goes: its request stops at the next step
                if not self.controller.shutdown():
                    self._offer_unsaved_export()
            finally:
                try:
                    self.host.shutdown()
                    self.background.shutdown()
                finally:
                    self.beacon.close()
                    self.store.close()
        super().closeEvent(event)

    def _offer_unsaved_export(self) -> None:
        answer = QMessageBox.question(
            self,
            "A reply was not saved",
            f"{self.controller.store_error or 'The chat could not be saved.'}\n\nExport the reply before quitting?",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.export_unsaved()
