"""Start the GUI: the application object, the theme, the window, the event loop."""

from __future__ import annotations

import sys

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from app.ui import branding, theme
from app.ui.settings_store import APPLICATION, ORGANISATION, AppSettings


def make_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication (reused if one exists), named and themed."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv if argv is not None else sys.argv)
    QCoreApplication.setOrganizationName(ORGANISATION)
    branding.apply_branding(app)
    QCoreApplication.setApplicationName(APPLICATION)
    theme.apply_theme(app, AppSettings().text("view/theme", "system"))
    return app


def run_gui() -> int:
    """Show the main window and run until it closes; returns the exit code."""
    app = make_application()
    from app.ui.main_window import MainWindow  # after the QApplication exists: widgets need it

    window = MainWindow()
    window.show()
    return int(app.exec())
