"""The main window: conversations on the left, the chat in the middle, model, stats and settings on the right.

The window builds the widgets, restores settings and wires signals; the
chat flow itself lives in :class:`~app.ui.chat.controller.ChatController`,
the models on the engine thread behind :class:`~app.ui.threads.worker.EngineHost`.
Four helpers carry out what the window offers: the chat database and its
ways out (:class:`~app.ui.store_guard.StoreGuard`), the sidebar's requests
(:class:`~app.ui.chat.sidebar.actions.SidebarActions`), the Tools menu
(:class:`~app.ui.tools.launcher.ToolsLauncher`) and the menus, toolbar and
shortcuts (:class:`~app.ui.window_menus.WindowMenus`). The window opens
inside the screen it is on, with the side panel resizable and hideable.

The window always opens, whatever state the chat database is in (the store
guard sees to it); a second instance opens the history read-only and brings
the first one forward. Closing always stops the engine thread, even when the
store fails underneath.

The settings panel edits the open chat's own settings. The Model tab's drafter
buttons are a second view of the chat's drafter: a click there is stored with
the chat and shown in Settings, and the buttons follow Settings and the chat
that is open. A new chat starts from
the default preset, else from the defaults: never from what another chat was
given, so a schema or system prompt set for one chat cannot shape the next.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QStyle,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.conversation.chat_settings import ChatSettings
from app.core.display.model_names import short_pair_name
from app.core.errors import TandemError
from app.core.reply.end import EndKind, ReplyEnd
from app.core.reply.plan import effective_drafter
from app.engine.llama.model import gpu_offload_supported
from app.engine.llama.profile_store import open_profile_store
from app.engine.llama.session import DrafterKind
from app.engine.models.library import installed_default_pair
from app.engine.remote.client import RemoteEngine
from app.engine.remote.limits import RemoteLimits
from app.engine.store.conversations import ChatStore, default_path
from app.ui.chat.controller import Activity, ChatController, PickedPair, info_label
from app.ui.chat.panel import ChatPanel
from app.ui.chat.reply.words import loaded_pair_words
from app.ui.chat.shape_line import ShapePart, ShapeWatch
from app.ui.chat.sidebar.actions import SidebarActions
from app.ui.chat.sidebar.conversation_list import ConversationList
from app.ui.chat.store_notice import StoreNotice
from app.ui.i18n import QT_TRANSLATE_NOOP
from app.ui.i18n.words import number
from app.ui.layout_fit import ScreenFit
from app.ui.models.background_serving import BackgroundServing
from app.ui.models.discover_panel import DiscoverPanel
from app.ui.models.memory_meter import MemoryMeter, MeterState
from app.ui.models.memory_sources import MeterFeed
from app.ui.models.pair_picker import PairPicker
from app.ui.models.server_switch import ServerSwitch
from app.ui.models.welcome_panel import WelcomePanel
from app.ui.settings.folders import LastFolders
from app.ui.settings.panel import SettingsPanel
from app.ui.settings.prefix_cache_box import install_prefix_cache
from app.ui.settings.store import (
    TOOL_FORMAT_SETTING,
    AppSettings,
    GenerationSettings,
    PairChoice,
    RemoteChoice,
    tool_format_setting,
)
from app.ui.start import branding
from app.ui.start.single_instance import InstanceBeacon
from app.ui.stats.stats_panel import StatsPanel
from app.ui.status_line import StatusLine
from app.ui.steps.launcher import StepsLauncher
from app.ui.store_guard import StoreGuard
from app.ui.threads.background import Background
from app.ui.threads.jobs import PairInfo, RemoteInfo
from app.ui.threads.worker import EngineHost
from app.ui.tools.launcher import ToolsLauncher
from app.ui.wheel_guard import WheelGuard
from app.ui.window_menus import WindowMenus

DEFAULT_SIZE = QSize(1360, 860)  # a first start's size, shrunk to the screen when that is smaller
# Where a target-only rate came from, as the tools name it (translated when shown).
_BASELINE_SOURCES = (QT_TRANSLATE_NOOP("MainWindow", "measured here"), QT_TRANSLATE_NOOP("MainWindow", "pre-flight"))


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    return area


class MainWindow(QMainWindow):
    """Tandem's window."""

    def __init__(
        self,
        settings: AppSettings | None = None,
        store: ChatStore | None = None,
        autoload: bool = True,
        chat_defaults: ChatSettings | None = None,
    ) -> None:
        """``chat_defaults``: what a new chat starts from when no default preset is set (``ChatSettings()``)."""
        super().__init__()
        self._chat_defaults = chat_defaults or ChatSettings()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            WheelGuard.install(app)  # once per application: the wheel never changes an unfocused field
        self.setWindowTitle(branding.window_title())
        # Set before anything holds statusBar().showMessage: one owner, a message replaces the last, both sides elide.
        self.status_line = StatusLine()
        self.setStatusBar(self.status_line)
        self.app_settings = settings or AppSettings()
        self.notice = StoreNotice()
        self.beacon = InstanceBeacon((store.path if store is not None else default_path()).parent, self)
        self.beacon.raise_requested.connect(self._raised_by_another)
        self.raise_requests = 0
        self.folders = LastFolders(self.app_settings)  # where each kind of file dialog opens
        self.store_guard = StoreGuard(self, self.notice, self.beacon, store, self.folders)
        self.background = Background(self)
        self.host = EngineHost(self)
        self._server_engine: RemoteEngine | None = None  # the server chosen last (Settings' time-outs reach it)
        self._loading: PairChoice | None = None  # the pair being loaded, saved as the default once it has loaded
        self._closed = False

        self.conversations = ConversationList()
        self.chat = ChatPanel()
        self.welcome = WelcomePanel(self.background, self.folders)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.welcome)
        self.stack.addWidget(self.chat)

        self.picker = PairPicker(self.background, self.folders)
        self.memory = MemoryMeter()
        self.meter_feed = MeterFeed(self.memory, self.background, self.picker.choice, self._loaded_as)
        model_tab = QWidget()
        model_layout = QVBoxLayout(model_tab)
        model_layout.setContentsMargins(0, 0, 0, 0)
        model_layout.addWidget(self.picker)
        memory_title = QLabel(self.tr("<b>Memory</b>"))
        memory_title.setContentsMargins(8, 8, 8, 0)
        model_layout.addWidget(memory_title)
        # Which backends the running build has: a CPU-only build says how to get a GPU one.
        self.backend_label = QLabel(self.tr("llama.cpp: {backends}").format(backends=branding.backend_info()))
        self.backend_label.setObjectName("backend")
        self.backend_label.setWordWrap(True)
        self.backend_label.setContentsMargins(8, 0, 8, 0)
        model_layout.addWidget(self.backend_label)
        model_layout.addWidget(self.memory)
        server_title = QLabel(self.tr("<b>Local server</b>"))
        server_title.setContentsMargins(8, 8, 8, 0)
        model_layout.addWidget(server_title)
        self.server_switch = ServerSwitch(self.host, self.app_settings)
        self.background_serving = BackgroundServing(self, lambda: self.server_switch.serving_url, self.quit_app)
        self._quitting = False  # File → Quit or the tray's quit: close even while serving in the background
        model_layout.addWidget(self.server_switch)
        model_layout.addStretch(1)
        self.stats = StatsPanel()
        self.settings_panel = SettingsPanel(gpu_offload_supported(), lambda: self.store)
        self.side = QTabWidget()
        self.side.addTab(_scrolled(model_tab), self.tr("Model"))
        self.side.addTab(_scrolled(self.stats), self.tr("Stats"))
        self.settings_area = _scrolled(self.settings_panel)
        self.side.addTab(self.settings_area, self.tr("Settings"))
        self.discover = DiscoverPanel(self.background, lambda: c.target if (c := self.picker.choice()) else None)
        self.side.addTab(self.discover, self.tr("Discover"))
        self.discover.downloaded.connect(lambda _path: self.picker.refresh())

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.conversations)
        self.splitter.addWidget(self.stack)
        self.splitter.addWidget(self.side)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 0)
        self.splitter.setSizes([220, 760, 340])
        self.splitter.setChildrenCollapsible(False)  # the side panel hides with View ▸ Side panel, not by dragging
        # Readable minimums that still fit a 720-pixel-wide screen (1440 at 2x): the panels wrap or elide inside.
        self.conversations.setMinimumWidth(150)
        # The tabs' 290 px beside the vertical scroll bar a short screen (450 px high at 2x) gives them.
        self.side.setMinimumWidth(290 + self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent))
        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(0, 0, 0, 0)
        central_layout.setSpacing(0)
        central_layout.addWidget(self.notice)
        central_layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.splitter.setContentsMargins(6, 6, 6, 0)

        self.controller = ChatController(self.store, self.host, self.chat, self.stats, self.new_chat_settings)
        self.sidebar = SidebarActions(
            self, lambda: self.store, self.controller, self.conversations, self.chat, self._show_chat, self.folders
        )
        self.controller.attachments.folders = self.folders
        self.settings_panel.mcp.folders = self.folders
        self.store_guard.attach(self.controller, self.sidebar.refresh)
        self.tools = ToolsLauncher(self, self.host, self.controller, self._baseline_measured, self.use_draft)
        self.steps = StepsLauncher(
            self, self.controller, lambda: self.store, self.statusBar().showMessage, self.folders
        )
        self.conversations.search.set_store(lambda: self.store)
        self.pair_status = self.status_line.pair  # the pair in short; the file names in its tooltip (_show_pair)
        self.pair_status.setText(self.tr("no pair loaded"))
        self._build_actions()
        self._restore()
        self._wire()
        # Before the first load: every pair the engine thread loads gets the on-disk prefix cache.
        self.host.worker.prefix_cache = install_prefix_cache(self.settings_panel.prefix_cache_box, self.app_settings)
        self.host.worker.tool_format = tool_format_setting(self.app_settings.text(TOOL_FORMAT_SETTING))
        self.settings_panel.mcp.set_format(self.app_settings.text(TOOL_FORMAT_SETTING))
        self.settings_panel.mcp.format_chosen.connect(self._tool_format_chosen)
        self.host.worker.profile_store = open_profile_store()
        self.settings_panel.prefix_cache_box.attach_profiles(self.host.worker.profile_store)
        self.sidebar.refresh()
        self._initial_pair(autoload)
        self._activity_changed(self.controller.activity)
        self.controller.picked_changed()  # Send is offered once a pair is loaded or picked

    @property
    def store(self) -> ChatStore:
        """The chat database in use (the store guard swaps it when a way out of a bad file is chosen)."""
        return self.store_guard.store

    def _show_chat(self) -> None:
        self.stack.setCurrentWidget(self.chat)

    # -- construction --------------------------------------------------------------------

    def _build_actions(self) -> None:
        self.menus = WindowMenus(self)
        # The actions the rest of the window and the tests reach by name.
        self.new_action, self.find_action = self.menus.new_action, self.menus.find_action
        self.coloured_action, self.ghost_action = self.menus.coloured_action, self.menus.ghost_action
        self.stop_action = self.menus.stop_action

    def _restore(self) -> None:
        generation = self.app_settings.generation()
        self.settings_panel.set_settings(generation)
        self.settings_panel.remote.set_limits(self.app_settings.remote_limits())
        self.settings_panel.set_chat_settings(self.controller.chat_settings())
        self.settings_panel.show_chat(new=True)
        self.picker.show_drafter(self.controller.chat_settings().drafter)
        coloured = self.app_settings.flag("coloured", True)
        ghosts = self.app_settings.flag("ghosts", False)
        self.chat.legend.coloured.setChecked(coloured)
        self.chat.legend.ghosts.setChecked(ghosts)
        self.coloured_action.setChecked(coloured)
        self.ghost_action.setChecked(ghosts)
        self.chat.view.set_coloured(coloured)
        self.chat.view.set_show_ghosts(ghosts)
        self.chat.legend.underlines.setChecked(self.app_settings.flag("underlines", False))
        self.chat.set_send_with_ctrl_enter(self.app_settings.flag("send_with_ctrl_enter", False))
        geometry = self.app_settings.geometry("geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(DEFAULT_SIZE)
        # Saved on a larger screen or at another scale: reopened inside this one, fitted again once framed.
        self.screen_fit = ScreenFit(self, DEFAULT_SIZE)
        self.screen_fit.fit()
        splitter = self.app_settings.geometry("splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)

    def _wire(self) -> None:
        c = self.controller
        c.status.connect(self.statusBar().showMessage)
        c.activity_changed.connect(self._activity_changed)
        c.pair_loaded.connect(self._pair_loaded)
        c.conversations_changed.connect(self.sidebar.refresh)
        c.reply_finished.connect(self._reply_finished)
        c.chat_settings_changed.connect(self._chat_settings_shown)
        self.settings_panel.chat_changed.connect(self._chat_settings_edited)
        if self.settings_panel.presets is not None:
            self.settings_panel.presets.failed.connect(self.chat.banner.show_message)
        self.picker.load_requested.connect(self.load_pair)
        c.picked = PickedPair(ready=lambda: self.picker.ready_choice() is not None, load=self._load_picked)
        self.picker.choice_changed.connect(self._choice_changed)
        self.picker.drafter_picked.connect(self._drafter_picked)
        self.picker.server.use_requested.connect(self.use_server)
        self.picker.own_drafter.use_requested.connect(self.use_managed_server)
        self.settings_panel.changed.connect(self._settings_changed)
        self.settings_panel.remote.changed.connect(self._remote_limits_changed)
        panel, settings = self.settings_panel, self.app_settings
        c.tool_flow.attach(
            panel.chat_tools,
            panel.mcp,
            settings.text("mcp_config"),
            lambda path: settings.set_text("mcp_config", path),
            settings,
        )
        self.chat.legend.coloured.toggled.connect(lambda on: self.app_settings.set_flag("coloured", on))
        self.chat.legend.ghosts.toggled.connect(lambda on: self.app_settings.set_flag("ghosts", on))
        self.chat.legend.underlines.toggled.connect(lambda on: self.app_settings.set_flag("underlines", on))
        self.welcome.pair_ready.connect(self._welcome_pair)
        self.welcome.model_added.connect(self._welcome_model)
        # After the handlers above: the line reads the chat's settings and tool choices once they are stored.
        self.shape = ShapeWatch(self.chat.shape, c.chat_settings, self._chat_tool_count, self)
        for changed in (
            c.chat_settings_changed,
            panel.chat_changed,
            c.tool_flow.tools_changed,
            panel.chat_tools.changed,
        ):
            changed.connect(self.shape.refresh)
        self.chat.shape.open_requested.connect(self._open_shape_part)

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
            self.statusBar().showMessage(self.tr("no models yet: install or add a pair to start"))
            return
        self.stack.setCurrentWidget(self.chat)
        if autoload:
            self.load_pair(choice)

    # -- actions -------------------------------------------------------------------------

    def load_pair(self, choice: PairChoice) -> None:
        """Load ``choice`` with the current loading settings; it becomes the default once it has loaded."""
        self.stack.setCurrentWidget(self.chat)
        config = choice.config(self.settings_panel.settings())
        self.server_switch.set_pair(None, self.tr("loading a pair…"))
        short, full = loaded_pair_words(config)
        self._show_pair(self.tr("loading {pair}…").format(pair=short), full)
        self.picker.set_loaded(self.tr("loading {pair}…").format(pair=short))
        self._loading = choice
        self.controller.load(config)
        self._estimate_memory(choice)

    def _load_picked(self) -> None:
        """Load the pair picked in the Model tab (a message was sent before any pair was loaded)."""
        choice = self.picker.ready_choice()
        if choice is not None:
            self.load_pair(choice)

    def use_server(self, engine: RemoteEngine, info: RemoteInfo, remember: bool = True) -> None:
        """Answer from a remote server instead of a local pair (the local pair is freed).

        ``remember``: keep its URL and model as the server the Server page offers at the next start.
        """
        self.stack.setCurrentWidget(self.chat)
        self.server_switch.set_pair(None, self.tr("a server is chosen: the local server serves a local pair"))
        if remember:
            self.app_settings.set_remote(RemoteChoice(info.base_url, info.model))
        self._show_pair(self.tr("switching to {server}…").format(server=info.label))
        engine.limits = self.app_settings.remote_limits()
        self._server_engine = engine  # Settings' remote time-outs apply to it from its next reply
        self.host.use_remote(engine, info)

    def use_managed_server(self, engine: RemoteEngine, info: RemoteInfo) -> None:
        """Answer from the llama-server Tandem started for a model's own drafter; its URL lives only as long as
        the window, so the remembered server stays the one the user chose."""
        self.use_server(engine, info, remember=False)

    def _remote_limits_changed(self, limits: RemoteLimits) -> None:
        self.app_settings.set_remote_limits(limits)
        if self._server_engine is not None:
            self._server_engine.limits = limits

    def use_draft(self, draft: Path) -> None:
        """Load the loaded pair again with ``draft`` in place of its draft (pre-flight's cheaper copy)."""
        pair = self.controller.pair
        if pair is None or pair.remote is not None:
            self.statusBar().showMessage(self.tr("load a local pair first"), 6000)
            return
        config = pair.config
        drafter = config.drafter if config.drafter.uses_draft_model else DrafterKind.HYBRID
        choice = PairChoice(config.target, draft, drafter, config.projector)
        self.picker.refresh(choice)  # the new file is listed and chosen
        self.load_pair(choice)

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
        self.tools.set_available(busy, self.controller.pair)

    def _pair_loaded(self, info: PairInfo) -> None:
        if info.remote is not None:
            self._server_chosen(info)
            return
        self.memory.setEnabled(True)
        self.memory.setToolTip("")
        self.picker.server.status.setText("")  # no longer "chatting with" a server
        self.server_switch.set_pair(info.config)
        self._show_pair(*loaded_pair_words(info.config))
        self.picker.set_loaded(self.tr("loaded in {seconds} s").format(seconds=number(info.load_seconds, ".1f")))
        self.meter_feed.loaded(info)
        threads = self.settings_panel.settings().n_threads
        self.stats.set_baseline(self.app_settings.baseline(info.config.target, threads), self.tr("measured here"))
        self.stats.set_remote(False)
        chat = self.controller.chat_settings()
        config = info.config
        # The drafter the chat's next reply uses on this pair, as the reply's own record will say.
        has_draft = config.drafter.uses_draft_model and config.draft is not None
        drafter = effective_drafter(
            chat.drafter, has_draft, config.drafter, own_layers_loaded=config.drafter.uses_own_layers
        )
        self.stats.reset(drafter.value, chat.adaptive)
        self._activity_changed(self.controller.activity)
        self.chat.prompt.setFocus()

    def _show_pair(self, text: str, details: str = "") -> None:
        """Say in the status bar what answers: ``text`` in short, ``details`` (file names in full) in its tooltip."""
        self.pair_status.setText(text)
        self.pair_status.set_details(details)

    def _server_chosen(self, info: PairInfo) -> None:
        remote = info.remote
        assert remote is not None
        self._show_pair(info_label(info))
        self.picker.server.status.setText(self.tr("chatting with {server}").format(server=remote.label))
        self.picker.set_loaded(self.tr("a server is chosen (Server above): load a pair to use this computer again"))
        self.memory.set_state(MeterState(verdict=self.tr("a server is chosen: the memory meter is for a local pair")))
        self.memory.setEnabled(False)
        self.memory.setToolTip(self.tr("the models run on the server, not on this computer"))
        self.stats.set_baseline(None, "")
        self.stats.set_remote(True)  # the server's missing figures read "not reported"
        self.stats.reset(info.drafter_name, False)
        self._activity_changed(self.controller.activity)
        self.chat.prompt.setFocus()

    def _load_failed(self, choice: PairChoice) -> None:
        # The worker unloads the old pair before loading: after a failure nothing is loaded.
        self._show_pair(self.tr("no pair loaded"))
        self.picker.set_loaded(
            self.tr("{model} did not load: see the message above the chat").format(model=choice.target.name)
        )
        if self.app_settings.pair() == choice:
            self.app_settings.clear_pair()  # a default that no longer loads is not retried at every start

    def _reply_finished(self, end: ReplyEnd) -> None:
        pair = self.controller.pair
        stats = end.stats
        if pair is None or end.kind is not EndKind.FINISHED or stats is None or stats.emitted < 16:
            return
        if pair.remote is not None:  # a server's speed says nothing about this computer
            return
        if pair.config.drafter is DrafterKind.NONE:
            # A target-only reply is a baseline measurement too.
            self._baseline_measured(stats.tokens_per_second)

    def _baseline_measured(self, rate: float, source: str = "measured here") -> None:
        pair = self.controller.pair
        if pair is None:
            return
        self.app_settings.set_baseline(pair.config.target, self.settings_panel.settings().n_threads, rate)
        self.stats.set_baseline(rate, self.tr(source))  # the tools pass the English words: _BASELINE_SOURCES

    def _choice_changed(self, choice: PairChoice | None) -> None:
        self._estimate_memory(choice)
        self.controller.picked_changed()
        if choice is None or self.controller.pair is not None or self.controller.activity is not Activity.IDLE:
            return
        # The status bar follows the picker: "no models yet" no longer holds once a pair is picked.
        pair = short_pair_name(choice.target.name, choice.draft.name if choice.draft is not None else None)
        self.statusBar().showMessage(
            self.tr("{pair} is picked: press Load pair, or send a message to load it").format(pair=pair)
        )

    def _estimate_memory(self, choice: PairChoice | None) -> None:
        self.meter_feed.estimate(choice, self.settings_panel.settings())

    def _loaded_as(self, choice: PairChoice) -> PairInfo | None:
        """The loaded pair when ``choice`` is it; a choice still being filled in (a draft-model drafter
        picked before its draft, as the picker refreshes) is not, rather than an error."""
        pair = self.controller.pair
        try:
            wanted = choice.config(self.settings_panel.settings())
        except TandemError:
            return None
        if pair is None or pair.remote is not None:
            return None
        loaded = pair.config
        if wanted == loaded:
            return pair
        # The drafter is the chat's: a pair loaded with its draft model serves every drafter of those files,
        # one loaded without it every drafter that needs none.
        same_target = dataclasses.replace(wanted, drafter=loaded.drafter, draft=loaded.draft) == loaded
        with_draft = loaded.drafter.uses_draft_model and wanted.draft == loaded.draft
        # Without a draft file (a lone target) the chat's drafter can only run as lookup: the pair serves it.
        needs_draft = wanted.drafter.uses_draft_model and wanted.draft is not None
        # The MTP layers are loaded only for the MTP drafter: another pair of the same target lacks them.
        needs_own = wanted.drafter.uses_own_layers and not loaded.drafter.uses_own_layers
        return pair if same_target and not needs_own and (with_draft or not needs_draft) else None

    def _tool_format_chosen(self, name: str) -> None:
        """Settings named a tool-call format: kept, and used from the next model loaded."""
        self.app_settings.set_text(TOOL_FORMAT_SETTING, name)
        self.host.worker.tool_format = tool_format_setting(name)

    def _settings_changed(self, settings: GenerationSettings) -> None:
        previous = self.app_settings.generation()
        self.app_settings.set_generation(settings)
        if previous.load_settings_differ(settings):
            self._estimate_memory(self.picker.choice())
            if self.controller.pair is not None:
                self.statusBar().showMessage(
                    self.tr("context, threads and GPU layers apply when the pair is reloaded"), 6000
                )

    # -- per-chat settings -----------------------------------------------------------------

    def new_chat_settings(self) -> ChatSettings:
        """What a new chat starts from: the default preset, else the defaults (never another chat's settings)."""
        try:
            default = self.store.default_preset()
        except Exception:  # a store that cannot answer must not keep a chat from starting
            default = None
        if default is not None:
            return ChatSettings.from_dict(default[1])
        return self._chat_defaults

    def _chat_settings_shown(self, settings: ChatSettings) -> None:
        self.settings_panel.set_chat_settings(settings)
        self.settings_panel.show_chat(new=self.controller.conversation_id is None)
        self.picker.show_drafter(settings.drafter)

    def _chat_settings_edited(self, settings: ChatSettings) -> None:
        self.controller.set_chat_settings(settings)
        self.picker.show_drafter(settings.drafter)

    def _drafter_picked(self, drafter: DrafterKind) -> None:
        """The Model tab's drafter buttons change the open chat's drafter, as Settings ▸ Drafter does."""
        settings = dataclasses.replace(self.controller.chat_settings(), drafter=drafter)
        self.controller.set_chat_settings(settings)
        self.settings_panel.set_chat_settings(settings)  # shown, not sent back: the chat has it already

    def _chat_tool_count(self) -> int:
        """How many tools the open chat's next reply is offered (none without servers, or from a remote server)."""
        return len(self.controller.tool_flow.next_tools())

    def _open_shape_part(self, part: ShapePart) -> None:
        """Show where ``part`` of the chat's shape is changed: the Settings tab, scrolled to it and focused."""
        panel = self.settings_panel
        fields = {ShapePart.SCHEMA: panel.json_schema, ShapePart.SYSTEM_PROMPT: panel.system_prompt}
        target = fields.get(part, panel.chat_tools)
        self.menus.side_action.setChecked(True)
        self.side.setCurrentWidget(self.settings_area)
        self.settings_area.ensureWidgetVisible(target)
        target.setFocus(Qt.FocusReason.OtherFocusReason)

    def _welcome_pair(self, target: Path, draft: Path) -> None:
        choice = PairChoice(target, draft, DrafterKind.HYBRID)
        self.picker.refresh(choice)
        self.load_pair(choice)

    def _welcome_model(self, path: Path) -> None:
        self.picker.refresh(PairChoice(path, None, DrafterKind.NGRAM))
        self.side.setCurrentIndex(0)
        self.stack.setCurrentWidget(self.chat)

    # -- a second instance -------------------------------------------------------------------

    def _raised_by_another(self) -> None:
        self.raise_requests += 1
        if self.background_serving.held:
            self.background_serving.show_window()
        if self.isMinimized():
            self.showNormal()
        self.raise_()
        self.activateWindow()
        self.statusBar().showMessage(
            self.tr("another Tandem was started on this data folder: it shows the chats read-only"), 8000
        )

    # -- closing -------------------------------------------------------------------------------

    def quit_app(self) -> None:
        """Close for good, serving in the background or not (File → Quit, the tray's quit)."""
        self._quitting = True
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setQuitOnLastWindowClosed(True)
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        """Save the layout, stop the engine thread (freeing the models there) and close the store.

        Each step runs whatever the one before it did: a store that fails here must not
        leave the engine thread running when Qt destroys it.
        """
        serves_on = not self._closed and not self._quitting and self.server_switch.serves_on_close
        if serves_on and self.background_serving.hold():
            event.ignore()
            return
        if not self._closed:
            self._closed = True
            try:
                self.app_settings.set_geometry("geometry", self.saveGeometry())
                self.app_settings.set_geometry("splitter", self.splitter.saveState())
                self.app_settings.set_generation(self.settings_panel.settings())
                self.app_settings.sync()
                self.tools.close_dialog()
                self.server_switch.stop()  # before the engine thread goes: its request stops at the next step
                self.picker.own_drafter.shutdown()  # the llama-server Tandem started for a model's own drafter
                if not self.controller.shutdown():
                    self.store_guard.offer_unsaved_export()
            finally:
                try:
                    self.host.shutdown()
                    self.background.shutdown()
                finally:
                    self.beacon.close()
                    self.store.close()
        super().closeEvent(event)
