"""Not a test: open the window under the running window manager and print, as JSON, where its frame went.

tests/ui/test_layout_fits.py runs it under Xvfb with openbox (QT_QPA_PLATFORM=xcb,
QT_SCALE_FACTOR as the case needs). It waits until the window manager has
framed the window, then prints the screen's available geometry, the frame,
the client area, the status bar's rectangle on the screen and what
:func:`app.ui.layout_fit.clipped_in` found, all in logical pixels. With the
argument ``placed`` the window is first given the whole screen, position
included, as a script places it: the window manager then frames it
without a move to say so.
"""

from __future__ import annotations

import json
import sys
import time

from PySide6.QtCore import QEventLoop, QRect
from PySide6.QtWidgets import QApplication


def _rect(rect: QRect) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def main() -> int:
    """Print the framed window's geometry; returns 0, or 2 when no frame came."""
    app = QApplication([sys.argv[0]])
    from app.ui.layout_fit import clipped_in
    from app.ui.main_window import MainWindow

    def spin(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.01)

    def framed() -> MainWindow:
        window = MainWindow(autoload=False)
        if "placed" in sys.argv[1:]:  # given the whole screen at a position of its own, as a script places it
            window.setGeometry((window.screen() or app.primaryScreen()).availableGeometry())
        window.show()
        deadline = time.monotonic() + 20
        while window.frameGeometry() == window.geometry() and time.monotonic() < deadline:
            spin(0.1)
        spin(2.5)  # the fit that follows the frame (the last look is 2 s after the show), and its layout
        return window

    window = framed()
    page = window.stack.currentWidget()
    window.stack.setCurrentWidget(window.welcome)  # the first-run page, at this size too
    spin(0.3)
    welcome_clipped = clipped_in(window)
    window.stack.setCurrentWidget(page)
    spin(0.3)
    bar = window.statusBar()
    screen = window.screen() or app.primaryScreen()
    print(
        json.dumps(
            {
                "framed": window.frameGeometry() != window.geometry(),
                "available": _rect(screen.availableGeometry()),
                "frame": _rect(window.frameGeometry()),
                "client": _rect(window.geometry()),
                "status_bar": _rect(QRect(bar.mapToGlobal(bar.rect().topLeft()), bar.size())),
                "status_bar_visible": bar.isVisible(),
                "clipped": clipped_in(window),
                "welcome_clipped": welcome_clipped,
            }
        )
    )
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
