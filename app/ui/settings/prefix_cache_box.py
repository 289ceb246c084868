"""The Settings panel's "Prefix cache" group: how much disk the saved KV states may take, what they take, Clear.

Its last row is the other thing kept on this machine to make replies fast: the
adaptive controller's learned costs per pair
(:class:`~app.engine.llama.profile_store.ProfileStore`), how many pairs it
holds, and Forget.

The cache itself is :class:`~app.engine.llama.prefix_cache.PrefixCache`: the
engine thread restores and saves through it, this box reads its size and
clears it from the GUI thread (its methods take one lock). The limit is per
machine, kept in the INI file under ``prefix_cache/limit_gib``; 0 turns the
cache off (everything is removed and nothing is saved). The cache keeps it in
its folder too, so ``chat`` and ``serve`` keep to the limit set here.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QWidget

from app.core.display.units import GIB, format_bytes
from app.core.prefix_cache.policy import DEFAULT_BUDGET_BYTES
from app.engine.llama.prefix_cache import PrefixCache, open_prefix_cache
from app.engine.llama.profile_store import ProfileStore
from app.ui.settings.store import AppSettings

LIMIT_KEY = "prefix_cache/limit_gib"
DEFAULT_LIMIT_GIB = DEFAULT_BUDGET_BYTES // GIB
MAX_LIMIT_GIB = 1024


class PrefixCacheBox(QGroupBox):
    """A limit in GiB ("Off" at 0), the space in use, and Clear; ``limit_changed`` carries the new GiB."""

    limit_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Prefix cache (this machine)"))
        self.cache: PrefixCache | None = None
        form = QFormLayout(self)
        self.limit = QSpinBox()
        self.limit.setRange(0, MAX_LIMIT_GIB)
        self.limit.setSuffix(" GiB")
        self.limit.setSpecialValueText(self.tr("Off"))
        self.limit.setValue(DEFAULT_LIMIT_GIB)
        self.limit.setToolTip(
            self.tr(
                "Long prompts' model state (system prompt, documents, history) is saved on disk, so a new chat "
                "or a restart reads it back instead of processing it again; the least recently used goes first"
            )
        )
        self.usage = QLabel()
        self.usage.setWordWrap(True)  # "1.2 GiB in 14 saved states" beside Clear: wraps in a narrow panel
        self.clear_button = QPushButton(self.tr("Clear"))
        self.clear_button.clicked.connect(self.clear)
        form.addRow(self.tr("Limit"), self.limit)
        form.addRow(self.tr("In use"), _label_and_button(self.usage, self.clear_button))
        self.profiles: ProfileStore | None = None
        self.profiles_usage = QLabel()
        self.profiles_usage.setWordWrap(True)
        self.forget_button = QPushButton(self.tr("Forget"))
        self.forget_button.setToolTip(
            self.tr(
                "What drafting costs and how often drafts are accepted, measured for each model pair on this "
                "machine, so that the first reply after a restart does not spend its first steps measuring; "
                "Forget makes the next start of each pair measure again"
            )
        )
        self.forget_button.clicked.connect(self.forget)
        form.addRow(self.tr("Learned speeds"), _label_and_button(self.profiles_usage, self.forget_button))
        self.limit.valueChanged.connect(self._limit_edited)
        self.refresh()

    def attach(self, cache: PrefixCache) -> None:
        """Show and edit ``cache`` (its limit is set to the box's)."""
        self.cache = cache
        cache.set_budget(self.limit.value() * GIB)
        self.refresh()

    def attach_profiles(self, store: ProfileStore) -> None:
        """Show how many pairs ``store`` holds, with Forget."""
        self.profiles = store
        self.refresh()

    def set_limit(self, gib: int) -> None:
        """Show ``gib`` without emitting ``limit_changed`` (and apply it to the cache)."""
        self.limit.blockSignals(True)
        try:
            self.limit.setValue(gib)
        finally:
            self.limit.blockSignals(False)
        if self.cache is not None:
            self.cache.set_budget(self.limit.value() * GIB)
        self.refresh()

    def refresh(self) -> None:
        """Say what the saved states take now, and for how many pairs speeds are learned."""
        pairs = len(self.profiles) if self.profiles is not None else 0
        self.profiles_usage.setText(self.tr("%n pair(s)", "", pairs) if self.profiles is not None else "—")
        self.forget_button.setEnabled(pairs > 0)
        cache = self.cache
        if cache is None:
            self.usage.setText("—")
            self.clear_button.setEnabled(False)
            return
        n = len(cache.entries)
        self.usage.setText(self.tr("%1 in %n saved state(s)", "", n).replace("%1", format_bytes(cache.size_bytes())))
        self.clear_button.setEnabled(n > 0)

    def clear(self) -> None:
        """Remove every saved state."""
        if self.cache is not None:
            self.cache.clear()
        self.refresh()

    def forget(self) -> None:
        """Remove every pair's learned costs (a pair loaded now keeps its own until it is unloaded)."""
        if self.profiles is not None:
            self.profiles.clear()
        self.refresh()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        """Current whenever the tab is shown: replies save states while it is hidden."""
        self.refresh()
        super().showEvent(event)

    def _limit_edited(self, gib: int) -> None:
        if self.cache is not None:
            self.cache.set_budget(gib * GIB)
        self.refresh()
        self.limit_changed.emit(gib)


def _label_and_button(label: QLabel, button: QPushButton) -> QWidget:
    """A form row's field: a wrapping label with a button beside it.

    In a widget of its own: a bare layout in a form row does not pass on the
    wrapped label's height for its width, and "0 B in 0 saved states" lost
    its last line.
    """
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(label, 1)
    layout.addWidget(button)
    return row


def install_prefix_cache(box: PrefixCacheBox, app_settings: AppSettings) -> PrefixCache:
    """Open the prefix cache with the saved limit, show it in ``box`` and keep the limit when edited."""
    text = app_settings.text(LIMIT_KEY, str(DEFAULT_LIMIT_GIB))
    try:
        gib = min(MAX_LIMIT_GIB, max(0, int(text)))
    except ValueError:
        gib = DEFAULT_LIMIT_GIB
    box.set_limit(gib)
    cache = open_prefix_cache(gib * GIB)
    box.attach(cache)
    box.limit_changed.connect(lambda value: app_settings.set_text(LIMIT_KEY, str(value)))
    return cache
