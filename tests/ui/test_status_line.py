"""The status bar names the loaded pair in short ("SmolLM2 135M Q4_1 + Q4_0"), the file names in full in its tooltip.

The real SmolLM2 pair loaded with its draft model: the module's shared window, and a new one to watch it load.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from app.ui.main_window import MainWindow
from tests.ui.helpers import load, pair_choice


def test_the_status_bar_says_the_pair_in_short_with_the_file_names_in_its_tooltip(
    window: MainWindow, small_pair: tuple[Path, Path], qapp: QApplication
) -> None:
    label = window.pair_status
    target, draft = small_pair
    assert label.full_text() == "SmolLM2 135M Q4_1 + Q4_0"
    assert label.shown_text() == label.full_text()  # short enough to be read whole at the tests' size
    assert label.toolTip() == f"{target.name} + {draft.name}"

    # A line too narrow for the short form elides it; the tooltip then says it and the file names.
    label.setMaximumWidth(label.fontMetrics().horizontalAdvance("SmolLM2"))
    qapp.processEvents()
    try:
        assert "…" in label.shown_text()
        assert label.toolTip() == f"SmolLM2 135M Q4_1 + Q4_0\n{target.name} + {draft.name}"
    finally:
        label.setMaximumWidth(window.status_line.width())  # the line shares itself out again at its next message


def test_loading_and_ready_messages_say_the_pair_in_short(make_window, small_pair, qtbot) -> None:
    window = make_window()
    said: list[str] = []
    window.statusBar().messageChanged.connect(said.append)
    load(qtbot, window, pair_choice(small_pair))
    assert "loading SmolLM2 135M Q4_1 + Q4_0…" in said, said
    assert any(s.startswith("ready: SmolLM2 135M Q4_1 + Q4_0 (") for s in said), said
    assert not any(small_pair[0].stem in s for s in said), said  # the file names are the tooltip's
