"""The measuring tools, the step view and the Stats tab in German: the core's sentences and the window's numbers.

The German catalogue is installed as ``tests/ui/test_translation.py`` does;
each sentence made in ``app/core`` or ``app/engine`` (the A/B verdict, the
sweep's conclusion, a step told in words, the controller's reason, pre-flight's
advice) is rendered by the window in German with "1,5"-style numbers, while
its ``str`` stays the English the CLI prints. The A/B dialog runs on the real
SmolLM2 pair, as ``test_tools.py`` drives it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from pytestqt.qtbot import QtBot

from app.core.adaptive.reasons import BEST_AT
from app.core.bench.verdict import Spread, ab_verdict, sweep_conclusion, sweep_conclusion_words
from app.core.decoding.stats import GenerationStats
from app.core.reply.step_record import DraftedRecord, StepRecord, TopEntry
from app.core.reply.step_words import explain, reason_words
from app.engine.bench.preflight import STAGE_VERIFY, _recommend
from app.ui.i18n.words import say
from app.ui.main_window import MainWindow
from app.ui.stats.charts import tick_label
from app.ui.stats.stats_panel import StatsPanel
from app.ui.steps.launcher import explain_here
from app.ui.steps.step_view import StepView
from tests.ui.helpers import load, pair_choice, send


def _rejected_step(reason: str) -> StepRecord:
    return StepRecord(
        index=0,
        first_token=0,
        n_emitted=3,
        drafter="model",
        draft_length=4,
        reason=reason,
        greedy=False,
        drafted=(
            DraftedRecord("The", 0.5, 0.7, True, 0.3),
            DraftedRecord(" cat", 0.4, 0.6, True, 0.9),
            DraftedRecord(" sat", 0.61, 0.12, False, 0.57),
        ),
        residual_top=(TopEntry(" foo", 0.5),),
        correction=TopEntry(" foo", 0.5),
        draft_ms=3.1,
        verify_ms=41.0,
    )


def test_the_ab_verdict_and_the_sweep_conclusion_in_german(german: None) -> None:
    verdict = ab_verdict([10.0, 10.5], [15.0, 15.5], drafted=12)
    assert verdict.text == "1.49× faster with the drafter"  # the English the CLI and the tests read
    assert say(verdict.words) == "1,49× schneller mit dem Drafter"
    within = ab_verdict([10.0, 12.0], [11.0, 13.0], drafted=12)
    assert (
        say(within.words) == "kein Unterschied gemessen: Der Unterschied liegt innerhalb der Streuung zwischen Läufen"
    )
    spread = Spread.of([12.5, 11.25, 13.0])
    assert spread.text() == "12.5 tok/s (11.2–13.0, 3 runs)"
    assert say(spread.words()) == "12,5 tok/s (11,2–13,0, 3 Läufe)"
    exact, match = [(0.0, 0.9), (1.5, 0.8)], [(0.0, 0.9), (1.5, 0.6)]
    assert sweep_conclusion(exact, match).endswith("at T=1.5")
    assert say(sweep_conclusion_words(exact, match)) == (
        "exakte Prüfung behält bei T=1,5 20 Prozentpunkte mehr Akzeptanz als Sample-and-Match"
    )


def test_a_step_and_its_reason_told_in_german(german: None) -> None:
    reason = str(BEST_AT.fill(k=4, acceptance=0.57, draft_ms=12.0, verify_ms=40.0))
    step = _rejected_step(reason)
    english = explain(step)
    assert 'The third, " sat", had p = 0.12 against q = 0.61' in english
    words = explain_here(step)
    assert words.startswith("Der Draft schlug 3 Tokens vor. Das Zielmodell stimmte den ersten 2 zu (p >= q).")
    assert 'Das dritte, " sat", hatte p = 0,12 gegenüber q = 0,61' in words
    assert "die Münze zeigte 0,57, abgelehnt." in words and "(Wahrscheinlichkeit 0,50 im Rest)" in words
    # The reason kept in English by the record is read back and said in German, numbers included.
    assert say(reason_words(reason)) == (
        "erwartete Geschwindigkeit am besten bei K=4 (Akzeptanz 0,57, Draft 12 ms/Token, Prüfen 40 ms)"
    )
    quiet = StepRecord(index=1, first_token=3, n_emitted=1, drafter=None, draft_length=0, reason="fixed at 0",
                       greedy=True, bonus=TopEntry("x", 0.25))  # fmt: skip
    assert explain_here(quiet) == (
        'In diesem Schritt wurde nichts gedraftet (fest auf 0). Das wahrscheinlichste Token des Zielmodells war "x" '
        "(p = 0,25)."
    )
    # The step view shows the German words with the words function the window gives it.
    view = StepView(None, explain_here)
    try:
        view.show_reply(None, "Antwort 1", [step])
        assert view.words.text() == words
    finally:
        view.deleteLater()


def test_the_stats_tab_numbers_in_german(german: None) -> None:
    panel = StatsPanel()
    try:
        panel.reset("model", False)
        panel.set_baseline(10.5, "")
        stats = GenerationStats(
            steps=4, drafted=8, accepted=6, emitted=10, total_s=0.8, draft_s=0.02, verify_s=0.2,
            position_attempts=[4, 4], position_hits=[4, 2], last_draft_length=2, copied={"bericht.pdf": 1234},
        )  # fmt: skip
        panel.update_stats(stats)
        assert panel.rate.text() == "12,5"
        assert panel.speedup.text() == "1,19×"
        assert "10,5 tok/s" in panel.baseline_note.text()
        assert panel.mean_length.text().startswith("1,50")
        assert panel.per_pass.text() == "2,50"
        assert panel.copied.text() == "bericht.pdf: 1.234"
        assert tick_label(0.7) == "0,7"
    finally:
        panel.deleteLater()


def test_preflight_advice_in_german(german: None) -> None:
    from app.core.adaptive.cost_model import StepCosts, best_prediction, predict

    costs = StepCosts(tuple(0.02 + 0.001 * n for n in range(16)), 0.002, 0.0005)
    best = best_prediction(predict(costs, [0.8] * 15, 15))
    advice = _recommend(costs, best, 3.0, 4, 0.5, True)
    assert str(advice).startswith(f"draft {best.k} tokens per step: predicted ")
    german_advice = say(advice)
    assert german_advice.startswith(f"{best.k} Tokens pro Schritt draften: vorhergesagt ")
    assert f"{best.speedup:.2f}".replace(".", ",") + "x" in german_advice
    assert QCoreApplication.translate("PreflightStage", STAGE_VERIFY) == "Prüfkosten"


def test_the_ab_dialog_in_german_on_the_real_pair(
    german: None, make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    window = make_window()
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, pair_choice(small_pair))
    send(qtbot, window, "Count from one to ten.")
    dialog = window.tools.run_ab(repeats=2)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.complete, timeout=600_000)
    assert dialog.verdict is not None
    summary = dialog.summary.text()
    assert say(dialog.verdict.words) in summary and dialog.verdict.text not in summary
    assert "Läufe" in dialog.rates["baseline"].text() and "runs" not in dialog.rates["baseline"].text()
    median = Spread.of([float(r.stats["tokens_per_second"]) for r in dialog.arm("baseline")]).median
    assert f"{median:.1f}".replace(".", ",") in dialog.rates["baseline"].text()
