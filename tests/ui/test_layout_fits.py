"""The window fits small screens and large scale factors: no side panel scrolls sideways, no label is cut.

Each size is checked on every side-panel tab with
:func:`app.ui.layout_fit.clipped_in` (a visible horizontal scroll bar; a
label, neither wrapping nor eliding, whose text is wider than the label; a
squeezed button). The 1.5x case runs in a child process because
QT_SCALE_FACTOR must be set before the QApplication exists.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QScrollArea, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from app.engine.llama.session import DrafterKind
from app.engine.memory.hardware import probe_hardware
from app.ui.layout_fit import ElidedComboBox, ElidedLabel, clipped_in, fitted_geometry
from app.ui.main_window import MainWindow
from app.ui.models import welcome_panel
from app.ui.settings.store import AppSettings
from tests.ui.helpers import load, pair_choice, send

ROOT = Path(__file__).resolve().parents[2]


def _settle(app: QApplication) -> None:
    for _ in range(10):
        app.processEvents()
        QTest.qWait(10)


def _narrowest_side(app: QApplication, window: MainWindow) -> None:
    """Drag the side panel to its minimum width: the worst case a person can make."""
    sizes = window.splitter.sizes()
    narrow = window.side.minimumWidth()
    window.splitter.setSizes([sizes[0], sizes[1] + sizes[2] - narrow, narrow])
    _settle(app)
    assert window.side.width() <= narrow + 2


@pytest.mark.parametrize("size", [QSize(1024, 640), QSize(1440, 900)], ids=["1024x640", "1440x900"])
def test_every_side_tab_fits_without_sideways_scrolling(
    qapp: QApplication, make_window: Callable[..., MainWindow], size: QSize
) -> None:
    window = make_window()
    window.resize(size)
    _settle(qapp)
    assert window.width() <= size.width() and window.height() <= size.height(), "the window's minimum is too big"
    for index in range(window.side.count()):
        window.side.setCurrentIndex(index)
        _settle(qapp)
        problems = clipped_in(window)
        assert not problems, f"{window.side.tabText(index)} at {size.width()}x{size.height()}: {problems}"
    assert window.conversations.width() >= 150, "the chat list keeps a readable width"
    window.stack.setCurrentWidget(window.welcome)  # the first-run page, in the chat's place
    _settle(qapp)
    assert not clipped_in(window), f"welcome page at {size.width()}x{size.height()}: {clipped_in(window)}"
    window.stack.setCurrentWidget(window.chat)
    _narrowest_side(qapp, window)
    for index in range(window.side.count()):
        window.side.setCurrentIndex(index)
        _settle(qapp)
        problems = clipped_in(window)
        assert not problems, f"{window.side.tabText(index)} with the side panel at its narrowest: {problems}"


def test_scale_factor_one_and_a_half_on_a_1440x900_screen(data_dir: Path) -> None:
    env = dict(os.environ, QT_SCALE_FACTOR="1.5", QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    env["TANDEM_DATA_DIR"] = str(data_dir)
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "ui" / "layout_helper.py"), "960", "600"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    lines = [line for line in result.stdout.splitlines() if ":" in line]
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    assert len(lines) == 4, result.stdout  # every tab was looked at


def test_the_check_fails_on_a_panel_that_scrolls_sideways_or_cuts_a_label(qapp: QApplication) -> None:
    holder = QWidget()
    layout = QVBoxLayout(holder)
    area = QScrollArea()
    area.setWidgetResizable(True)
    wide = QLabel("a label far too long for the narrow scroll area it sits in, so it scrolls")
    area.setWidget(wide)
    layout.addWidget(area)
    holder.resize(160, 120)
    holder.show()
    _settle(qapp)
    assert any("horizontal scroll bar" in p for p in clipped_in(holder))
    cut = QLabel("target correction", holder)
    cut.setFixedWidth(40)
    cut.show()
    _settle(qapp)
    assert any("'target correction' cut" in p for p in clipped_in(holder))
    holder.close()


def test_an_elided_label_shows_what_fits_and_the_whole_text_as_tooltip(qapp: QApplication) -> None:
    label = ElidedLabel("context: 1,234 / 4,096 tokens (30%) · replying")
    label.resize(60, 20)
    label.show()
    _settle(qapp)
    assert label.shown_text().endswith("…") and label.shown_text() != label.full_text()
    assert label.toolTip() == label.full_text()
    assert label.text() == label.full_text()
    label.resize(600, 20)
    _settle(qapp)
    assert label.shown_text() == label.full_text() and label.toolTip() == ""
    assert clipped_in(label) == []
    label.close()


def test_a_window_saved_larger_than_the_screen_reopens_inside_it(qapp: QApplication, data_dir: Path) -> None:
    first = MainWindow(autoload=False)
    first.show()
    first.resize(2040, 1290)  # what a 1360x860 window became at QT_SCALE_FACTOR=1.5
    _settle(qapp)
    first.close()
    assert AppSettings().geometry("geometry") is not None
    second = MainWindow(autoload=False)
    try:
        second.show()
        _settle(qapp)
        screen = (second.screen() or qapp.primaryScreen()).availableGeometry()
        assert screen.contains(second.frameGeometry()), (second.frameGeometry(), screen)
    finally:
        second.close()


def test_side_panel_hides_with_its_shortcut_and_stays_hidden(
    qapp: QApplication, make_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    window = make_window()
    window.activateWindow()
    QTest.qWaitForWindowActive(window)
    assert window.side.isVisible()
    chat_width = window.stack.width()
    QTest.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: not window.side.isVisible(), timeout=5_000)
    qtbot.waitUntil(lambda: window.stack.width() > chat_width, timeout=5_000)
    window.close()
    again = make_window()
    assert not again.side.isVisible() and not again.menus.side_action.isChecked()
    again.menus.side_action.trigger()
    assert again.side.isVisible()
    # The side panel can be dragged wider: a splitter, not a fixed width.
    sizes = again.splitter.sizes()
    again.splitter.setSizes([sizes[0], sizes[1] - 80, sizes[2] + 80])
    assert again.splitter.sizes()[2] >= sizes[2] + 70


def test_with_a_pair_loaded_served_and_a_reply_every_tab_still_fits(
    qapp: QApplication, make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    """Filled panels (model names, the memory meter, the running server's URL, a reply's stats) at 1024x640."""
    window = make_window()
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, pair_choice(small_pair, DrafterKind.MODEL))
    window.server_switch.port.setValue(0)
    window.server_switch.toggle.setChecked(True)
    assert window.server_switch.server is not None, window.server_switch.counts.text()
    send(qtbot, window, "Name three colours.")
    window.resize(1024, 640)
    _settle(qapp)
    _narrowest_side(qapp, window)
    for index in range(window.side.count()):
        window.side.setCurrentIndex(index)
        _settle(qapp)
        problems = clipped_in(window)
        assert not problems, f"{window.side.tabText(index)} with a pair loaded: {problems}"
    # The status bar says the pair in short, the file names in its tooltip, rather than widening the window.
    assert window.pair_status.full_text() == "SmolLM2 135M Q4_1 + Q4_0"
    assert small_pair[0].name in window.pair_status.toolTip() and small_pair[1].name in window.pair_status.toolTip()
    target = window.picker.target
    assert small_pair[0].stem in target.toolTip() or target.currentText() in target.toolTip()
    window.server_switch.toggle.setChecked(False)


def test_an_unelided_combo_box_that_clips_is_reported(qapp: QApplication) -> None:
    holder = QWidget()
    layout = QVBoxLayout(holder)
    combo = QComboBox()
    combo.addItem("Hybrid (prompt lookup where trusted, else the draft model)")
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(6)
    layout.addWidget(combo)
    elided = ElidedComboBox()
    elided.addItem("SmolLM2-135M-Instruct.Q4_1.gguf")
    elided.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    elided.setMinimumContentsLength(6)
    layout.addWidget(elided)
    holder.resize(140, 80)
    holder.show()
    _settle(qapp)
    problems = clipped_in(holder)
    assert any("combo box 'Hybrid" in p for p in problems)
    assert not any("SmolLM2" in p for p in problems)
    assert elided.toolTip() == "SmolLM2-135M-Instruct.Q4_1.gguf"
    holder.close()


def test_the_fit_keeps_the_frame_inside_the_screen_with_its_title_bar(qapp: QApplication) -> None:
    screen = QRect(0, 0, 1024, 640)
    title_bar = QMargins(1, 24, 1, 1)  # what a window manager's frame adds on each side
    placed = fitted_geometry(screen, title_bar, QSize(1360, 860), QPoint(0, 0))
    frame = placed.marginsAdded(title_bar)
    assert screen.contains(frame) and frame.size() == screen.size(), frame
    assert placed == QRect(1, 24, 1022, 615)
    # A window that fits stays as it is; one pushed off the screen's corner comes back whole.
    assert fitted_geometry(screen, title_bar, QSize(800, 500), QPoint(10, 10)) == QRect(11, 34, 800, 500)
    moved = fitted_geometry(screen, title_bar, QSize(800, 500), QPoint(900, 600))
    assert screen.contains(moved.marginsAdded(title_bar)) and moved.size() == QSize(800, 500)
    # Without a frame (offscreen, or before the manager decorates it) the client area may fill the screen.
    assert fitted_geometry(screen, QMargins(), QSize(2040, 1290), QPoint(-50, -50)) == screen
    # A screen that starts below a panel: the frame starts there too.
    below_panel = QRect(0, 30, 1024, 610)
    assert fitted_geometry(below_panel, title_bar, QSize(1360, 860), QPoint(0, 0)).top() == 30 + 24


_NO_WINDOW_MANAGER = shutil.which("openbox") is None or shutil.which("xvfb-run") is None


@pytest.mark.skipif(_NO_WINDOW_MANAGER, reason="needs openbox and xvfb-run (apt-get install openbox xvfb)")
@pytest.mark.parametrize(
    ("screen", "scale", "launch"),
    [("1024x640", "1", "first"), ("1024x640", "1", "placed"), ("1440x900", "1.5", "first"), ("1440x900", "2", "first")],
    ids=["1024x640", "1024x640-placed", "1.5x", "2x"],
)
def test_under_a_window_manager_the_framed_window_and_its_status_bar_are_on_the_screen(
    data_dir: Path, screen: str, scale: str, launch: str
) -> None:
    env = dict(os.environ, QT_SCALE_FACTOR=scale, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    env["TANDEM_DATA_DIR"] = str(data_dir)
    helper = f"{sys.executable} {ROOT / 'tests' / 'ui' / 'framed_helper.py'} {launch}"
    result = subprocess.run(
        ["xvfb-run", "-a", "-s", f"-screen 0 {screen}x24", "sh", "-c", f"openbox & sleep 1; exec {helper}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert result.returncode == 0 and lines, result.stdout + result.stderr[-2000:]
    seen = json.loads(lines[-1])
    assert seen["framed"], "openbox never framed the window"
    available, frame = QRect(*seen["available"]), QRect(*seen["frame"])
    assert available.contains(frame), f"the frame {frame} reaches outside the screen {available}"
    assert seen["status_bar_visible"] and available.contains(QRect(*seen["status_bar"])), seen
    assert seen["clipped"] == [], seen["clipped"]
    assert seen["welcome_clipped"] == [], seen["welcome_clipped"]


def test_status_messages_replace_each_other_and_never_run_into_the_pair_name(
    qapp: QApplication, make_window: Callable[..., MainWindow]
) -> None:
    window = make_window()
    window.resize(1024, 640)
    _settle(qapp)
    line = window.status_line
    assert window.statusBar() is line
    window.pair_status.setText("SmolLM2-360M-Instruct.Q8_0.gguf + SmolLM2-135M-Instruct.Q4_1.gguf · hybrid · loaded")
    first = "context, threads and GPU layers apply when the pair is reloaded"
    second = "another Tandem was started on this data folder: it shows the chats read-only, " * 2
    window.statusBar().showMessage(first, 60_000)
    window.statusBar().showMessage(second, 60_000)
    _settle(qapp)
    assert line.message.full_text() == second  # the second replaced the first: one message at a time
    message, pair = line.message.geometry(), window.pair_status.geometry()
    assert message.right() < pair.left(), (message, pair)  # side by side, never over each other
    assert line.message.shown_text().endswith("…") and line.message.toolTip() == second
    assert window.pair_status.width() >= line.width() // 3 - 2  # the pair keeps a third of the line
    assert "…" in window.pair_status.shown_text() and window.pair_status.toolTip().startswith("SmolLM2-360M")
    # Qt paints nothing of the message itself: with the label hidden, its place is bare panel.
    line.message.hide()
    _settle(qapp)
    bare = line.grab(line.message.geometry()).toImage()
    line.message.show()
    colours = {bare.pixel(x, y) for x in range(0, bare.width(), 2) for y in range(bare.height())}
    assert len(colours) == 1, f"{len(colours)} colours where only the panel should be"
    window.statusBar().clearMessage()
    _settle(qapp)
    assert line.message.full_text() == ""
    assert window.pair_status.shown_text() == window.pair_status.full_text()  # room again: shown whole


def test_an_install_scrolls_its_progress_into_view_on_a_short_window(
    qapp: QApplication, make_window: Callable[..., MainWindow], qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def slow_install(progress: Callable[[str, int, int], None]) -> tuple[Path, Path]:
        progress("fetching", 1, 10)
        release.wait(30)
        raise OSError("no network in this test")  # the downloader is the one part not run for real

    monkeypatch.setattr(welcome_panel, "install_demo_pair", slow_install)
    window = make_window()
    window.resize(720, 450)  # 1440x900 at 2x
    window.stack.setCurrentWidget(window.welcome)
    _settle(qapp)
    area = window.welcome.findChild(QScrollArea)
    assert area is not None
    progress = window.welcome.progress

    def in_view() -> bool:  # above the fold: its whole height inside the viewport
        top = progress.mapTo(area.viewport(), progress.rect().topLeft()).y()
        return top >= 0 and top + progress.height() <= area.viewport().height()

    area.verticalScrollBar().setValue(0)
    qtbot.mouseClick(window.welcome.demo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: progress.isVisible() and in_view(), timeout=5_000)
    release.set()
    qtbot.waitUntil(lambda: "no network" in window.welcome.status.text(), timeout=10_000)


def test_the_model_tab_names_the_builds_backends(window: MainWindow, qtbot: QtBot) -> None:
    """The build's backends from ggml's registry; this CPU-only build says how to get a GPU one."""
    bar = window.side.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(0).center())
    qtbot.waitUntil(lambda: window.backend_label.isVisible())
    text = window.backend_label.text()
    assert text.startswith("llama.cpp: ")
    if not probe_hardware().gpu_backends:
        assert "CPU only: no GPU backend in this build" in text
        assert "TANDEM_GPU=vulkan" in text and "TANDEM_GPU=cuda" in text
    else:
        assert "(GPU) and CPU" in text
