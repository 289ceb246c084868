"""The temperature sweep: acceptance against temperature for the loaded pair."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QWidget,
)

from app.ui.charts import LineChart, Series
from app.ui.tools.run_dialog import RunDialog
from app.ui.worker import ComparisonJob, EngineHost, RunSummary


class SweepDialog(RunDialog):
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
