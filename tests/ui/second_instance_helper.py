"""A second Tandem window on a data folder another one is using: prints what it found, then closes.

Run by ``test_store_faults_gui.py`` as ``python -m tests.ui.second_instance_helper``
with ``TANDEM_DATA_DIR`` pointing at the first window's folder. Prints one
JSON line. Not a test module.
"""

from __future__ import annotations

import json
import sys

from PySide6.QtWidgets import QApplication


def main() -> int:
    """Open the window, report its store and notice, close it."""
    application = QApplication(sys.argv[:1])
    from app.ui.main_window import MainWindow

    window = MainWindow(autoload=False)
    window.show()
    application.processEvents()
    report = {
        "read_only": window.store.read_only,
        "notice": window.notice.text.text() if window.notice.isVisible() else "",
        "conversations": [c.id for c in window.store.list_conversations()],
    }
    window.close()
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
