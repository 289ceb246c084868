"""The Preferences dialog (Ctrl+, ; the application menu on macOS): this machine's settings in one place.

It holds what :class:`~app.ui.settings.store.AppSettings` keeps for the
machine rather than for a chat: the theme (applied live), whether Enter or
only Ctrl+Enter sends, and how the models are loaded (context size, threads,
GPU layers; the same values as the Settings tab's "This machine" box, which
follows). What a chat is generated with stays in the Settings tab, with the
chat.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.ui import theme
from app.ui.i18n.install import Language
from app.ui.i18n.language_box import LanguageBox
from app.ui.settings.store import GenerationSettings


@dataclass(frozen=True, slots=True)
class Preferences:
    """What the dialog edits: the look, the send key, the loading settings and the language (next start)."""

    theme: str
    send_with_ctrl_enter: bool
    generation: GenerationSettings
    language: Language = Language.SYSTEM


def _spin(low: int, high: int, step: int = 1, special: str = "") -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    if special:
        box.setSpecialValueText(special)
    return box


class PreferencesDialog(QDialog):
    """Edits :class:`Preferences`; :meth:`preferences` reads them back after OK."""

    def __init__(self, current: Preferences, gpu_offload: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Preferences"))
        layout = QVBoxLayout(self)

        look = QGroupBox(self.tr("Look and keys"))
        form = QFormLayout(look)
        self.theme = QComboBox()
        for name in theme.THEMES:
            self.theme.addItem(self._theme_label(name), name)
        self.theme.setCurrentIndex(max(0, self.theme.findData(current.theme)))
        self.theme.setToolTip(self.tr("applies at once; System is the platform's own look"))
        form.addRow(self.tr("Theme"), self.theme)
        self.ctrl_enter = QCheckBox(self.tr("Send with Ctrl+Enter"))
        self.ctrl_enter.setToolTip(
            self.tr("on: Enter adds a line and Ctrl+Enter sends; off: Enter sends, Shift+Enter adds a line")
        )
        self.ctrl_enter.setChecked(current.send_with_ctrl_enter)
        form.addRow("", self.ctrl_enter)
        self.language = LanguageBox(current.language)
        form.addRow(self.language.title(), self.language)
        layout.addWidget(look)

        machine = QGroupBox(self.tr("Loading the models (applies on the next load)"))
        form = QFormLayout(machine)
        g = current.generation
        self.n_ctx = _spin(256, 131_072, 256)
        self.n_ctx.setValue(g.n_ctx)
        self.n_threads = _spin(0, 256, special=self.tr("Auto"))
        self.n_threads.setValue(g.n_threads)
        self.n_gpu_layers = _spin(0, 999)
        self.n_gpu_layers.setValue(g.n_gpu_layers)
        self.n_gpu_layers_draft = _spin(0, 999)
        self.n_gpu_layers_draft.setValue(g.n_gpu_layers_draft)
        form.addRow(self.tr("Context size"), self.n_ctx)
        form.addRow(self.tr("Threads"), self.n_threads)
        form.addRow(self.tr("GPU layers, target"), self.n_gpu_layers)
        form.addRow(self.tr("GPU layers, draft"), self.n_gpu_layers_draft)
        if not gpu_offload:
            for spin in (self.n_gpu_layers, self.n_gpu_layers_draft):
                spin.setEnabled(False)
            note = QLabel(self.tr("This llama.cpp build has no GPU offload: both models run on the CPU."))
            note.setWordWrap(True)
            form.addRow(note)
        layout.addWidget(machine)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _theme_label(self, name: str) -> str:
        """A theme's name as the list shows it (an unknown one capitalised as it is)."""
        labels = {"system": self.tr("System"), "light": self.tr("Light"), "dark": self.tr("Dark")}
        return labels.get(name, name.capitalize())

    def preferences(self) -> Preferences:
        """What the controls show."""
        return Preferences(
            theme=str(self.theme.currentData()),
            send_with_ctrl_enter=self.ctrl_enter.isChecked(),
            generation=GenerationSettings(
                n_ctx=self.n_ctx.value(),
                n_gpu_layers=self.n_gpu_layers.value(),
                n_gpu_layers_draft=self.n_gpu_layers_draft.value(),
                n_threads=self.n_threads.value(),
            ),
            language=self.language.chosen(),
        )
