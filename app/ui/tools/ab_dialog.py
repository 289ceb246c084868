"""A/B: the last prompt rerun target-only and then with the drafter, same seed and settings.

It shows both rates, the speedup and whether the greedy outputs match token
for token. On real models a divergence comes from batched-vs-single numerics
at a near-tie (see docs/architecture.md, "Exactness"), so it is reported, not
hidden.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QWidget,
)

from app.core.decoding.divergence import first_divergence
from app.engine.llama.session import DrafterKind
from app.ui import theme
from app.ui.threads.worker import ComparisonJob, EngineHost, RunSummary
from app.ui.tools.run_dialog import RunDialog


class ABDialog(RunDialog):
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
