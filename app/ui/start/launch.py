"""Start the GUI: the application object, the theme, the window, the event loop."""

from __future__ import annotations

import signal
import sys

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from app.ui import theme
from app.ui.i18n.install import SETTING as LANGUAGE_SETTING
from app.ui.i18n.install import install_translators, language_of
from app.ui.settings.store import APPLICATION, ORGANISATION, AppSettings
from app.ui.start import branding


def make_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication (reused if one exists), named, themed and translated."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv if argv is not None else sys.argv)
    QCoreApplication.setOrganizationName(ORGANISATION)
    branding.apply_branding(app)
    QCoreApplication.setApplicationName(APPLICATION)
    settings = AppSettings()
    theme.apply_theme(app, settings.text("view/theme", "system"))
    # Before any widget exists: widgets read their text when made. Parented to the app, so kept alive.
    install_translators(app, language_of(settings.text(LANGUAGE_SETTING)))
    return app


def probe_platform() -> int:
    """Start Qt's GUI platform, print its name and leave: the self-test runs this in a child process."""
    app = QGuiApplication([sys.argv[0]])
    print(f"gui platform: {app.platformName()}")
    return 0


def run_gui() -> int:
    """Show the main window and run until it closes; returns the exit code."""
    app = make_application()
    from app.ui.main_window import MainWindow  # after the QApplication exists: widgets need it

    window = MainWindow()
    window.show()
    # Ctrl+C in the terminal or a SIGTERM quits cleanly (the chat is saved, the engine thread
    # frees the models). Python only runs signal handlers between bytecodes, so a timer wakes it.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: app.quit())
    wake = QTimer()
    wake.start(250)
    wake.timeout.connect(lambda: None)
    code = int(app.exec())
    window.close()
    return code
