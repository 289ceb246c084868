"""Pre-flight's table and the A/B run's progress lines in German, while the CLI's pre-flight text stays English.

The window builds pre-flight's detail table from the report's numbers
(``report_table``: German headings, "0,5"-style numbers); ``format_report``
is the terminal's English and must not change. The German catalogue is
installed as ``tests/ui/test_translation.py`` does; the dialogs run on the
real SmolLM2 pair, as ``test_tools.py`` and ``test_preflight_cheaper_draft.py``
drive them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core.adaptive.cost_model import Prediction
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.engine.bench.preflight import NOTE_NO_DRAFT, PreflightReport, format_report
from app.ui.main_window import MainWindow
from app.ui.tools.preflight_dialog import report_table
from tests.ui.helpers import load, pair_choice, send

# The English the terminal printed for this report before the window had its own table (pinned byte for byte).
_CLI_TEXT = (
    "pre-flight: target.gguf + draft.gguf\n"
    "  target, 1 token: 20.0 ms   draft, 1 token: 1.5 ms\n"
    "  verify cost, n tokens in one batch (x one token): 1:1.00 2:1.05 3:1.12\n"
    "  agreement 75%; per-position acceptance: 0.80 0.50\n"
    "  K  E[tokens/step]  step ms  tok/s  speedup\n"
    "   0            1.00     20.0   50.0    1.00x\n"
    "   1            1.75     22.5   77.8    1.25x\n"
    "   2            2.50     25.0  100.0    1.50x  <- best\n"
    "  note: no draft model: acceptance is not measured; the n-gram break-even says what lookup needs\n"
    "recommendation: prompt lookup cannot pay either\n"
    "(measured in 12.5 s)"
)


def _report() -> PreflightReport:
    """A small report with known numbers (three draft lengths, a note)."""
    predictions = tuple(
        Prediction(k, 1 + 0.75 * k, 0.02 + 0.0025 * k, (1 + 0.75 * k) / (0.02 + 0.0025 * k), 1.0 + 0.25 * k)
        for k in range(3)
    )
    return PreflightReport(
        target="target.gguf",
        draft="draft.gguf",
        n_threads=2,
        draft_per_token_s=0.0015,
        verify_s=(0.02, 0.021, 0.0225),
        overhead_s=0.0005,
        acceptance=(0.8, 0.5),
        agreement=0.75,
        predictions=predictions,
        best=predictions[2],
        best_case_speedup=3.0,
        ngram_break_even=0.5,
        recommendation=QT_TRANSLATE_NOOP("PreflightAdvice", "prompt lookup cannot pay either").fill(),
        wall_s=12.5,
        notes=(NOTE_NO_DRAFT,),
    )


def test_the_preflight_table_in_german_and_the_cli_text_unchanged(german: None) -> None:
    report = _report()
    assert format_report(report) == _CLI_TEXT  # the terminal's English, whatever the window's language
    lines = report_table(report).splitlines()
    assert lines[:4] == [
        "target.gguf + draft.gguf",
        "Zielmodell, 1 Token: 20,0 ms   Draft, 1 Token: 1,5 ms",
        "Prüfkosten für n Tokens in einem Batch (× ein Token): 1: 1,00  2: 1,05  3: 1,12",
        "Übereinstimmung 75%; Akzeptanz je Draft-Position: 0,80  0,50",
    ]
    # The columns are as wide as their German headings; the numbers carry the German decimal comma.
    assert lines[5] == "K  E[Tokens/Schritt]  Schritt ms  tok/s  Beschleunigung"
    assert lines[6].split() == ["0", "1,00", "20,0", "50,0", "1,00×"]
    assert lines[8].split() == ["2", "2,50", "25,0", "100,0", "1,50×", "←", "am", "besten"]
    assert lines[8].index("2,50") + len("2,50") == lines[5].index("]") + 1  # right-aligned under its heading
    assert lines[-1] == (
        "Hinweis: kein Draft-Modell: Die Akzeptanz wird nicht gemessen; der N-Gramm-Break-even sagt, "
        "was Lookup bräuchte"
    )


def test_the_preflight_table_without_a_draft_in_english(qapp: QApplication) -> None:
    report = _report()
    plain = replace(report, draft=None, acceptance=(), notes=())
    assert report_table(plain).splitlines() == [
        "target.gguf (no draft model)",
        "target, 1 token: 20.0 ms",
        "verify cost of n tokens in one batch (× one token): 1: 1.00  2: 1.05  3: 1.12",
    ]
    english = report_table(report).splitlines()
    assert english[5] == "K  E[tokens/step]  step ms  tok/s  speedup"
    assert english[8].endswith("1.50×  ← best")


def test_the_preflight_dialog_in_german_on_the_real_pair(
    german: None, make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot
) -> None:
    window = make_window()
    load(qtbot, window, pair_choice(small_pair))
    dialog = window.tools.run_preflight()
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.complete, timeout=600_000)
    report = dialog.report
    assert report is not None
    qtbot.mouseClick(dialog.show_table, Qt.MouseButton.LeftButton)
    assert dialog.details.isVisibleTo(dialog)
    table = dialog.details.toPlainText()
    assert "E[Tokens/Schritt]" in table and "Beschleunigung" in table and "speedup" not in table
    target_ms = f"{1000 * report.verify_s[0]:.1f}".replace(".", ",")
    assert f"Zielmodell, 1 Token: {target_ms} ms" in table
    assert "← am besten" in table
    seconds = f"{report.wall_s:.1f}".replace(".", ",")
    assert dialog.progress_label.text().startswith(f"gemessen in {seconds} s")
    # The same report, printed for the terminal, is the CLI's English with Python's numbers.
    cli = format_report(report)
    assert "  K  E[tokens/step]  step ms  tok/s  speedup" in cli
    assert f"  target, 1 token: {1000 * report.verify_s[0]:.1f} ms" in cli
    dialog.reject()


def test_the_ab_progress_lines_in_german_on_the_real_pair(
    german: None, make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    window = make_window()
    window.settings_panel.max_tokens.setValue(12)
    load(qtbot, window, pair_choice(small_pair))
    loaded = window.picker.status.text()
    assert loaded.startswith("geladen in ") and "," in loaded  # the load time with its decimal comma
    send(qtbot, window, "Count from one to five.")
    lines: list[str] = []
    window.host.worker.comparison_progress.connect(lines.append)
    dialog = window.tools.run_ab(repeats=1)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.complete, timeout=600_000)
    t = f"{dialog.runs[0].temperature:g}".replace(".", ",")
    assert lines == [f"Lauf 1 von 2: nur Zielmodell, Temperatur {t}", f"Lauf 2 von 2: Drafter Modell, Temperatur {t}"]
    assert dialog.progress_label.text() == "fertig"
    speculative = dialog.rates["speculative"].text()
    assert "entworfen " in speculative and "drafted" not in speculative and "acceptance" not in speculative
    drafted = sum(int(r.stats.get("drafted", 0)) for r in dialog.arm("speculative"))
    if drafted:  # an adaptive controller a busy machine convinced not to draft shows no acceptance
        accepted = sum(int(r.stats.get("accepted", 0)) for r in dialog.arm("speculative"))
        assert f"Akzeptanz {accepted / drafted:.0%}" in speculative
    assert "Drafter Modell" in speculative  # the drafter kind in German, as the Stats tab says it
    window.stats.reset("ngram")
    assert window.stats.drafter.text() == "N-Gramm"
