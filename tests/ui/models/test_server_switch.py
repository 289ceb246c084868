"""The window's "Local server" switch: the loaded SmolLM2 pair answering the official `openai` client, the chat
and the requests taking turns on the one engine thread, the counts, and a clean stop."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.engine.llama.session import DrafterKind, PairConfig
from app.ui.chat.controller import Activity
from app.ui.main_window import MainWindow
from app.ui.models.server_switch import SharedServerEngine
from tests.ui.helpers import load, pair_choice, send

ASK = [{"role": "user", "content": "Name three colours."}]
LONG = "Write a long story about a dragon who learns to cook. Use at least 500 words."


def serving_window(qtbot: QtBot, make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path]) -> MainWindow:
    window = make_window()
    window.settings_panel.n_threads.setValue(1)
    window.settings_panel.n_ctx.setValue(1024)
    assert not window.server_switch.toggle.isEnabled()  # nothing loaded: nothing to serve
    load(qtbot, window, pair_choice(small_pair))
    switch = window.server_switch
    assert switch.toggle.isEnabled()
    switch.port.setValue(0)  # any free port: the tests must not depend on 8080 being free
    switch.toggle.setChecked(True)
    assert switch.server is not None, switch.counts.text()
    return window


def refused(url: str) -> bool:
    try:
        httpx2.get(url + "/models", timeout=5)
    except httpx2.ConnectError:
        return True
    return False


def test_the_switch_serves_the_loaded_pair_to_the_openai_client_and_counts_requests(
    make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    window = serving_window(qtbot, make_window, small_pair)
    switch = window.server_switch
    url = switch.url.text()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
    switch.copy_url()
    clipboard = QApplication.clipboard()
    assert clipboard is not None and clipboard.text() == url
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=300)
    results: dict[str, Any] = {}

    def talk() -> None:  # off the GUI thread: the window must keep running its event loop meanwhile
        results["models"] = [m.id for m in client.models.list().data]
        results["reply"] = client.chat.completions.create(model="x", messages=ASK, max_tokens=16, temperature=0)
        results["chunks"] = list(
            client.chat.completions.create(model="x", messages=ASK, max_tokens=16, temperature=0, stream=True)
        )

    worker = threading.Thread(target=talk)
    worker.start()
    qtbot.waitUntil(lambda: not worker.is_alive(), timeout=300_000)
    assert results["models"] == [small_pair[0].stem]
    reply = results["reply"]
    assert reply.choices[0].message.content
    tokens = reply.model_extra["tandem"]["tokens"]
    assert "".join(t["text"] for t in tokens) == reply.choices[0].message.content
    streamed = "".join(c.choices[0].delta.content or "" for c in results["chunks"] if c.choices)
    assert streamed == reply.choices[0].message.content  # greedy: the same reply both ways
    switch.refresh()
    assert switch.counts.text() == "2 requests served · 0 waiting"
    # The chat still works on the same models, and nothing was loaded twice.
    assert send(qtbot, window, "Say hello.").text
    switch.toggle.setChecked(False)
    assert switch.server is None and switch.url.text() == "" and refused(url)


def test_a_request_waits_while_the_chat_replies_and_the_window_closes_the_server(
    make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    window = serving_window(qtbot, make_window, small_pair)
    switch = window.server_switch
    url = switch.url.text()
    engine = switch.engine
    assert isinstance(engine, SharedServerEngine)
    window.settings_panel.max_tokens.setValue(400)
    window.chat.prompt.setPlainText(LONG)
    window.chat.send_requested.emit(LONG)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.GENERATING, timeout=10_000)
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=300)
    answer: dict[str, Any] = {}
    requester = threading.Thread(
        target=lambda: answer.update(reply=client.chat.completions.create(model="x", messages=ASK, max_tokens=8))
    )
    requester.start()
    qtbot.waitUntil(lambda: engine.queued == 1, timeout=30_000)
    switch.refresh()
    assert switch.counts.text() == "0 requests served · 1 waiting"
    window.controller.stop()  # the chat's turn ends; the request's begins
    qtbot.waitUntil(lambda: not requester.is_alive(), timeout=300_000)
    assert answer["reply"].choices[0].message.content
    qtbot.waitUntil(lambda: switch.counts.text() == "1 request served · 0 waiting", timeout=5_000)
    window.close()
    assert switch.server is None and refused(url)


def test_a_port_in_use_is_said_and_the_switch_stays_off(
    make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path]
) -> None:
    window = make_window()
    switch = window.server_switch
    switch.set_pair(PairConfig(small_pair[0], small_pair[1], DrafterKind.MODEL))  # the port fails before any request
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        switch.port.setValue(port)
        switch.toggle.setChecked(True)
        assert switch.server is None and not switch.toggle.isChecked()
        assert f"cannot listen on port {port}" in switch.counts.text()
    switch.set_pair(None, "nothing to serve")
    assert not switch.toggle.isEnabled() and switch.counts.text() == "nothing to serve"


def test_the_switch_refuses_other_origins_allows_the_listed_one_and_logs_when_asked(
    make_window: Callable[..., MainWindow],
    small_pair: tuple[Path, Path],
    capfd: pytest.CaptureFixture[str],
    qtbot: QtBot,
) -> None:
    window = make_window()
    switch = window.server_switch
    assert not switch.log_requests.isChecked() and switch.origins.text() == ""  # off by default: no log, no pages
    switch.set_pair(PairConfig(small_pair[0], small_pair[1], DrafterKind.MODEL))
    switch.port.setValue(0)
    switch.origins.setText("localhost:3000")
    switch.toggle.setChecked(True)
    assert switch.server is None and "'localhost:3000' is not a web origin" in switch.counts.text()
    switch.origins.setText("http://localhost:3000, http://127.0.0.1:5173")
    switch.toggle.setChecked(True)
    assert switch.server is not None
    assert not switch.origins.isEnabled() and not switch.log_requests.isEnabled()
    base = switch.url.text()[:-3]

    def preflight(origin: str) -> httpx2.Response:
        headers = {"Origin": origin, "Access-Control-Request-Method": "POST"}
        return httpx2.request("OPTIONS", base + "/v1/chat/completions", headers=headers, timeout=30)

    allowed = preflight("http://127.0.0.1:5173")
    assert allowed.status_code == 204 and allowed.headers["access-control-allow-origin"] == "http://127.0.0.1:5173"
    assert preflight("http://evil.example").status_code == 403
    assert httpx2.get(base + "/v1/models", headers={"Host": "evil.example"}, timeout=30).status_code == 403
    assert " tokens " not in capfd.readouterr().err  # the log is off unless asked for
    switch.toggle.setChecked(False)
    assert switch.origins.isEnabled()
    switch.log_requests.setChecked(True)
    switch.toggle.setChecked(True)
    assert httpx2.get(switch.url.text() + "/models", timeout=30).status_code == 200
    qtbot.waitUntil(lambda: " GET /v1/models 200 - tokens " in capfd.readouterr().err, timeout=10_000)
    switch.toggle.setChecked(False)
    # What started the server is what the next window offers: the port, the pages, the log choice.
    again = make_window()
    assert again.server_switch.origins.text() == "http://localhost:3000, http://127.0.0.1:5173"
    assert again.server_switch.log_requests.isChecked() and again.server_switch.port.value() == 0


def test_keep_serving_leaves_the_server_running_with_the_window_closed_until_quit(
    make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    window = serving_window(qtbot, make_window, small_pair)
    switch = window.server_switch
    url = switch.url.text()
    switch.keep_serving.click()
    assert window.app_settings.flag("keep_serving", False)  # remembered for the next start

    window.close()  # with no system tray here (offscreen), the window is minimised: the task bar brings it back
    assert window.background_serving.held and window.host.thread.isRunning() and switch.server is not None
    assert not window.isVisible() or window.isMinimized()
    assert "keeps serving on " + url in window.statusBar().currentMessage()
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=300)
    results: dict[str, Any] = {}
    worker = threading.Thread(
        target=lambda: results.setdefault(
            "reply", client.chat.completions.create(model="x", messages=ASK, max_tokens=8, temperature=0)
        )
    )
    worker.start()
    qtbot.waitUntil(lambda: not worker.is_alive(), timeout=300_000)
    assert results["reply"].choices[0].message.content  # served with the window closed

    window.beacon.raise_requested.emit()  # a second launch brings the window back
    assert window.isVisible() and not window.isMinimized() and not window.background_serving.held
    window.close()
    assert window.background_serving.held  # closed again: still serving
    window.menus.quit_action.trigger()  # File → Quit stops the server and the engine thread
    qtbot.waitUntil(lambda: not window.host.thread.isRunning(), timeout=60_000)
    assert refused(url)
