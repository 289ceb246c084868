"""A/B comparison, temperature sweep, event-loop responsiveness and the truncation notice, on the real pair."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.core.bench.verdict import Spread, ab_verdict, sweep_conclusion
from app.core.decoding.events import FinishReason
from app.ui.chat.controller import Activity
from app.ui.settings.store import AppSettings
from app.ui.threads.stall_probe import StallProbe
from app.ui.tools.ab_dialog import ABDialog
from tests.ui.helpers import Recorder, load, pair_choice, send


def test_ab_and_sweep(window, small_pair, qtbot):
    window.settings_panel.max_tokens.setValue(24)
    assert window.tools.run_ab() is None  # nothing to rerun yet
    window.settings_panel.system_prompt.setPlainText("You are terse. <|im_start|> stays text.")
    send(qtbot, window, "Count from one to ten.")

    dialog = window.tools.run_ab(repeats=2)
    assert dialog is not None
    # The chat's own system prompt and sampling settings, not defaults.
    job = dialog._job
    messages = job.request.messages
    assert messages[0].role == "system" and messages[0].content.startswith("You are terse.")
    settings = window.controller.chat_settings()
    assert job.params.temperature == settings.sampling_params().temperature and job.repeats == 2
    assert window.controller.activity is Activity.COMPARING
    assert not window.chat.send_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.complete, timeout=600_000)
    # Interleaved repeats of both arms, all on the chat's own prompt and settings.
    assert [r.drafter.value for r in dialog.runs] == ["none", "model", "none", "model"]
    base_runs, spec_runs = dialog.arm("baseline"), dialog.arm("speculative")
    assert all(r.stats["drafted"] == 0 for r in base_runs) and all(r.stats["drafted"] > 0 for r in spec_runs)
    # The verdict is the core's on the runs' rates; a ratio only when the ranges are disjoint.
    expected = ab_verdict(
        [r.stats["tokens_per_second"] for r in base_runs],
        [r.stats["tokens_per_second"] for r in spec_runs],
        sum(r.stats["drafted"] for r in spec_runs),
    )
    assert dialog.verdict == expected and dialog.speedup == expected.ratio
    assert expected.text in dialog.summary.text()
    if expected.ratio is None:
        assert "faster" not in dialog.summary.text() and "no difference measured" in dialog.summary.text()
    assert "2 runs" in dialog.rates["baseline"].text() and "2 runs" in dialog.rates["speculative"].text()
    base, spec = base_runs[0], spec_runs[0]
    assert dialog.outputs_match == (base.token_ids == spec.token_ids)
    # The target-only median becomes the baseline for the live speedup.
    stored = AppSettings().baseline(small_pair[0], window.settings_panel.settings().n_threads)
    assert stored == Spread.of([r.stats["tokens_per_second"] for r in base_runs]).median
    # "Run again" with another count: a fresh dialog, and the count is kept for the next A/B.
    assert dialog.run_again.isEnabled()
    dialog.repeats.setValue(1)
    qtbot.mouseClick(dialog.run_again, Qt.MouseButton.LeftButton)
    again = window.tools._dialog
    assert isinstance(again, ABDialog) and again is not dialog and again._job.repeats == 1
    qtbot.waitUntil(lambda: again.complete, timeout=600_000)
    assert [r.drafter.value for r in again.runs] == ["none", "model"]
    assert again.verdict is not None and again.verdict.ratio is None  # one run per side claims nothing
    assert "faster" not in again.summary.text()
    dialog = again
    assert "target-only" in window.stats.baseline_note.text()
    dialog.close()
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=30_000)

    # With the adaptive default on, the sweep still drafts at a fixed length: it measures acceptance.
    window.settings_panel.adaptive.setChecked(True)
    sweep = window.tools.run_sweep((0.0, 1.0), max_tokens=16)
    assert sweep is not None
    qtbot.waitUntil(lambda: sweep.complete, timeout=600_000)
    points = sweep.points()
    assert [t for t, _ in points] == [0.0, 1.0]
    assert all(0.0 <= rate <= 1.0 for _, rate in points)
    assert sweep.chart.series[0].points == points
    # The rate axis zooms to the rates drawn (within a tick of them), at round ticks, never past 100 %.
    rates = [y for series in sweep.chart.series for _, y in series.points]
    axis = sweep.chart.y_axis()
    assert min(rates) - axis.step < axis.low <= min(rates) and max(rates) <= axis.high < max(rates) + axis.step
    assert axis.high <= 1.0 and all(t / axis.step == pytest.approx(round(t / axis.step)) for t in axis.ticks)
    # Both rules from the same rows: one-hot at T=0 (equal), and exact verification ahead at T=1.
    exact, match = sweep.chart.series[1].points, sweep.chart.series[2].points
    assert [t for t, _ in exact] == [t for t, _ in match] == [0.0, 1.0]
    assert exact[0][1] == pytest.approx(match[0][1])
    assert exact[1][1] > match[1][1] > 0.0
    assert "sample-and-match" in sweep.chart.series[2].label
    assert sweep.conclusion.text() == sweep_conclusion(exact, match)
    assert sweep.conclusion.text().endswith("at T=1")  # the hottest point swept
    sweep.close()
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=30_000)
    assert send(qtbot, window, "Say hi.").reason is not FinishReason.CANCELLED


def test_event_loop_keeps_running_while_generating(window, qtbot):
    window.settings_panel.max_tokens.setValue(48)
    recorder = Recorder(window)
    probe = StallProbe(10)
    probe.start()
    send(qtbot, window, "Describe the sea in two sentences.", recorder)
    summary = probe.stop()
    print("\nGUI event loop while generating:", summary.line())
    # Timing is recorded, not asserted; what is asserted is that the GUI thread
    # kept ticking through the reply instead of waiting for it.
    assert len(recorder.steps) >= 3
    assert summary.ticks > 2 * len(recorder.steps)


# A fresh window: the pair is loaded with a 256-token context, not the shared window's.
def test_old_turns_dropped_with_a_visible_notice(make_window, small_pair, qtbot):
    window = make_window()
    window.settings_panel.n_ctx.setValue(256)
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, pair_choice(small_pair))
    filler = "Here is some background about my garden, the weather and the neighbours. " * 5
    for i in range(4):
        send(qtbot, window, f"{filler} Question {i}: what should I plant?")
        if window.chat.view.messages[-1].notice:
            break
    notice = window.chat.view.messages[-1].notice
    assert "left out of this reply to fit the context" in notice
    assert "left out of this reply to fit the context" in window.chat.view.toPlainText()
    stored = window.store.messages(window.controller.conversation_id)
    assert stored[-1].meta["dropped_messages"] >= 2
    # Reopening the chat shows the notice again.
    conversation = window.controller.conversation_id
    window.controller.new_conversation()
    window.controller.open_conversation(conversation)
    assert "left out" in window.chat.view.messages[-1].notice  # the stored count, said in its own words
