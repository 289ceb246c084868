"""The picker's Server page, step by step as a person uses it: fill the form and connect, then chat with the server.

Not a test module.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.models.server_choice import ServerChoice


def connect(qtbot: QtBot, window: MainWindow, url: str, key: str = "") -> ServerChoice:
    """Fill the Server form, press Connect and wait for the model list or the error line."""
    window.picker.show_server(True)
    choice = window.picker.server
    assert window.picker.pages.currentWidget() is choice
    choice.url.setText(url)
    choice.key.setText(key)
    QTest.mouseClick(choice.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: choice.connect_button.isEnabled() and (choice.models.count() > 0 or "✗" in choice.status.text()),
        timeout=60_000,
    )
    return choice


def use(qtbot: QtBot, window: MainWindow, choice: ServerChoice) -> None:
    """Press "Chat with this server" and wait until the window answers from it."""
    assert choice.use_button.isEnabled(), choice.status.text()
    QTest.mouseClick(choice.use_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: window.controller.pair is not None and window.controller.pair.remote is not None, timeout=30_000
    )
