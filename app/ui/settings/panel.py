"""The generation settings panel: sampling, speculation, reply length and loading options.

Sampling and speculation settings apply to the next reply; context size,
threads and GPU layers need the models reloaded, which the panel says next
to them rather than reloading behind the user's back.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.ui.settings.store import GenerationSettings


def _double(low: float, high: float, step: float, decimals: int = 2) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setDecimals(decimals)
    return box


def _int(low: int, high: int, step: int = 1, special: str = "") -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    if special:
        box.setSpecialValueText(special)  # shown for the minimum value
    return box


class SettingsPanel(QWidget):
    """Edits a :class:`GenerationSettings`; emits ``changed`` on every edit."""

    changed = Signal(object)  # GenerationSettings

    def __init__(self, gpu_offload: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._updating = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)

        sampling = QGroupBox("Sampling")
        form = QFormLayout(sampling)
        self.temperature = _double(0.0, 2.0, 0.05)
        self.temperature.setToolTip("0 is greedy: the reply is exactly the target's own greedy reply")
        self.top_k = _int(0, 500, special="off")
        self.top_p = _double(0.01, 1.0, 0.01)
        self.min_p = _double(0.0, 0.99, 0.01)
        self.repeat_penalty = _double(0.5, 2.0, 0.05)
        self.seed = _int(-1, 2_147_483_647, special="random")
        form.addRow("Temperature", self.temperature)
        form.addRow("Top-k", self.top_k)
        form.addRow("Top-p", self.top_p)
        form.addRow("Min-p", self.min_p)
        form.addRow("Repeat penalty", self.repeat_penalty)
        form.addRow("Seed", self.seed)
        layout.addWidget(sampling)

        speculation = QGroupBox("Speculation")
        form = QFormLayout(speculation)
        self.draft_length = _int(0, 16)
        self.draft_length.setToolTip("tokens the drafter proposes per verify step (0 turns drafting off)")
        self.adaptive = QCheckBox("Adaptive")
        self.adaptive.setToolTip(
            "choose the draft length every step from the measured costs and acceptance, and turn drafting "
            "off when it loses (the draft length above becomes a floor on the maximum)"
        )
        form.addRow("Draft length", self.draft_length)
        form.addRow("", self.adaptive)
        layout.addWidget(speculation)

        reply = QGroupBox("Reply")
        form = QFormLayout(reply)
        self.max_tokens = _int(16, 16_384, 16)
        self.system_prompt = QPlainTextEdit()
        self.system_prompt.setPlaceholderText("optional system prompt")
        self.system_prompt.setFixedHeight(64)
        form.addRow("Max tokens", self.max_tokens)
        form.addRow("System", self.system_prompt)
        layout.addWidget(reply)

        loading = QGroupBox("Loading (applies on the next load)")
        form = QFormLayout(loading)
        self.n_ctx = _int(256, 131_072, 256)
        self.n_threads = _int(0, 256, special="Auto")
        self.n_threads.setToolTip("Auto measures which thread count is fastest with what else runs here, and re-checks")
        self.n_gpu_layers = _int(0, 999)
        self.n_gpu_layers_draft = _int(0, 999)
        form.addRow("Context size", self.n_ctx)
        form.addRow("Threads", self.n_threads)
        form.addRow("GPU layers, target", self.n_gpu_layers)
        form.addRow("GPU layers, draft", self.n_gpu_layers_draft)
        if not gpu_offload:
            for spin in (self.n_gpu_layers, self.n_gpu_layers_draft):
                spin.setEnabled(False)
                spin.setToolTip("this llama.cpp build runs on the CPU only")
            note = QLabel("This llama.cpp build has no GPU offload: both models run on the CPU.")
            note.setWordWrap(True)
            note.setEnabled(False)
            form.addRow(note)
        layout.addWidget(loading)

        self.reset_button = QPushButton("Reset to defaults")
        self.reset_button.clicked.connect(lambda: self.set_settings(GenerationSettings(), emit=True))
        layout.addWidget(self.reset_button)
        layout.addStretch(1)

        for box in (self.temperature, self.top_p, self.min_p, self.repeat_penalty):
            box.valueChanged.connect(self._emit)
        for spin in (
            self.top_k,
            self.seed,
            self.draft_length,
            self.max_tokens,
            self.n_ctx,
            self.n_threads,
            self.n_gpu_layers,
            self.n_gpu_layers_draft,
        ):
            spin.valueChanged.connect(self._emit)
        self.adaptive.toggled.connect(self._emit)
        self.system_prompt.textChanged.connect(self._emit)

    def settings(self) -> GenerationSettings:
        """What the controls show."""
        return GenerationSettings(
            temperature=round(self.temperature.value(), 4),
            top_k=self.top_k.value(),
            top_p=round(self.top_p.value(), 4),
            min_p=round(self.min_p.value(), 4),
            repeat_penalty=round(self.repeat_penalty.value(), 4),
            seed=self.seed.value(),
            draft_length=self.draft_length.value(),
            adaptive=self.adaptive.isChecked() and self.adaptive.isEnabled(),
            max_tokens=self.max_tokens.value(),
            n_ctx=self.n_ctx.value(),
            n_gpu_layers=self.n_gpu_layers.value(),
            n_gpu_layers_draft=self.n_gpu_layers_draft.value(),
            n_threads=self.n_threads.value(),
            system_prompt=self.system_prompt.toPlainText(),
        )

    def set_settings(self, s: GenerationSettings, emit: bool = False) -> None:
        """Show ``s``; ``changed`` fires only when ``emit`` is set."""
        self._updating = True
        try:
            self.temperature.setValue(s.temperature)
            self.top_k.setValue(s.top_k)
            self.top_p.setValue(s.top_p)
            self.min_p.setValue(s.min_p)
            self.repeat_penalty.setValue(s.repeat_penalty)
            self.seed.setValue(s.seed)
            self.draft_length.setValue(s.draft_length)
            self.adaptive.setChecked(s.adaptive)
            self.max_tokens.setValue(s.max_tokens)
            self.n_ctx.setValue(s.n_ctx)
            self.n_threads.setValue(s.n_threads)
            self.n_gpu_layers.setValue(s.n_gpu_layers)
            self.n_gpu_layers_draft.setValue(s.n_gpu_layers_draft)
            if self.system_prompt.toPlainText() != s.system_prompt:
                self.system_prompt.setPlainText(s.system_prompt)
        finally:
            self._updating = False
        if emit:
            self._emit()

    def _emit(self) -> None:
        if not self._updating:
            self.changed.emit(self.settings())
