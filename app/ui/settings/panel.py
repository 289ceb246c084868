"""The settings panel: the current chat's settings with its presets, and this machine's loading options.

The upper part edits the chat being shown (system prompt, sampling, drafter,
draft length, reply length): each chat keeps its own, so changing them never
touches another chat. Presets are named sets of those settings. The lower
part is per machine (context size, threads, GPU layers) and needs the models
reloaded, which the panel says next to them rather than reloading behind the
user's back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.conversation.chat_settings import MAX_DRAFT_LENGTH, ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.sampling import (
    MAX_TOKENS,
    MIN_P,
    REPEAT_PENALTY,
    SEED,
    TEMPERATURE,
    TOP_K,
    TOP_P,
    SamplingField,
)
from app.core.memory.offload import AUTO_GPU_LAYERS
from app.engine.store.conversations import ChatStore
from app.ui.chat.tools.tool_list import ToolListBox
from app.ui.i18n.words import number, say
from app.ui.layout_fit import ElidedComboBox
from app.ui.settings.hub_token_box import HubTokenBox
from app.ui.settings.mcp_box import McpBox
from app.ui.settings.prefix_cache_box import PrefixCacheBox
from app.ui.settings.presets import PresetBox
from app.ui.settings.remote_box import RemoteTimeoutBox
from app.ui.settings.store import GenerationSettings

DRAFTER_CHOICES = (
    ("hybrid", str(QT_TRANSLATE_NOOP("SettingsPanel", "Hybrid (prompt lookup where trusted, else the draft model)"))),
    ("model", str(QT_TRANSLATE_NOOP("SettingsPanel", "Draft model"))),
    ("ngram", str(QT_TRANSLATE_NOOP("SettingsPanel", "Prompt lookup (n-gram)"))),
    ("mtp", str(QT_TRANSLATE_NOOP("SettingsPanel", "The model's own MTP layers"))),
    ("none", str(QT_TRANSLATE_NOOP("SettingsPanel", "None (target only)"))),
)


# A QSpinBox holds a C int: a field whose range goes further (the seed) shows the part that fits.
_SPIN_MAX = 2**31 - 1


def _double(low: float, high: float, step: float, decimals: int = 2) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setDecimals(decimals)
    return box


def _double_for(spec: SamplingField[Any], step: float, decimals: int = 2) -> QDoubleSpinBox:
    """A spin box over the field's one range, its help as the tooltip."""
    box = _double(float(spec.minimum), float(spec.maximum), step, decimals)
    box.setToolTip(say(spec.help))  # core's words, in the window's language
    return box


def _int_for(spec: SamplingField[Any], step: int = 1, special: str = "") -> QSpinBox:
    """A spin box over the field's one range (cut to what a spin box holds), its help as the tooltip."""
    box = _int(int(spec.minimum), min(int(spec.maximum), _SPIN_MAX), step, special)
    box.setToolTip(say(spec.help))  # core's words, in the window's language
    return box


# The GPU-layer spin boxes go down to -1, shown as "auto": the step below 0, so "auto"
# sits next to "no layers" (AUTO_GPU_LAYERS itself is -2, since -1 means all to llama.cpp).
_SPIN_AUTO = -1


def _layers(spin_value: int) -> int:
    """A GPU-layer spin box's value as the setting."""
    return AUTO_GPU_LAYERS if spin_value <= _SPIN_AUTO else spin_value


def _spin_layers(setting: int) -> int:
    """A GPU-layer setting as the spin box's value (-1, llama.cpp's "all", as the most the box holds)."""
    if setting == AUTO_GPU_LAYERS:
        return _SPIN_AUTO
    return 999 if setting < 0 else setting


def _int(low: int, high: int, step: int = 1, special: str = "") -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    if special:
        box.setSpecialValueText(special)  # shown for the minimum value
    return box


