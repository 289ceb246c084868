"""The window against hostile servers: Stop at once while one streams, the Settings' time-outs, plain text.

Real windows (pytest-qt, offscreen) on the test's data folder, connected
through the picker's Server page to the socket servers of
tests/engine/remote/hostile_server.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.core.decoding.events import FinishReason
from app.engine.remote.limits import RemoteLimits
from app.ui.chat.controller import Activity
from app.ui.main_window import MainWindow
from app.ui.settings.store import AppSettings
from tests.engine.remote import hostile_server as hs
from tests.ui.helpers import Recorder
from tests.ui.models.server_steps import connect


@pytest.fixture(autouse=True)
def no_system_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys never reach the keyring of the machine running the tests."""
    monkeypatch.setattr(keyring, "get_keyring", lambda: keyring.backends.fail.Keyring())


@pytest.fixture
def window(qapp: object, data_dir: Path) -> Iterator[MainWindow]:
    made = MainWindow(autoload=False)
    made.resize(1280, 800)
    made.show()
    yield made
    made.close()
    assert not made.host.thread.isRunning()


def use(qtbot: QtBot, window: MainWindow, url: str) -> None:
    choice = connect(qtbot, window, url)
    assert choice.use_button.isEnabled(), choice.status.text()
    QTest.mouseClick(choice.use_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: window.controller.pair is not None and window.controller.pair.remote is not None, timeout=30_000
    )


def start_reply(qtbot: QtBot, window: MainWindow, text: str = "Hi") -> None:
    window.chat.prompt.setPlainText(text)
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.GENERATING, timeout=10_000)


@pytest.mark.parametrize("script", [hs.keepalives, hs.trickle_line, hs.flood_events])
def test_stop_ends_the_reply_at_once_while_a_hostile_server_streams_for_ever(
    window: MainWindow, script: hs.Script, qtbot: QtBot
) -> None:
    with hs.HostileServer(script) as server:
        use(qtbot, window, server.url)
        recorder = Recorder(window)
        start_reply(qtbot, window)
        QTest.qWait(700)  # the server is streaming its attack now
        assert window.controller.activity is Activity.GENERATING
        started = time.perf_counter()
        window.controller.stop()
        qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=5_000)
        seconds = time.perf_counter() - started
        # The recorder's slot is queued after the controller's; a flood of step
        # events can end one processEvents slice between the two.
        qtbot.waitUntil(lambda: bool(recorder.finished or recorder.errors), timeout=5_000)
    # The server never ends and the default idle time-out is 300 s, so a Stop that waited for
    # the server would take minutes; on a quiet machine it takes about 0.1 s. The bound is
    # wide because CI's machine is busy (1.1 s has been seen there).
    assert seconds < 5.0, seconds
    assert not recorder.errors, recorder.errors
    assert recorder.finished and recorder.finished[-1].reason is FinishReason.CANCELLED


def test_the_settings_deadline_reaches_the_server_in_use_and_is_kept(window: MainWindow, qtbot: QtBot) -> None:
    box = window.settings_panel.remote
    assert box.limits() == RemoteLimits()  # the defaults are shown
    with hs.HostileServer(hs.keepalives) as server:
        use(qtbot, window, server.url)
        box.deadline.setValue(10)  # the smallest deadline, changed while the server is in use
        assert window._server_engine is not None and window._server_engine.limits.deadline_s == 10
        recorder = Recorder(window)
        start_reply(qtbot, window)
        qtbot.waitUntil(lambda: bool(recorder.errors), timeout=20_000)
    assert "did not finish the reply within the 10 s deadline" in recorder.errors[0]
    assert AppSettings().remote_limits().deadline_s == 10  # kept for the next start


def test_the_server_status_shows_a_servers_error_text_as_plain_text(window: MainWindow, qtbot: QtBot) -> None:
    page = b"<h1>Session expired</h1><img src='x.png'><a href='http://evil.example'>click here to re-login</a>"

    def rich_error(c: hs.Connection) -> None:
        c.head(502, "text/html", len(page))
        c.send(page)

    with hs.HostileServer(rich_error) as server:
        choice = connect(qtbot, window, server.url)
    assert choice.status.textFormat() is Qt.TextFormat.PlainText
    assert "<h1>Session expired</h1>" in choice.status.text()  # shown as the characters it is

    def rich_error_on_reply(c: hs.Connection) -> None:
        if c.method == "GET":
            c.models()
        else:
            rich_error(c)

    with hs.HostileServer(rich_error_on_reply) as server:
        use(qtbot, window, server.url)
        recorder = Recorder(window)
        start_reply(qtbot, window)
        qtbot.waitUntil(lambda: bool(recorder.errors), timeout=20_000)
        qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=10_000)
    banner = window.chat.banner.text
    assert banner.textFormat() is Qt.TextFormat.PlainText and "<h1>Session expired</h1>" in banner.text()


def test_a_hostile_vllm_summary_ends_the_reply_at_once_in_one_line(window: MainWindow, qtbot: QtBot) -> None:
    # Before: lists of 10^8 entries were built after the stream, and Stop stayed at "stopping…" meanwhile.
    spec = {"num_spec_tokens": 100_000_000, "acceptance_histogram": [1] * 30_000}
    with hs.HostileServer(lambda c: hs.vllm_huge(c, spec)) as server:
        use(qtbot, window, server.url)
        recorder = Recorder(window)
        started = time.perf_counter()
        start_reply(qtbot, window)
        qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=10_000)
        seconds = time.perf_counter() - started
        # The recorder's slot is queued after the controller's (see the test above).
        qtbot.waitUntil(lambda: bool(recorder.finished or recorder.errors), timeout=5_000)
    # Building those lists took tens of seconds and gigabytes; the bound leaves room for a busy
    # machine (this counts the whole exchange from Send, not just the summary's reading).
    assert seconds < 5.0, seconds
    assert len(recorder.errors) == 1 and recorder.errors[0].startswith("the server sent an event Tandem cannot read")
