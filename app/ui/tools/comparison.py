"""A/B comparison and temperature sweep, both run on the engine thread with the loaded pair.

A/B reruns the last prompt target-only and then with the drafter, same seed
and settings, and shows both rates, the speedup and whether the greedy
outputs match token for token (on real models a divergence comes from
batched-vs-single numerics at a near-tie, see docs/architecture.md, so it is reported, not
hidden). The sweep plots acceptance against temperature for the current pair.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.decoding.divergence import first_divergence
from app.core.decoding.sampling import SamplingParams
from app.engine.llama.session import DrafterKind
from app.ui import theme
from app.ui.charts import LineChart, Series
from app.ui.worker import ComparisonJob, EngineHost, RunSummary


class _RunDialog(QDialog):
    """Shared plumbing: start a job, follow progress, cancel, disconnect when closed."""

    def __init__(self, host: EngineHost, job: ComparisonJob, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self._host = host
        self._job = job
        self.runs: list[RunSummary] = []
        self.complete = False
        self.layout_ = QVBoxLayout(self)
        self.progress_label = QLabel("starting…")
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.layout_.addWidget(self.progress_label)
        self.layout_.addWidget(self.progress)
        self.buttons = QDialogButtonBox()
        self.stop_button = QPushButton("Stop")
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
        self.progress_label.setText(f"<b>Failed:</b> {html.escape(message)}")

    def _on_finished(self) -> None:
        self.complete = True
        self.progress.setVisible(False)
        self.stop_button.setEnabled(False)
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
        self.progress_label.setText("stopping after the current step…")

    def _closed(self, result: int) -> None:
        # Closing the dialog stops the job; the engine finishes its current step and moves on.
        if not self.complete:
            self._job.cancel.set()

    def run_added(self, run: RunSummary) -> None:
        """A run finished."""

    def all_done(self) -> None:
        """Every run finished (or the job stopped)."""


class ABDialog(_RunDialog):
    """Target-only vs speculative on the same prompt and settings."""

    baseline_measured = Signal(float)  # target-only tokens/s

    def __init__(self, host: EngineHost, job: ComparisonJob, parent: QWidget | None = None) -> None:
        super().__init__(host, job, "A/B: target only vs speculative", parent)
        self.resize(820, 560)
        grid = QGridLayout()
        self.rates: dict[str, QLabel] = {}
        for column, key, title in ((0, "baseline", "Target only"), (1, "speculative", "With the drafter")):
            heading = QLabel(f"<b>{title}</b>")
            rate = QLabel("–")
            text = QPlainTextEdit()
            text.setReadOnly(True)
            text.setFont(theme.monospace_font())
            grid.addWidget(heading, 0, column)
            grid.addWidget(rate, 1, column)
            grid.addWidget(text, 2, column)
            self.rates[key] = rate
            setattr(self, f"{key}_text", text)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.layout_.addLayout(grid, 1)
        self.layout_.addWidget(self.summary)
        self.layout_.addWidget(self.buttons)
        self.speedup: float | None = None
        self.outputs_match: bool | None = None

    def run_added(self, run: RunSummary) -> None:
        """Fill in one side."""
        key = "baseline" if run.drafter is DrafterKind.NONE else "speculative"
        stats = run.stats
        line = f"{stats['tokens_per_second']:.1f} tok/s · {stats['emitted']} tokens · {stats['steps']} target passes"
        if stats.get("drafted"):
            line += f" · acceptance {stats['acceptance_rate']:.0%} · drafter {run.drafter.value}"
        self.rates[key].setText(line)
        getattr(self, f"{key}_text").setPlainText(run.text)
        if key == "baseline" and stats["tokens_per_second"] > 0 and run.reason.value != "cancelled":
            self.baseline_measured.emit(float(stats["tokens_per_second"]))

    def all_done(self) -> None:
        """Speedup and output match."""
        if len(self.runs) < 2:
            self.summary.setText("Stopped before both runs finished." if self.runs else "")
            return
        base, spec = self.runs[0], self.runs[1]
        b, s = base.stats["tokens_per_second"], spec.stats["tokens_per_second"]
        self.speedup = s / b if b > 0 else None
        verdict = "faster" if self.speedup and self.speedup >= 1 else "slower"
        parts = [f"<b>Speedup: {self.speedup:.2f}×</b> ({verdict} with the drafter on this machine)"]
        divergence = first_divergence(base.token_ids, spec.token_ids)
        self.outputs_match = divergence is None
        if base.temperature > 0:
            parts.append(
                "Sampled at temperature "
                f"{base.temperature:g}: both runs follow the target's distribution, so the texts may differ."
            )
        elif divergence is None:
            parts.append(f"Greedy outputs match token for token ({len(base.token_ids)} tokens).")
        else:
            parts.append(
                f"Greedy outputs match for the first {divergence} tokens, then diverge: batched and single-token "
                "passes round differently, which flips a near-tie between the target's top two tokens."
            )
        self.summary.setText("<br>".join(parts))


class SweepDialog(_RunDialog):
    """Acceptance rate against temperature for the loaded pair."""

    def __init__(self, host: EngineHost, job: ComparisonJob, parent: QWidget | None = None) -> None:
        super().__init__(host, job, "Temperature sweep", parent)
        self.resize(640, 460)
        self.chart = LineChart("temperature", "acceptance rate")
        self.chart.x_range = (min(job.temperatures), max(job.temperatures)) if job.temperatures else None
        self.table = QLabel("")
        self.table.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.chart, 1)
        self.layout_.addLayout(row, 1)
        self.layout_.addWidget(self.table)
        self.layout_.addWidget(self.buttons)

    def points(self) -> list[tuple[float, float]]:
        """(temperature, acceptance rate) so far."""
        return [(r.temperature, float(r.stats["acceptance_rate"])) for r in self.runs]

    def run_added(self, run: RunSummary) -> None:
        """Add a point."""
        self.chart.set_series([Series("acceptance", self.points())])
        self.table.setText(
            "   ".join(
                f"T={r.temperature:g}: {r.stats['acceptance_rate']:.0%}, {r.stats['tokens_per_second']:.1f} tok/s"
                for r in self.runs
            )
        )


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
