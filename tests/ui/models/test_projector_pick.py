"""Picking a vision projector in the pair picker, for a target with none beside it (a SYNTHETIC projector).

The projector (random weights: no small real one is reachable offline) is
written in a folder of its own, away from a copy of the small target, so the
window finds none beside the model and the user picks it with the Images row's
"…" button, as they would a projector downloaded elsewhere.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from app.core.decoding.drafters import DrafterKind
from app.ui.chat.controller import Activity
from app.ui.main_window import MainWindow
from app.ui.settings.store import AppSettings
from tests.fixtures.synthetic_projector import write_projector_for
from tests.ui.helpers import LOAD_TIMEOUT_MS


@pytest.fixture(scope="module")
def lone_target(small_pair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the small target in a folder without any mmproj file."""
    target = tmp_path_factory.mktemp("lone-target") / small_pair[0].name
    shutil.copyfile(small_pair[0], target)
    return target


@pytest.fixture(scope="module")
def projector(lone_target: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("downloads") / "vision-proj-synthetic.gguf"  # no "mmproj" prefix: never found
    write_projector_for(lone_target, path)
    yield path


def _answer_dialog(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "GGUF files")))


def _choose_target(qtbot: QtBot, window: MainWindow, target: Path) -> None:
    window.picker.add_model(target)
    qtbot.waitUntil(lambda: (choice := window.picker.choice()) is not None and choice.target == target, timeout=30_000)


def test_a_projector_picked_for_a_target_is_loaded_with_it_and_remembered(
    window: MainWindow,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
    lone_target: Path,
    projector: Path,
    small_pair: tuple[Path, Path],
) -> None:
    picker = window.picker
    row = picker.projector_row
    _choose_target(qtbot, window, lone_target)
    assert row.label.text() == "none: pictures are refused" and not row.clear_button.isVisible()

    _answer_dialog(monkeypatch, small_pair[1])  # a language model, not a projector
    qtbot.mouseClick(row.pick_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "is not a vision projector" in row.label.text(), timeout=30_000)
    assert row.projector() is None

    _answer_dialog(monkeypatch, projector)
    with qtbot.waitSignal(row.changed, timeout=30_000):
        qtbot.mouseClick(row.pick_button, Qt.MouseButton.LeftButton)
    assert row.label.text() == f"{projector.name} (chosen)" and row.clear_button.isVisible()
    choice = picker.choice()
    assert choice is not None and choice.projector == projector

    picker.kind_buttons[DrafterKind.NGRAM].setChecked(True)  # the lone copy has no draft listed beside it
    with qtbot.waitSignal(
        window.controller.activity_changed,
        timeout=LOAD_TIMEOUT_MS,
        check_params_cb=lambda activity: activity is Activity.IDLE,
    ):
        qtbot.mouseClick(picker.load_button, Qt.MouseButton.LeftButton)
    pair = window.controller.pair
    assert pair is not None and pair.config.target == lone_target and pair.config.projector == projector
    assert window.controller.image_refusal() is None  # pictures are taken now
    stored = AppSettings().pair()
    assert stored is not None and stored.projector == projector  # and the next start loads it again

    qtbot.mouseClick(row.clear_button, Qt.MouseButton.LeftButton)
    assert row.label.text() == "none: pictures are refused"
    choice = picker.choice()
    assert choice is not None and choice.projector is None


def test_a_stored_choice_brings_its_projector_back_to_the_picker(
    window: MainWindow, qtbot: QtBot, lone_target: Path, projector: Path
) -> None:
    from app.ui.settings.store import PairChoice

    window.picker.refresh(PairChoice(lone_target, None, DrafterKind.NGRAM, projector))
    qtbot.waitUntil(lambda: window.picker.projector_row.label.text() == f"{projector.name} (chosen)", timeout=30_000)
    choice = window.picker.choice()
    assert choice is not None and choice.projector == projector
