"""Pre-flight in the window: measure this machine, predict the speedup per draft length, seed the controller.

When pre-flight predicts that a Q4_0 copy of the draft (output layer included)
would be faster here, the dialog offers to make it: llama.cpp's quantiser runs
on a pool thread (it reads files and never touches the loaded models), and
the copy lands in the models folder, where the pair picker lists it. Once it
is made, "Use it as the draft" asks the window to load the same pair with
the copy in the draft's place (and closes the dialog).

The detail is a small chart of the predicted speedup per draft length (with
the 1x line of the target alone); the full table is folded away under
"Show the table". The window builds that table itself from the report's
numbers (:func:`report_table`: its headings in the window's language, its
numbers in the locale's marks); ``format_report`` stays the CLI's English.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.decoding.sampling import SamplingParams
from app.core.display.units import format_bytes
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.ui import theme
from app.ui.i18n.words import number, say, say_error
from app.ui.stats.charts import LineChart, Series, times
from app.ui.threads.background import Background
from app.ui.threads.worker import EngineHost


class PreflightDialog(QDialog):
    """Pre-flight: measure draft and verify costs and acceptance here, predict the speedup per draft length."""

    baseline_measured = Signal(float)  # the predicted target-only tokens/s
    cheaper_draft_made = Signal(object)  # the Path of the new draft file
    use_draft = Signal(object)  # the Path of a draft to load in place of the pair's (the cheaper copy)

    def __init__(self, host: EngineHost, params: SamplingParams, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Pre-flight: will speculation pay on this machine?"))
        self.resize(900, 560)
        self._host = host
        self._params = params
        self.report: Any = None
        self.complete = False
        layout = QVBoxLayout(self)
        self.progress_label = QLabel(self.tr("measuring…"))
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.recommendation = QLabel("")
        self.recommendation.setWordWrap(True)
        self.chart = LineChart(
            self.tr("draft length (tokens per step)"),
            self.tr("predicted speedup"),
            y_format=times,
            y_bounds=None,
            y_marks=(1.0,),  # the target alone: on a tick, or drawn labelled where no round step reaches it
        )
        self.chart.setVisible(False)  # shown once there are predictions
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setFont(theme.monospace_font())
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.details.setVisible(False)  # folded: the chart says it; the table is there for the figures
        self.show_table = QToolButton()
        self.show_table.setText(self.tr("Show the table"))
        self.show_table.setCheckable(True)
        self.show_table.setArrowType(Qt.ArrowType.RightArrow)
        self.show_table.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.show_table.toggled.connect(self._fold_table)
        self.show_table.setEnabled(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.cheaper = QLabel("")
        self.cheaper.setWordWrap(True)
        self.cheaper.setVisible(False)
        self.make_cheaper = QPushButton(self.tr("Make the cheaper draft"))
        self.make_cheaper.setToolTip(
            self.tr("re-quantise the draft to Q4_0 (its output layer too) into the models folder")
        )
        self.make_cheaper.setVisible(False)
        self.make_cheaper.clicked.connect(self._make_cheaper_draft)
        self.use_cheaper = QPushButton(self.tr("Use it as the draft"))
        self.use_cheaper.setToolTip(self.tr("load this pair again with the cheaper copy as its draft"))
        self.use_cheaper.setVisible(False)
        self.use_cheaper.clicked.connect(self._use_cheaper_draft)
        # The window's pool when there is one: a quantise outlives a closed dialog and still finishes (atomically).
        shared = getattr(parent, "background", None)
        self._background = shared if isinstance(shared, Background) else Background(self, workers=1)
        self._closed = False
        self.made_path: Path | None = None
        widgets = (self.progress_label, self.progress, self.recommendation, self.cheaper, self.make_cheaper)
        for widget in (*widgets, self.use_cheaper):
            layout.addWidget(widget)
        layout.addWidget(self.chart, 1)
        layout.addWidget(self.show_table)
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
        self.progress_label.setText(
            self.tr("measuring {stage}…").format(stage=QCoreApplication.translate("PreflightStage", stage))
        )
        self.progress.setValue(int(100 * fraction))

    def _on_done(self, report: Any) -> None:
        self.report = report
        self.recommendation.setText(f"<b>{html.escape(say(report.recommendation))}</b>")
        self.details.setPlainText(report_table(report))
        self.show_table.setEnabled(True)
        predictions = list(report.predictions)
        if predictions:
            points = [(float(p.k), float(p.speedup)) for p in predictions]
            ks = (points[0][0], points[-1][0])
            self.chart.x_range = ks if ks[1] > ks[0] else None
            self.chart.set_series(
                [
                    Series(self.tr("predicted speedup"), points, theme.OKABE_ITO["blue"]),
                    Series(self.tr("target alone (1×)"), [(ks[0], 1.0), (ks[1], 1.0)], theme.OKABE_ITO["orange"]),
                ]
            )
            self.chart.setVisible(True)
        if report.predictions and report.predictions[0].tokens_per_s > 0:
            self.baseline_measured.emit(float(report.predictions[0].tokens_per_s))
        verdict = report.cheaper_draft
        if verdict is not None:
            self.cheaper.setText(say(verdict.words))
            self.cheaper.setVisible(True)
            made = Path(verdict.path).is_file()
            self.make_cheaper.setVisible(verdict.pays and not made and report.draft_path is not None)
            if made:
                self.cheaper.setText(
                    say(verdict.words)
                    + " "
                    + self.tr("It is already made: {name}.").format(name=Path(verdict.path).name)
                )
                self.made_path = Path(verdict.path)
                self.use_cheaper.setVisible(report.draft_path is not None and Path(report.draft_path) != self.made_path)

    def _fold_table(self, shown: bool) -> None:
        self.details.setVisible(shown)
        self.show_table.setText(self.tr("Hide the table") if shown else self.tr("Show the table"))
        self.show_table.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    def _make_cheaper_draft(self) -> None:
        from app.engine.llama.quantize import make_cheaper_draft  # imports llama_cpp: only when asked

        source = Path(str(self.report.draft_path))
        self.make_cheaper.setEnabled(False)
        self.make_cheaper.setText(self.tr("Making the cheaper draft…"))
        self._background.submit(lambda: make_cheaper_draft(source), self._on_made, self._on_make_failed)

    def done(self, result: int) -> None:
        """Closed: a quantise still running finishes without touching this dialog's widgets."""
        self._closed = True
        super().done(result)

    def _on_made(self, path: Path) -> None:
        if self._closed:
            return
        self.made_path = path
        self.make_cheaper.setVisible(False)
        self.cheaper.setText(
            self.tr(
                "Made {name} ({size}) in the models folder. Use it as the draft "
                "(or choose it in the pair picker later) and run pre-flight again to measure it."
            ).format(name=path.name, size=format_bytes(path.stat().st_size))
        )
        self.use_cheaper.setVisible(True)
        self.cheaper_draft_made.emit(path)

    def _use_cheaper_draft(self) -> None:
        if self.made_path is not None:
            self.use_draft.emit(self.made_path)
            self.accept()

    def _on_make_failed(self, exc: Exception) -> None:
        if self._closed:
            return
        self.make_cheaper.setEnabled(True)
        self.make_cheaper.setText(self.tr("Make the cheaper draft"))
        self.cheaper.setText(
            self.tr("The cheaper draft could not be made (nothing was written): {error}").format(error=say_error(exc))
        )

    def _on_error(self, message: str) -> None:
        self.progress_label.setText(self.tr("Failed: {message}").format(message=message))

    def _on_finished(self) -> None:
        self.complete = True
        self.progress.setVisible(False)
        if self.report is not None:
            self.progress_label.setText(
                say(
                    QT_TRANSLATE_NOOP(
                        "PreflightDialog", "measured in {seconds:.1f} s; the adaptive controller now uses it"
                    ).fill(seconds=float(self.report.wall_s))
                )
            )
        for signal, slot in self._connections:
            signal.disconnect(slot)


