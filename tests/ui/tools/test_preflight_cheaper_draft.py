"""Pre-flight's offer of a cheaper draft in the window, and the threads row after a real reply."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.engine.gguf.header import read_header
from app.ui.chat.controller import Activity
from tests.ui.helpers import load, pair_choice, send


def test_preflight_offers_and_makes_the_cheaper_draft(
    make_window, small_pair: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot
) -> None:
    window = make_window()
    window.settings_panel.max_tokens.setValue(12)
    load(qtbot, window, pair_choice(small_pair))
    reply = send(qtbot, window, "Say hello.")
    # Auto threads by default: the statistics say how many and that they were measured.
    assert reply.stats.threads_auto and reply.stats.threads >= 1
    assert window.stats.threads.text().startswith(f"{reply.stats.threads} (auto")

    folder = tmp_path / "models"
    folder.mkdir()
    monkeypatch.setenv("TANDEM_MODELS_DIR", str(folder))  # the copy goes here, not to the real models folder
    dialog = window.tools.run_preflight()
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.complete, timeout=600_000)
    # The detail is a chart of the predicted speedup per draft length; the table is folded away.
    predicted = [(float(p.k), float(p.speedup)) for p in dialog.report.predictions]
    assert dialog.chart.isVisibleTo(dialog) and dialog.chart.series[0].points == predicted
    axis = dialog.chart.y_axis()  # whole round ticks from 0, the 1x line on one where a round step reaches it
    assert axis.low == 0.0 and all(t / axis.step == pytest.approx(round(t / axis.step)) for t in axis.ticks)
    assert 1.0 in axis.ticks or axis.step > 1.0
    assert not dialog.details.isVisibleTo(dialog) and "speedup" in dialog.details.toPlainText()
    qtbot.mouseClick(dialog.show_table, Qt.MouseButton.LeftButton)
    assert dialog.details.isVisibleTo(dialog) and dialog.show_table.text() == "Hide the table"
    qtbot.mouseClick(dialog.show_table, Qt.MouseButton.LeftButton)
    assert not dialog.details.isVisibleTo(dialog)
    verdict = dialog.report.cheaper_draft
    assert verdict is not None and not verdict.measured  # the SmolLM2 draft keeps a Q8_0 output layer
    assert Path(verdict.path).parent == folder
    assert dialog.cheaper.isVisibleTo(dialog) and verdict.text in dialog.cheaper.text()
    assert dialog.make_cheaper.isVisibleTo(dialog) == verdict.pays

    made: list[Path] = []
    dialog.cheaper_draft_made.connect(made.append)
    dialog.make_cheaper.setVisible(True)  # whether it pays depends on this machine; the making does not
    dialog.make_cheaper.click()
    qtbot.waitUntil(lambda: bool(made) or "could not" in dialog.cheaper.text(), timeout=300_000)
    assert made == [Path(verdict.path)], dialog.cheaper.text()
    assert read_header(made[0]).get("general.file_type") == 2  # LLAMA_FTYPE_MOSTLY_Q4_0
    assert "Made " in dialog.cheaper.text() and not dialog.make_cheaper.isVisibleTo(dialog)
    assert sorted(p.name for p in folder.iterdir()) == [made[0].name]  # no temporary file left beside it

    # One click loads the same pair with the copy as its draft, and the dialog closes.
    assert dialog.use_cheaper.isVisibleTo(dialog)
    target = window.controller.pair.config.target
    dialog.use_cheaper.click()
    assert not dialog.isVisible()
    qtbot.waitUntil(
        lambda: (
            window.controller.activity is Activity.IDLE
            and window.controller.pair is not None
            and window.controller.pair.config.draft == made[0]
        ),
        timeout=300_000,
    )
    assert window.controller.pair.config.target == target
    reply = send(qtbot, window, "Say hello.")
    assert reply.text  # it answers, with the copy as its draft
    assert window.app_settings.pair().draft == made[0]  # and it is the pair tried at the next start
