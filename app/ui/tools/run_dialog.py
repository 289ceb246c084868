"""The plumbing the A/B and sweep dialogs share: start a comparison job, follow it, cancel it, let go when closed."""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.threads.jobs import ComparisonJob, RunSummary
from app.ui.threads.worker import EngineHost


class RunDialog(QDialog):
    """Shared plumbing: start a job, follow progress, cancel, disconnect when closed."""

    def __init__(self, host: EngineHost, job: ComparisonJob, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self._host = host
        self._job = job
        self.runs: list[RunSummary] = []
        self.complete = False
        self._failed = False  # an error's line stays on screen when the job ends
        self.layout_ = QVBoxLayout(self)
        self.progress_label = QLabel(QCoreApplication.translate("RunDialog", "starting…"))
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.layout_.addWidget(self.progress_label)
        self.layout_.addWidget(self.progress)
        self.buttons = QDialogButtonBox()
        self.stop_button = QPushButton(QCoreApplication.translate("RunDialog", "Stop"))
        self.stop_button.clicked.connect(self._stop)
        self.buttons.addButton(self.stop_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close).clicked.connect(self.reject)
        self.finished.connect(self._closed)
        worker = host.worker
        worker.comparison_progress.connect(self._on_progress)
        worker.comparison_run.connect(self._on_run)
        worker.comparison_finished.connect(self._on_finished)
        worker.error.connect(self._on_error)

    def start(self) -> None:
        """Queue the job on the engine thread."""
        self._host.compare(self._job)

    def _on_progress(self, text: str) -> None:
        self.progress_label.setText(text)

    def _on_run(self, run: RunSummary) -> None:
        self.runs.append(run)
        self.run_added(run)

    def _on_error(self, message: str) -> None:
        self._failed = True
        self.progress_label.setText(
            QCoreApplication.translate("RunDialog", "<b>Failed:</b> {message}").format(message=html.escape(message))
        )

    def _on_finished(self) -> None:
        self.complete = True
        self.progress.setVisible(False)
        self.stop_button.setEnabled(False)
        if self._job.cancel.is_set():  # "stopping…" would otherwise stay on screen
            self.progress_label.setText(stopped_text(len(self.runs)))
        elif not self._failed:
            self.progress_label.setText(QCoreApplication.translate("RunDialog", "done"))
        worker = self._host.worker
        for signal, slot in (
            (worker.comparison_progress, self._on_progress),
            (worker.comparison_run, self._on_run),
            (worker.comparison_finished, self._on_finished),
            (worker.error, self._on_error),
        ):
            signal.disconnect(slot)
        self.all_done()

    def _stop(self) -> None:
        self._job.cancel.set()
        self.progress_label.setText(QCoreApplication.translate("RunDialog", "stopping after the current step…"))

    def _closed(self, result: int) -> None:
        # Closing the dialog stops the job; the engine finishes its current step and moves on.
        if not self.complete:
            self._job.cancel.set()

    def run_added(self, run: RunSummary) -> None:
        """A run finished."""

    def all_done(self) -> None:
        """Every run finished (or the job stopped)."""


def stopped_text(runs: int) -> str:
    """The line a stopped job ends on (one run, or a count: English and German share the rule)."""
    if runs == 1:
        return QCoreApplication.translate("RunDialog", "stopped: 1 run finished")
    return QCoreApplication.translate("RunDialog", "stopped: {n} runs finished").format(n=runs)
