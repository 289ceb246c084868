"""A/B: the last prompt rerun target-only and with the drafter, same seed, system prompt and settings.

Each arm runs several times (interleaved); the dialog shows each arm's median
and min-max, and claims a speedup only when the ranges do not overlap and the
drafter proposed something (app.core.bench.verdict decides). It also shows
whether the greedy outputs match token for token. On real models a divergence comes from batched-vs-single numerics
at a near-tie (see docs/architecture.md, "Exactness"), so it is reported, not
hidden.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from app.core.bench.verdict import ABVerdict, Spread, ab_verdict
from app.core.decoding.divergence import first_divergence
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.engine.llama.session import DrafterKind
from app.ui import theme
from app.ui.i18n.words import number, say
from app.ui.threads.jobs import ComparisonJob, RunSummary, drafter_label
from app.ui.threads.worker import EngineHost
from app.ui.tools.run_dialog import RunDialog


class ABDialog(RunDialog):
    """Target-only vs speculative on the same prompt and settings."""

    baseline_measured = Signal(float)  # target-only tokens/s (the median of its runs)
    rerun_requested = Signal(int)  # "Run again" with this many runs per side

    def __init__(self, host: EngineHost, job: ComparisonJob, parent: QWidget | None = None) -> None:
        # Translated before the QObject exists, so with the class named.
        super().__init__(host, job, QCoreApplication.translate("ABDialog", "A/B: target only vs speculative"), parent)
        self.resize(820, 560)
        grid = QGridLayout()
        self.rates: dict[str, QLabel] = {}
        sides = ((0, "baseline", self.tr("Target only")), (1, "speculative", self.tr("With the drafter")))
        for column, key, title in sides:
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
        self.repeats = QSpinBox()
        self.repeats.setRange(1, 20)
        self.repeats.setValue(job.repeats)
        self.repeats.setPrefix(self.tr("runs per side: "))
        self.repeats.setToolTip(
            self.tr("more runs measure the run-to-run spread better; a speedup is claimed only beyond it")
        )
        self.run_again = QPushButton(self.tr("Run again"))
        self.run_again.setEnabled(False)
        self.run_again.clicked.connect(lambda: self.rerun_requested.emit(self.repeats.value()))
        self.buttons.addButton(self.run_again, QDialogButtonBox.ButtonRole.ActionRole)
        self.layout_.addWidget(self.repeats)
        self.layout_.addWidget(self.buttons)
        self.speedup: float | None = None  # claimed only when the arms' ranges are disjoint
        self.verdict: ABVerdict | None = None
        self.outputs_match: bool | None = None

    def arm(self, key: str) -> list[RunSummary]:
        """The finished runs of one arm ("baseline" or "speculative"), in order."""
        baseline = key == "baseline"
        return [r for r in self.runs if (r.drafter is DrafterKind.NONE) == baseline]

    def run_added(self, run: RunSummary) -> None:
        """Update one side: its median and spread so far, and the first run's text."""
        key = "baseline" if run.drafter is DrafterKind.NONE else "speculative"
        runs = self.arm(key)
        spread = Spread.of([float(r.stats["tokens_per_second"]) for r in runs])
        stats = run.stats
        line = self.tr("{spread} · {tokens} tokens · {passes} target passes").format(
            spread=say(spread.words()), tokens=stats["emitted"], passes=stats["steps"]
        )
        drafted = sum(int(r.stats.get("drafted", 0)) for r in runs)
        if key == "speculative":
            accepted = sum(int(r.stats.get("accepted", 0)) for r in runs)
            line += " · " + self.tr("drafted {n}").format(n=drafted)
            if drafted:
                line += " · " + self.tr("acceptance {rate}").format(rate=number(accepted / drafted, ".0%"))
            line += " · " + self.tr("drafter {name}").format(name=drafter_label(run.drafter.value))
        self.rates[key].setText(line)
        if len(runs) == 1:
            getattr(self, f"{key}_text").setPlainText(run.text)

    def all_done(self) -> None:
        """The verdict (within the spread or not) and whether the outputs match."""
        self.run_again.setEnabled(True)
        base_runs, spec_runs = self.arm("baseline"), self.arm("speculative")
        if not base_runs or not spec_runs:
            self.summary.setText(self.tr("Stopped before both sides ran.") if self.runs else "")
            return
        base_rates = [float(r.stats["tokens_per_second"]) for r in base_runs]
        drafted = sum(int(r.stats.get("drafted", 0)) for r in spec_runs)
        self.verdict = ab_verdict(base_rates, [float(r.stats["tokens_per_second"]) for r in spec_runs], drafted)
        self.speedup = self.verdict.ratio
        median = Spread.of(base_rates).median
        if median > 0:
            self.baseline_measured.emit(median)
        parts = [
            self.tr("<b>{verdict}</b> ({base} + {spec} runs, medians and min–max)").format(
                verdict=html.escape(say(self.verdict.words)), base=len(base_runs), spec=len(spec_runs)
            )
        ]
        base, spec = base_runs[0], spec_runs[0]
        divergence = first_divergence(base.token_ids, spec.token_ids)
        self.outputs_match = divergence is None
        if base.temperature > 0:
            parts.append(
                say(
                    QT_TRANSLATE_NOOP(
                        "ABDialog",
                        "Sampled at temperature {t:g}: both runs follow the target's distribution, "
                        "so the texts may differ.",
                    ).fill(t=base.temperature)
                )
            )
        elif divergence is None:
            parts.append(self.tr("Greedy outputs match token for token ({n} tokens).").format(n=len(base.token_ids)))
        else:
            parts.append(
                self.tr(
                    "Greedy outputs match for the first {n} tokens, then diverge: batched and single-token "
                    "passes round differently, which flips a near-tie between the target's top two tokens."
                ).format(n=divergence)
            )
        self.summary.setText("<br>".join(parts))
