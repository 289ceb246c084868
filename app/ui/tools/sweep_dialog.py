"""The temperature sweep: acceptance against temperature for the loaded pair.

Three curves: the acceptance measured, and the expected acceptance of the two
verification rules from the same p_target and q_draft rows, exact rejection
sampling (sum min(p, q)) and sample-and-match (sum p * q). The gap between the
last two is what "temperature kills acceptance" means, and what exact
verification recovers.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QWidget,
)

from app.core.bench.verdict import sweep_conclusion_words
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.ui import theme
from app.ui.i18n.words import say
from app.ui.stats.charts import LineChart, Series
from app.ui.threads.jobs import ComparisonJob, RunSummary
from app.ui.threads.worker import EngineHost
from app.ui.tools.run_dialog import RunDialog


class SweepDialog(RunDialog):
    """Acceptance rate against temperature for the loaded pair."""

    def __init__(self, host: EngineHost, job: ComparisonJob, parent: QWidget | None = None) -> None:
        # Translated before the QObject exists, so with the class named.
        super().__init__(host, job, QCoreApplication.translate("SweepDialog", "Temperature sweep"), parent)
        self.resize(640, 460)
        # Zoomed to the measured rates (a few points apart), not 0-100 %: the differences are the finding.
        self.chart = LineChart(self.tr("temperature"), self.tr("acceptance rate"), y_from_zero=False)
        self.chart.x_range = (min(job.temperatures), max(job.temperatures)) if job.temperatures else None
        self.conclusion = QLabel("")  # the sweep in one sentence (app.core.bench.verdict)
        self.conclusion.setWordWrap(True)
        self.table = QLabel("")
        self.table.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.chart, 1)
        self.layout_.addLayout(row, 1)
        self.layout_.addWidget(self.conclusion)
        self.layout_.addWidget(self.table)
        self.layout_.addWidget(self.buttons)

    def points(self) -> list[tuple[float, float]]:
        """(temperature, measured acceptance of the verified drafts) so far: the rules' measured counterpart."""
        return [(r.temperature, float(r.stats.get("verified_acceptance_rate", 0.0))) for r in self.runs]

    def rule_points(self, key: str) -> list[tuple[float, float]]:
        """(temperature, expected acceptance under one rule) so far; ``key`` is a statistics field."""
        return [(r.temperature, float(r.stats.get(key, 0.0))) for r in self.runs]

    def run_added(self, run: RunSummary) -> None:
        """Add a point."""
        self.chart.set_series(
            [
                Series(self.tr("measured"), self.points()),
                Series(
                    self.tr("exact rejection sampling"),
                    self.rule_points("rejection_sampling_expected"),
                    theme.OKABE_ITO["blue"],
                ),
                Series(
                    self.tr("sample-and-match"),
                    self.rule_points("sample_and_match_expected"),
                    theme.OKABE_ITO["orange"],
                ),
            ]
        )
        exact, match = self.rule_points("rejection_sampling_expected"), self.rule_points("sample_and_match_expected")
        self.conclusion.setText(say(sweep_conclusion_words(exact, match)))
        self.table.setText(
            "   ".join(
                say(
                    QT_TRANSLATE_NOOP(
                        "SweepDialog",
                        "T={t:g}: {measured:.0%} measured, {exact:.0%} exact vs {match:.0%} match expected, "
                        "{rate:.1f} tok/s",
                    ).fill(
                        t=r.temperature,
                        measured=float(r.stats.get("verified_acceptance_rate", 0.0)),
                        exact=float(r.stats.get("rejection_sampling_expected", 0.0)),
                        match=float(r.stats.get("sample_and_match_expected", 0.0)),
                        rate=float(r.stats["tokens_per_second"]),
                    )
                )
                for r in self.runs
            )
        )
