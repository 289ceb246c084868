"""What a person does with attachments in the window, as test steps: click the paperclip, drop, paste, click a link."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from tests.ui.helpers import click_href as click_href  # shared with the chat tests


def click_paperclip(qtbot, monkeypatch: pytest.MonkeyPatch, window: MainWindow, files: list[Path]) -> None:
    """Click 📎 with the file dialog answering ``files`` (the dialog itself is the platform's)."""
    monkeypatch.setattr(
        QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: ([str(f) for f in files], "All files (*)"))
    )
    qtbot.mouseClick(window.chat.paperclip, Qt.MouseButton.LeftButton)


def urls_mime(paths: list[Path]) -> QMimeData:
    """What a file manager puts in a drag or on the clipboard for ``paths``."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def drop(widget: QWidget, mime: QMimeData) -> bool:
    """Drag ``mime`` onto ``widget`` and drop it; True when the drop was accepted."""
    point = QPointF(widget.rect().center())
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(point.toPoint(), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted(), "the drag was refused"
    event = QDropEvent(point, actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)
    return event.isAccepted()


def paste(window: MainWindow, mime: QMimeData) -> None:
    """Put ``mime`` on the clipboard and press Ctrl+V in the prompt box."""
    QApplication.clipboard().setMimeData(mime)
    window.chat.prompt.setFocus()
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)


def wait_read(qtbot: QtBot, window: MainWindow) -> None:
    """Wait until no attachment is being read any more."""
    qtbot.waitUntil(lambda: window.controller.attachments.reading == 0, timeout=60_000)


def chip_names(window: MainWindow) -> list[str]:
    """What the chips above the prompt say."""
    return [chip.name.text() for chip in window.chat.attachments.chips]
