"""Pair-load and remote-server errors in German: the engine's sentences, said by the window.

The German catalogue is installed as ``tests/ui/test_translation.py`` does.
An incompatible real pair (the SmolLM2 target with the Qwen 0.5B draft) fails
to load with a German sentence in the window; a server URL on a closed local
port gets the German connection error in the Server form; a corrupt chat
database gets the German notice and recovery summary; an MCP file that is
refused and a server that cannot start are said in German in the Tools tab
(the notices' English lines stay for the CLI); each error's
``str`` stays the English the CLI, the logs and ``serve`` read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.core.errors import IncompatiblePairError, TandemError
from app.core.tools.mcp_config import McpConfigError
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.remote import errors
from app.engine.remote.client import RemoteEngine
from app.engine.remote.errors import RemoteError
from app.engine.remote.llama_server import free_port
from app.engine.remote.stream import _REPLY_TOO_LARGE, StreamLimitError
from app.engine.store.database import StoreOpenError, check_file
from app.engine.store.recovery import RecoveryReport
from app.engine.tools.mcp_file import read_mcp_file
from app.ui.chat.controller import Activity
from app.ui.i18n.words import say, say_error
from app.ui.main_window import MainWindow
from app.ui.settings.store import PairChoice
from tests.engine import store_files
from tests.ui.helpers import LOAD_TIMEOUT_MS, Recorder


def test_a_closed_port_is_a_german_connection_error_and_english_in_str(german: None) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(RemoteError) as caught:
        RemoteEngine(url).list_models()
    assert str(caught.value).startswith(f"cannot connect to {url}: is the server running? (")
    assert say_error(caught.value).startswith(f"keine Verbindung zu {url}: Läuft der Server? (")


def test_remote_limits_say_their_numbers_the_german_way(german: None) -> None:
    deadline = RemoteError(errors.DEADLINE.fill(url="http://gpu-box:8080/v1", seconds=1.5), "partial")
    assert str(deadline) == (
        "http://gpu-box:8080/v1 did not finish the reply within the 1.5 s deadline: the partial reply is kept"
    )
    assert say_error(deadline) == (
        "http://gpu-box:8080/v1 hat die Antwort nicht innerhalb der Frist von 1,5 s beendet: "
        "die unvollständige Antwort bleibt erhalten"
    )
    assert deadline.partial == "partial"
    # A cap broken while streaming keeps its words when the client passes it on with the partial reply.
    passed_on = RemoteError(errors.said(StreamLimitError(_REPLY_TOO_LARGE.fill(cap=1_500_000))), "text")
    assert str(passed_on) == "the server sent more than 1,500,000 bytes in one reply"
    assert say_error(passed_on) == "der Server sandte mehr als 1.500.000 Bytes in einer Antwort"
    status = RemoteError(errors._ANSWERED.fill(url="http://h/v1", status=500, detail="boom"))
    assert str(status) == "http://h/v1 answered 500: boom"
    assert say_error(status) == "http://h/v1 antwortete mit 500: boom"  # the server's own text stays as it came


def test_the_server_form_says_a_refused_connection_in_german(
    german: None, make_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    window = make_window()
    window.picker.show_server(True)
    choice = window.picker.server
    url = f"http://127.0.0.1:{free_port()}/v1"
    choice.url.setText(url)
    QTest.mouseClick(choice.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: choice.connect_button.isEnabled() and "✗" in choice.status.text(), timeout=60_000)
    assert choice.status.text().startswith(f"✗ keine Verbindung zu {url}: Läuft der Server? (")


def test_a_pair_without_its_draft_model_is_refused_in_german(german: None, small_pair: tuple[Path, Path]) -> None:
    with pytest.raises(TandemError) as caught:
        PairConfig(small_pair[0], None, DrafterKind.MODEL)
    assert str(caught.value) == ("a draft model is needed for model drafting (or choose the n-gram drafter or none)")
    assert say_error(caught.value) == (
        "für das Drafting mit model wird ein Draft-Modell gebraucht (oder wählen Sie den N-Gramm-Drafter oder keinen)"
    )


def test_an_incompatible_real_pair_fails_to_load_in_german(
    german: None,
    make_window: Callable[..., MainWindow],
    small_pair: tuple[Path, Path],
    demo_pair: tuple[Path, Path],
    qtbot: QtBot,
) -> None:
    target, draft = small_pair[0], demo_pair[1]  # SmolLM2's vocabulary against Qwen's
    with pytest.raises(IncompatiblePairError) as caught:
        LoadedPair(PairConfig(target, draft, DrafterKind.HYBRID, n_ctx=512))
    english = str(caught.value)
    assert english.startswith(f"{draft.name} cannot draft for {target.name}: ")

    window = make_window()
    recorder = Recorder(window)
    window.load_pair(PairChoice(target, draft, DrafterKind.HYBRID))
    qtbot.waitUntil(lambda: bool(recorder.errors), timeout=LOAD_TIMEOUT_MS)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=30_000)
    head = f"{draft.name} kann nicht für {target.name} draften: "
    assert recorder.errors[-1].startswith(head)
    # The compatibility check's rules and evidence are German too, not the English problems.
    assert recorder.errors[-1][len(head) :] != english.split(": ", 1)[1]
    assert window.chat.banner.text.text() == recorder.errors[-1]


def test_the_recovery_summary_and_a_damaged_header_in_german(german: None, tmp_path: Path) -> None:
    report = RecoveryReport(tmp_path / "c.sqlite3", 3, 12, 1500, 2, damaged_copy=tmp_path / "c.damaged.sqlite3")
    assert report.summary() == (
        "recovered 3 conversations, 12 messages and 1500 tokens; 2 unreadable parts were skipped"
        f"; the damaged file is kept as {tmp_path / 'c.damaged.sqlite3'}"
    )
    assert say(report.words()) == (
        "3 Unterhaltungen, 12 Nachrichten und 1500 Tokens wiederhergestellt; 2 unlesbare Teile wurden übersprungen"
        f"; die beschädigte Datei bleibt als {tmp_path / 'c.damaged.sqlite3'} erhalten"
    )
    path = tmp_path / "conversations.sqlite3"
    store_files.build(path)
    store_files.destroy_header(path)
    with pytest.raises(StoreOpenError) as caught:
        check_file(path)
    assert str(caught.value).endswith(": its header is destroyed (it does not start like an SQLite database)")
    assert say_error(caught.value).endswith(": ihr Kopf ist zerstört (sie beginnt nicht wie eine SQLite-Datenbank)")


def test_the_window_on_a_corrupt_database_says_why_and_recovers_in_german(
    german: None, make_window: Callable[..., MainWindow], data_dir: Path
) -> None:
    path = data_dir / "conversations.sqlite3"
    store_files.build(path)
    store_files.destroy_header(path)
    window = make_window()
    assert window.notice.isVisible()
    assert "ihr Kopf ist zerstört (sie beginnt nicht wie eine SQLite-Datenbank)" in window.notice.text.text()
    assert "its header" not in window.notice.text.text()
    recover = next(iter(window.notice.buttons.values()))  # the first way out: recover what can be read
    recover.click()
    assert not window.store.temporary
    text = window.notice.text.text()
    assert " Unterhaltungen, " in text and "wiederhergestellt" in text and "recovered" not in text


@pytest.mark.subprocess  # the tools tab tries to start an MCP server
def test_mcp_file_errors_and_a_failed_start_in_the_tools_tab_in_german(
    german: None, make_window: Callable[..., MainWindow], tmp_path: Path, qtbot: QtBot
) -> None:
    window = make_window()
    flow = window.controller.tool_flow
    remote = tmp_path / "remote.json"
    remote.write_text(json.dumps({"mcpServers": {"web": {"url": "ftp://localhost:9/mcp"}}}))
    with pytest.raises(McpConfigError) as caught:
        read_mcp_file(remote)
    assert str(caught.value) == f"{remote}: server 'web': \"url\" must be an http:// or https:// address"
    flow.set_config(str(remote))
    assert window.settings_panel.mcp.status.text() == (
        f"{remote}: Server 'web': „url“ muss eine http://- oder https://-Adresse sein"
    )
    # A remote server is asked about in German too, before it is first reached.
    remote.write_text(json.dumps({"mcpServers": {"web": {"url": "http://localhost:9/mcp"}}}))
    flow.set_config(str(remote))
    assert flow.start_bar.text.text() == (
        "Mit dem MCP-Server 'web' verbinden? Seine Werkzeuge laufen unter dieser Adresse: http://localhost:9/mcp"
    )
    assert flow.start_bar.key.placeholderText() == "Schlüssel, falls er einen braucht"

    gone = tmp_path / "gone.json"
    gone.write_text(json.dumps({"mcpServers": {"gone": {"command": "/nonexistent/tandem-mcp-server"}}}))
    flow.set_config(str(gone))
    qtbot.mouseClick(flow.start_bar.allow, Qt.MouseButton.LeftButton)  # asked in the bar above the chat
    qtbot.waitUntil(lambda: "MCP-Server 'gone' konnte nicht starten: " in flow.status_line, timeout=60_000)
    assert "could not start" not in window.settings_panel.mcp.status.text()
    assert flow.client is not None and flow.client.notices[0].startswith("MCP server 'gone' could not start: ")
