"""Pre-flight in the window: measure this machine, predict the speedup per draft length, seed the controller."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from app.core.decoding.sampling import SamplingParams
from app.ui import theme
from app.ui.worker import EngineHost


class PreflightDialog(QDialog):
    """Pre-flight: measure draft and verify costs and acceptance here, predict the speedup per draft length."""

    baseline_measured = Signal(float)  # the predicted target-only tokens/s

    def __init__(self, host: EngineHost, params: SamplingParams, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Pre-flight: will speculation pay on this machine?")
        self.resize(900, 560)
        self._host = host
        self._params = params
        self.report: Any = None
        self.complete = False
        layout = QVBoxLayout(self)
        self.progress_label = QLabel("measuring…")
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.recommendation = QLabel("")
        self.recommendation.setWordWrap(True)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setFont(theme.monospace_font())
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        for widget in (self.progress_label, self.progress, self.recommendation):
            layout.addWidget(widget)
        layout.addWidget(self.details, 1)
        layout.addWidget(buttons)
        worker = host.worker
        self._connections = (
            (worker.preflight_progress, self._on_progress),
            (worker.preflight_done, self._on_done),
            (worker.error, self._on_error),
            (worker.comparison_finished, self._on_finished),
        )
        for signal, slot in self._connections:
            signal.connect(slot)

    def start(self) -> None:
        """Queue the measurement on the engine thread."""
        self._host.preflight(self._params)

    def _on_progress(self, stage: str, fraction: float) -> None:
        self.progress_label.setText(f"measuring {stage}…")
        self.progress.setValue(int(100 * fraction))

    def _on_done(self, report: Any) -> None:
        from app.engine.bench.preflight import format_report

        self.report = report
        self.recommendation.setText(f"<b>{html.escape(str(report.recommendation))}</b>")
        self.details.setPlainText(format_report(report))
        if report.predictions and report.predictions[0].tokens_per_s > 0:
            self.baseline_measured.emit(float(report.predictions[0].tokens_per_s))

    def _on_error(self, message: str) -> None:
        self.progress_label.setText(f"Failed: {message}")

    def _on_finished(self) -> None:
        self.complete = True
        self.progress.setVisible(False)
        if self.report is not None:
            self.progress_label.setText(f"measured in {self.report.wall_s:.1f} s; the adaptive controller now uses it")
        for signal, slot in self._connections:
            signal.disconnect(slot)
