"""An image on a pair without a projector (SmolLM2 as installed): refused before sending, as the engine says it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from app.engine.llama.vision import ImageError, find_projector, require_projector
from app.ui.main_window import MainWindow
from tests.fixtures.synthetic_projector import png_bytes
from tests.ui.attachments.steps import click_paperclip, paste


def test_an_image_is_refused_in_one_line_and_the_prompt_keeps_its_text(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pair = window.controller.pair
    assert pair is not None and find_projector(pair.config.target) is None
    with pytest.raises(ImageError) as engine:
        require_projector(pair.config.target, pair.config.projector)
    picture = tmp_path / "cat.png"
    picture.write_bytes(png_bytes(40, 30))
    window.chat.prompt.setPlainText("What is in the picture?")

    click_paperclip(qtbot, monkeypatch, window, [picture])
    qtbot.waitUntil(window.chat.banner.isVisible, timeout=10_000)
    assert window.chat.banner.text.text() == str(engine.value)
    assert "\n" not in window.chat.banner.text.text()
    window.chat.banner.hide()

    mime = QMimeData()
    mime.setImageData(QImage.fromData(png_bytes(20, 10)))
    paste(window, mime)
    qtbot.waitUntil(window.chat.banner.isVisible, timeout=10_000)
    assert window.chat.banner.text.text() == str(engine.value)
    assert window.controller.attachments.images.chips == []
    assert window.chat.prompt.toPlainText() == "What is in the picture?"
    assert window.store.list_conversations() == []  # nothing was sent
