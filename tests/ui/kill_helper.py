"""A real Tandem window that finishes one reply, starts a second, says so, and waits to be killed.

Run by ``test_kill.py`` as ``python -m tests.ui.kill_helper TARGET DRAFT`` with
``TANDEM_DATA_DIR`` pointing at the test's folder. Prints one JSON line per
milestone on stdout. Not a test module.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from app.engine.llama.session import DrafterKind
from app.ui.settings.store import PairChoice


class NoPytestSettings:
    """The ini settings pytest-qt's waits read: none in a process that pytest did not start."""

    def getini(self, name: str) -> str:
        return ""


class NoPytestRequest:
    """Stands in for the fixture request a QtBot is made with; its waits only read the ini settings."""

    config = NoPytestSettings()


def say(event: str, **fields: object) -> None:
    """One milestone for the test."""
    print(json.dumps({"event": event, **fields}), flush=True)


def main() -> int:
    """Reply once, start a long reply, report it streaming, then idle until killed."""
    application = QApplication(sys.argv[:1])  # kept alive for the whole run
    from pytestqt.qt_compat import qt_api
    from pytestqt.qtbot import QtBot

    from app.ui.main_window import MainWindow
    from tests.ui.helpers import Recorder, load, send

    qt_api.set_qt_api("pyside6")  # what pytest-qt's plugin does when pytest starts
    qtbot = QtBot(NoPytestRequest())  # type: ignore[arg-type]
    target, draft = Path(sys.argv[1]), Path(sys.argv[2])
    window = MainWindow(autoload=False)
    window.show()
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, PairChoice(target, draft, DrafterKind.MODEL))
    recorder = Recorder(window)
    first = send(qtbot, window, "Say hello.", recorder)
    say("first", text=first.text, conversation=window.controller.conversation_id)

    window.settings_panel.max_tokens.setValue(2000)
    window.chat.prompt.setPlainText("Write a very long story about a lighthouse keeper.")
    steps_before = len(recorder.steps)
    window.chat.send_button.click()
    qtbot.waitUntil(lambda: len(recorder.steps) >= steps_before + 6, timeout=600_000)
    qtbot.waitUntil(lambda: window.controller.reply_in_flight() is not None, timeout=60_000)
    reply_id = window.controller.reply_in_flight()
    assert reply_id is not None
    # Wait for a flush so the test knows a lower bound on what must survive.
    qtbot.waitUntil(lambda: len(window.store.tokens(reply_id)) > 0, timeout=60_000)
    say("streaming", stored_tokens=len(window.store.tokens(reply_id)), reply_id=reply_id)
    # Keep generating (and saving) until the test kills this process.
    qtbot.wait(3_600_000)
    application.quit()
    return 1


if __name__ == "__main__":
    sys.exit(main())
