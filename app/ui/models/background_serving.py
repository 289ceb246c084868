"""Serving on with the window closed: the Local server's "keep serving" choice, a tray icon, and a real quit.

With the choice on and the server running, closing the window does not end
Tandem: the window goes away (hidden behind a tray icon where the desktop
has a system tray, else minimised to the task bar, so there is always a way
back) and the server keeps answering with the loaded pair. The tray's menu
shows the window again or stops the server and quits; File → Quit and a
second launch work as usual. Everything then closes in the window's own
order (the server first, then the engine thread), as a plain close does.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu, QSystemTrayIcon


class BackgroundServing(QObject):
    """Holds the window back from closing while it serves; what the tray (or the task bar) offers meanwhile."""

    def __init__(self, window: QMainWindow, url: Callable[[], str | None], quit_app: Callable[[], None]) -> None:
        super().__init__(window)
        self._window = window
        self._url = url  # the running server's base URL (None: not serving)
        self._quit_app = quit_app
        self.held = False  # the window was closed and serves on
        self.tray: QSystemTrayIcon | None = None

    def hold(self) -> bool:
        """The window was asked to close while serving: keep running out of sight; False when not serving."""
        url = self._url()
        if url is None:
            return False
        self.held = True
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setQuitOnLastWindowClosed(False)
        text = QCoreApplication.translate(
            "BackgroundServing", "Tandem keeps serving on {url} with the window closed"
        ).format(url=url)
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray = self._make_tray(text)
            self.tray.show()
            self._window.hide()
        else:  # no tray to come back through: the task bar entry is the way back
            self._window.showMinimized()
        self._window.statusBar().showMessage(text)
        return True

    def show_window(self) -> None:
        """Back from the tray: the window as it was, the tray icon gone."""
        self.held = False
        self._drop_tray()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setQuitOnLastWindowClosed(True)
        self._window.showNormal()
        self._window.raise_()
        self._window.activateWindow()

    def stop_and_quit(self) -> None:
        """Stop the server and quit (the tray's last item)."""
        self._drop_tray()
        self._quit_app()

    def _make_tray(self, text: str) -> QSystemTrayIcon:
        tray = QSystemTrayIcon(self._window.windowIcon(), self)
        tray.setToolTip(text)
        menu = QMenu()
        menu.addAction(QCoreApplication.translate("BackgroundServing", "Show Tandem"), self.show_window)
        menu.addAction(QCoreApplication.translate("BackgroundServing", "Stop serving and quit"), self.stop_and_quit)
        tray.setContextMenu(menu)
        self._menu = menu  # the tray does not own its menu
        tray.activated.connect(
            lambda reason: self.show_window() if reason == QSystemTrayIcon.ActivationReason.Trigger else None
        )
        return tray

    def _drop_tray(self) -> None:
        if self.tray is not None:
            self.tray.hide()
            self.tray.deleteLater()
            self.tray = None