def report_table(report: Any) -> str:
    """The measured costs and the prediction per draft length, as the window's text table.

    The figures ``format_report`` prints for the terminal, with headings in the window's language and
    numbers in its locale's marks; the columns are as wide as their widest cell, since headings grow
    in translation. The recommendation and the cheaper draft's verdict have their own lines above.
    """
    v1 = report.verify_s[0]
    if report.draft:
        heading = QCoreApplication.translate("PreflightTable", "{target} + {draft}").format(
            target=report.target, draft=report.draft
        )
        costs = QCoreApplication.translate(
            "PreflightTable", "target, 1 token: {target} ms   draft, 1 token: {draft} ms"
        ).format(target=number(1000 * v1, ".1f"), draft=number(1000 * report.draft_per_token_s, ".1f"))
    else:
        heading = QCoreApplication.translate("PreflightTable", "{target} (no draft model)").format(target=report.target)
        costs = QCoreApplication.translate("PreflightTable", "target, 1 token: {target} ms").format(
            target=number(1000 * v1, ".1f")
        )
    ratios = "  ".join(f"{n}: {number(v / v1, '.2f')}" for n, v in enumerate(report.verify_s, start=1))
    lines = [
        heading,
        costs,
        QCoreApplication.translate(
            "PreflightTable", "verify cost of n tokens in one batch (× one token): {ratios}"
        ).format(ratios=ratios),
    ]
    if report.acceptance:
        lines.append(
            QCoreApplication.translate(
                "PreflightTable", "agreement {agreement}; acceptance per draft position: {rates}"
            ).format(
                agreement=number(report.agreement, ".0%"),
                rates="  ".join(number(a, ".2f") for a in report.acceptance[:8]),
            )
        )
        headings = [
            QCoreApplication.translate("PreflightTable", "K"),
            QCoreApplication.translate("PreflightTable", "E[tokens/step]"),
            QCoreApplication.translate("PreflightTable", "step ms"),
            QCoreApplication.translate("PreflightTable", "tok/s"),
            QCoreApplication.translate("PreflightTable", "speedup"),
        ]
        rows = [
            [
                str(p.k),
                number(p.expected_tokens, ".2f"),
                number(1000 * p.step_s, ".1f"),
                number(p.tokens_per_s, ".1f"),
                number(p.speedup, ".2f") + "×",
            ]
            for p in report.predictions
        ]
        widths = [max(len(cell) for cell in column) for column in zip(headings, *rows, strict=True)]
        best = "  " + QCoreApplication.translate("PreflightTable", "← best")
        lines.append("")
        lines.append("  ".join(h.rjust(w) for h, w in zip(headings, widths, strict=True)))
        for p, row in zip(report.predictions, rows, strict=True):
            cells = "  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True))
            lines.append(cells + (best if p.k == report.best.k else ""))
    if report.notes:
        lines.append("")
    lines.extend(
        QCoreApplication.translate("PreflightTable", "note: {note}").format(
            note=QCoreApplication.translate("PreflightNote", note)
        )
        for note in report.notes
    )
    return "\n".join(lines)
