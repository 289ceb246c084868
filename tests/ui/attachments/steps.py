"""What a person does with attachments in the window, as test steps: click the paperclip, drop, paste, click a link."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget

from app.ui.main_window import MainWindow
from tests.ui.helpers import wait_until


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


def wait_read(window: MainWindow) -> None:
    """Wait until no attachment is being read any more."""
    wait_until(lambda: window.controller.attachments.reading == 0, 60, "the attachment to be read")


def chip_names(window: MainWindow) -> list[str]:
    """What the chips above the prompt say."""
    return [chip.name.text() for chip in window.chat.attachments.chips]


def click_href(window: MainWindow, href: str) -> None:
    """Click the link ``href`` where the chat view draws it, as a person would."""
    view = window.chat.view
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position())
                view.setTextCursor(cursor)
                view.ensureCursorVisible()
                start = view.cursorRect(cursor)
                cursor.setPosition(fragment.position() + min(3, fragment.length()))
                end = view.cursorRect(cursor)
                point = QPoint((start.left() + end.left()) // 2, start.center().y())
                QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
                return
            it += 1
        block = block.next()
    raise AssertionError(f"no link {href!r} in the chat view")
