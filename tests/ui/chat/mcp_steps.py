"""Steps the MCP window tests share: a server configured through Settings and allowed in the bar that asks.

Not a test module: the tests of the tools flow and of the shape line import it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from tests.paths import REPO_ROOT

SERVER = REPO_ROOT / "tests" / "engine" / "tools" / "mcp_test_server.py"


def choose_config(qtbot: QtBot, window, config: Path) -> str:
    """Type the file's path into Settings' MCP box as a user would, and click Allow in the bar that asks; its words.

    The bar sits on the chat page: a window still on its welcome page shows it once the chat page is shown.
    """
    flow = window.controller.tool_flow
    box = window.settings_panel.mcp
    box.path.setFocus()
    QTest.keyClicks(box.path, str(config))
    QTest.keyClick(box.path, Qt.Key.Key_Return)
    bar = flow.start_bar
    qtbot.waitUntil(bar.isVisible, timeout=10_000)
    asked = bar.text.text()
    qtbot.mouseClick(bar.allow, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(flow.tools), timeout=120_000)
    return asked
