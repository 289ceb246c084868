"""Not a test: build the window at a logical size in this process and print what is clipped, one line per tab.

tests/ui/test_layout_fits.py runs it in a child process, since QT_SCALE_FACTOR
must be set before the QApplication exists. Arguments: width height (logical
pixels, e.g. 960 600 for a 1440x900 screen at 1.5x). Exit code 1 when any
tab clips, 2 when the window cannot be made that small.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication


def main() -> int:
    """Print the clipping found on each tab; returns the exit code."""
    width, height = int(sys.argv[1]), int(sys.argv[2])
    app = QApplication([sys.argv[0]])
    from app.ui.layout_fit import clipped_in
    from app.ui.main_window import MainWindow

    window = MainWindow(autoload=False)
    window.resize(width, height)
    window.show()
    code = 0
    try:
        for _ in range(20):
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        if window.width() > width or window.height() > height:
            print(f"window is {window.width()}x{window.height()}, wider or taller than {width}x{height}")
            return 2
        for index in range(window.side.count()):
            window.side.setCurrentIndex(index)
            for _ in range(10):
                app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            problems = clipped_in(window)
            print(f"{window.side.tabText(index)}: {problems or 'ok'}")
            code = code or (1 if problems else 0)
    finally:
        window.close()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