class SettingsPanel(QWidget):
    """Edits the current chat's :class:`ChatSettings` (``chat_changed``) and this machine's (``changed``)."""

    changed = Signal(object)  # GenerationSettings
    chat_changed = Signal(object)  # ChatSettings

    def __init__(
        self, gpu_offload: bool, store: Callable[[], ChatStore] | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._updating = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)

        self.chat_title = QLabel(self.tr("<b>This chat</b>"))
        self.chat_note = QLabel(self.tr("Kept with the chat: other chats keep their own."))
        self.chat_note.setWordWrap(True)
        self.chat_note.setEnabled(False)
        layout.addWidget(self.chat_title)
        layout.addWidget(self.chat_note)
        self.presets: PresetBox | None = None
        if store is not None:
            preset_group = QGroupBox(self.tr("Presets"))
            preset_layout = QVBoxLayout(preset_group)
            self.presets = PresetBox(store, self.chat_settings)
            self.presets.applied.connect(lambda s: self.set_chat_settings(s, emit=True))
            preset_layout.addWidget(self.presets)
            layout.addWidget(preset_group)

        reply = QGroupBox(self.tr("Reply"))
        form = QFormLayout(reply)
        self.system_prompt = QPlainTextEdit()
        self.system_prompt.setPlaceholderText(self.tr("optional system prompt for this chat"))
        self.system_prompt.setFixedHeight(64)
        self.max_tokens = _int_for(MAX_TOKENS, 16)
        form.addRow(self.tr("System"), self.system_prompt)
        form.addRow(self.tr("Max tokens"), self.max_tokens)
        # Structured output: the draft and the target are both held to the schema (app.core.decoding.constraint).
        self.json_schema = QPlainTextEdit()
        self.json_schema.setPlaceholderText(
            self.tr('optional JSON schema every reply must match, e.g. {"type": "object"}')
        )
        self.json_schema.setFixedHeight(64)
        form.addRow(self.tr("JSON schema"), self.json_schema)
        layout.addWidget(reply)

        sampling = QGroupBox(self.tr("Sampling"))
        form = QFormLayout(sampling)
        self.sampling_defaults = QLabel(
            self.tr("Defaults as llama.cpp's server: temperature {t}, top-k {k}, top-p {p}, min-p {m}.").format(
                t=number(TEMPERATURE.default, "g"),
                k=TOP_K.default,
                p=number(TOP_P.default, "g"),
                m=number(MIN_P.default, "g"),
            )
        )
        self.sampling_defaults.setWordWrap(True)
        self.sampling_defaults.setEnabled(False)
        form.addRow(self.sampling_defaults)
        self.temperature = _double_for(TEMPERATURE, 0.05)
        # Greedy is one click away: ticked, the temperature is 0; unticked, the one it had before comes back.
        self.greedy = QCheckBox(self.tr("Greedy"))
        self.greedy.setToolTip(
            self.tr(
                "temperature 0: always the target's most likely token, so the same reply every time; "
                "untick to sample again at the temperature from before"
            )
        )
        self._sampled_temperature = TEMPERATURE.default  # what unticking Greedy restores
        temperature_row = QWidget()
        row = QHBoxLayout(temperature_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.temperature, 1)
        row.addWidget(self.greedy)
        self.top_k = _int_for(TOP_K, special=self.tr("off"))
        self.top_p = _double_for(TOP_P, 0.01)
        self.min_p = _double_for(MIN_P, 0.01)
        self.repeat_penalty = _double_for(REPEAT_PENALTY, 0.05)
        self.seed = _int_for(SEED, special=self.tr("random"))
        self.seed.setToolTip(self.tr("random: a new seed for every reply (each reply records the one it used)"))
        form.addRow(self.tr("Temperature"), temperature_row)
        form.addRow(self.tr("Top-k"), self.top_k)
        form.addRow(self.tr("Top-p"), self.top_p)
        form.addRow(self.tr("Min-p"), self.min_p)
        form.addRow(self.tr("Repeat penalty"), self.repeat_penalty)
        form.addRow(self.tr("Seed"), self.seed)
        layout.addWidget(sampling)

        speculation = QGroupBox(self.tr("Speculation"))
        form = QFormLayout(speculation)
        self.drafter = ElidedComboBox(mode=Qt.TextElideMode.ElideRight)  # "Hybrid (prompt lookup…", whole when open
        for value, label in DRAFTER_CHOICES:
            self.drafter.addItem(self.tr(label), value)
        # Sized to a short label, not to its longest item, so the side panel never scrolls sideways;
        # the open list shows every label in full.
        self.drafter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.drafter.setMinimumContentsLength(12)
        self.drafter.setToolTip(
            self.tr(
                "who proposes tokens for the target to verify; a draft model is used when the loaded pair has one "
                "(otherwise the pair's own drafter); the Model tab's Drafter buttons show and change the same setting"
            )
        )
        self.draft_length = _int(1, MAX_DRAFT_LENGTH)
        self.draft_length.setToolTip(self.tr("tokens the drafter proposes per verify step"))
        self.adaptive = QCheckBox(self.tr("Adaptive"))
        self.adaptive.setToolTip(
            self.tr(
                "choose the draft length every step from the measured costs and acceptance, and turn drafting "
                "off when it loses (the draft length above becomes a floor on the maximum)"
            )
        )
        form.addRow(self.tr("Drafter"), self.drafter)
        form.addRow(self.tr("Draft length"), self.draft_length)
        form.addRow("", self.adaptive)
        layout.addWidget(speculation)

        self.reset_button = QPushButton(self.tr("Reset this chat to defaults"))
        self.reset_button.clicked.connect(lambda: self.set_chat_settings(ChatSettings(), emit=True))
        layout.addWidget(self.reset_button)

        loading = QGroupBox(self.tr("This machine"))  # a short title: a group box's title sets its minimum width
        form = QFormLayout(loading)
        applies = QLabel(self.tr("Applies on the next load (also in Edit ▸ Preferences)."))
        applies.setWordWrap(True)
        applies.setEnabled(False)
        form.addRow(applies)
        self.n_ctx = _int(256, 131_072, 256)
        self.n_threads = _int(0, 256, special=self.tr("Auto"))
        self.n_threads.setToolTip(
            self.tr("Auto measures which thread count is fastest with what else runs here, and re-checks")
        )
        # The spin box's lowest value shows "auto" (AUTO_GPU_LAYERS in the settings, see _layers).
        self.n_gpu_layers = _int(_SPIN_AUTO, 999, special=self.tr("auto"))
        self.n_gpu_layers_draft = _int(_SPIN_AUTO, 999, special=self.tr("auto"))
        for spin in (self.n_gpu_layers, self.n_gpu_layers_draft):
            spin.setToolTip(
                self.tr("auto: as many layers as fit the free VRAM, the draft's first (shown in the memory meter)")
            )
        form.addRow(self.tr("Context size"), self.n_ctx)
        form.addRow(self.tr("Threads"), self.n_threads)
        form.addRow(self.tr("GPU layers, target"), self.n_gpu_layers)
        form.addRow(self.tr("GPU layers, draft"), self.n_gpu_layers_draft)
        if not gpu_offload:
            for spin in (self.n_gpu_layers, self.n_gpu_layers_draft):
                spin.setEnabled(False)
                spin.setToolTip(self.tr("this llama.cpp build runs on the CPU only"))
            note = QLabel(self.tr("This llama.cpp build has no GPU offload: both models run on the CPU."))
            note.setWordWrap(True)
            note.setEnabled(False)
            form.addRow(note)
        layout.addWidget(loading)
        self.remote = RemoteTimeoutBox()  # its own signal (changed): the window applies it to the server in use
        layout.addWidget(self.remote)
        self.hub_token = HubTokenBox()  # saved at once where the remote keys are; the model library reads it
        layout.addWidget(self.hub_token)
        self.mcp = McpBox()  # its own signal (chosen): the window gives the file to the chat's tool flow
        layout.addWidget(self.mcp)
        self.chat_tools = ToolListBox()  # the open chat's tools, on or off (kept in the chat's settings)
        layout.addWidget(self.chat_tools)
        self.prefix_cache_box = PrefixCacheBox()  # the window attaches the cache (install_prefix_cache)
        layout.addWidget(self.prefix_cache_box)
        layout.addStretch(1)

        # Connected before _emit_chat, so the box is ticked to match before the settings go out.
        self.temperature.valueChanged.connect(self._show_greedy)
        self.greedy.toggled.connect(self._greedy_toggled)
        for box in (self.temperature, self.top_p, self.min_p, self.repeat_penalty):
            box.valueChanged.connect(self._emit_chat)
        for spin in (self.top_k, self.seed, self.draft_length, self.max_tokens):
            spin.valueChanged.connect(self._emit_chat)
        self.adaptive.toggled.connect(self._emit_chat)
        self.drafter.currentIndexChanged.connect(self._emit_chat)
        self.system_prompt.textChanged.connect(self._emit_chat)
        self.json_schema.textChanged.connect(self._emit_chat)
        for spin in (self.n_ctx, self.n_threads, self.n_gpu_layers, self.n_gpu_layers_draft):
            spin.valueChanged.connect(self._emit)

    def show_chat(self, new: bool) -> None:
        """Say whose settings these are: the open chat's, or those the next new chat is created with."""
        self.chat_title.setText(self.tr("<b>New chat</b>") if new else self.tr("<b>This chat</b>"))
        self.chat_note.setText(
            self.tr("The chat is created with these when you send its first message.")
            if new
            else self.tr("Kept with the chat: other chats keep their own.")
        )

    def chat_settings(self) -> ChatSettings:
        """The chat settings the controls show."""
        return ChatSettings(
            system_prompt=self.system_prompt.toPlainText(),
            temperature=round(self.temperature.value(), 4),
            top_k=self.top_k.value(),
            top_p=round(self.top_p.value(), 4),
            min_p=round(self.min_p.value(), 4),
            repeat_penalty=round(self.repeat_penalty.value(), 4),
            seed=self.seed.value(),
            max_tokens=self.max_tokens.value(),
            drafter=DrafterKind(str(self.drafter.currentData())),
            draft_length=self.draft_length.value(),
            adaptive=self.adaptive.isChecked(),
            json_schema=self.json_schema.toPlainText(),
        )

    def set_chat_settings(self, s: ChatSettings, emit: bool = False) -> None:
        """Show ``s``; ``chat_changed`` fires only when ``emit`` is set."""
        self._updating = True
        try:
            self._sampled_temperature = s.temperature if s.temperature > 0 else TEMPERATURE.default
            self.temperature.setValue(s.temperature)
            self._show_greedy(s.temperature)
            self.top_k.setValue(s.top_k)
            self.top_p.setValue(s.top_p)
            self.min_p.setValue(s.min_p)
            self.repeat_penalty.setValue(s.repeat_penalty)
            self.seed.setValue(s.seed)
            self.max_tokens.setValue(s.max_tokens)
            self.drafter.setCurrentIndex(max(0, self.drafter.findData(s.drafter.value)))
            self.draft_length.setValue(s.draft_length)
            self.adaptive.setChecked(s.adaptive)
            if self.system_prompt.toPlainText() != s.system_prompt:
                self.system_prompt.setPlainText(s.system_prompt)
            if self.json_schema.toPlainText() != s.json_schema:
                self.json_schema.setPlainText(s.json_schema)
        finally:
            self._updating = False
        if emit:
            self._emit_chat()

    def settings(self) -> GenerationSettings:
        """This machine's settings the controls show."""
        return GenerationSettings(
            n_ctx=self.n_ctx.value(),
            n_gpu_layers=_layers(self.n_gpu_layers.value()),
            n_gpu_layers_draft=_layers(self.n_gpu_layers_draft.value()),
            n_threads=self.n_threads.value(),
        )

    def set_settings(self, s: GenerationSettings, emit: bool = False) -> None:
        """Show ``s``; ``changed`` fires only when ``emit`` is set."""
        self._updating = True
        try:
            self.n_ctx.setValue(s.n_ctx)
            self.n_threads.setValue(s.n_threads)
            self.n_gpu_layers.setValue(_spin_layers(s.n_gpu_layers))
            self.n_gpu_layers_draft.setValue(_spin_layers(s.n_gpu_layers_draft))
        finally:
            self._updating = False
        if emit:
            self._emit()

    def _show_greedy(self, temperature: float) -> None:
        """Tick Greedy exactly when the temperature is 0, remembering a sampled one for unticking."""
        if temperature > 0:
            self._sampled_temperature = temperature
        self.greedy.blockSignals(True)  # showing the state is not a click
        self.greedy.setChecked(temperature <= 0)
        self.greedy.blockSignals(False)

    def _greedy_toggled(self, greedy: bool) -> None:
        # The temperature's own change sends the settings (and keeps the box in step).
        self.temperature.setValue(0.0 if greedy else self._sampled_temperature)

    def _emit(self) -> None:
        if not self._updating:
            self.changed.emit(self.settings())

    def _emit_chat(self) -> None:
        if not self._updating:
            self.chat_changed.emit(self.chat_settings())
