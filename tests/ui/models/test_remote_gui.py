"""The picker's "Server" choice against real servers: Tandem's own `serve` on the SmolLM2 pair, llama-server, and
a scripted local HTTP server for a server that goes silent; replies stream into the same view and store."""

from __future__ import annotations

import json
import math
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.core.decoding.events import FinishReason
from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.remote.client import KIND_NOTES, ServerKind
from app.engine.remote.credentials import KEY_FILE
from app.engine.remote.llama_server import LlamaServerProcess, find_binary, free_port
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine
from app.engine.store import conversations
from app.ui.chat.controller import Activity
from app.ui.main_window import MainWindow
from app.ui.models import server_choice
from app.ui.models.server_choice import ServerChoice
from app.ui.settings.store import AppSettings
from app.ui.threads.worker import LOCAL_ONLY
from tests.engine.remote.replay_server import ReplayHandler, ReplayServer, chat_chunk
from tests.paths import REPO_ROOT
from tests.ui.helpers import Recorder, send
from tests.ui.models.server_steps import connect, use

ROOT = REPO_ROOT
KEY = "test-key"
LONG = "Write a long story about a dragon who learns to cook. Use at least 500 words."


@pytest.fixture(autouse=True)
def no_system_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys the tests save never reach the keyring of the machine running them: the file fallback is used."""
    monkeypatch.setattr(keyring, "get_keyring", lambda: keyring.backends.fail.Keyring())


@pytest.fixture(scope="module")
def tandem_server(small_pair: tuple[Path, Path]) -> Iterator[RunningServer]:
    engine = ServerEngine(
        PairConfig(small_pair[0], small_pair[1], DrafterKind.MODEL, n_ctx=1024, n_threads=1),
        draft_length=3,  # fixed, so the small pair drafts (adaptive would switch drafting off)
    )
    engine.start()
    with RunningServer(engine, api_key=KEY) as running:
        yield running


def start_reply(qtbot: QtBot, window: MainWindow, text: str) -> None:
    window.chat.prompt.setPlainText(text)
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.GENERATING, timeout=10_000)


def last_reply(window: MainWindow) -> conversations.StoredMessage:
    cid = window.controller.conversation_id
    assert cid is not None
    return window.store.messages(cid)[-1]


def test_connect_lists_the_models_and_says_what_the_server_reports(
    make_window: Callable[..., MainWindow], tandem_server: RunningServer, data_dir: Path, qtbot: QtBot
) -> None:
    window = make_window()
    choice = connect(qtbot, window, tandem_server.url, KEY)
    assert [choice.models.itemText(i) for i in range(choice.models.count())] == [tandem_server.engine.model_name]
    assert choice.connected_kind is ServerKind.TANDEM and "Tandem" in choice.kind.text()
    assert choice.note.text() == KIND_NOTES[ServerKind.TANDEM]
    # No keyring here: the key is in the data folder, readable by its owner only, and the form says so.
    path = data_dir / KEY_FILE
    assert str(path) in choice.key_location.text()
    assert json.loads(path.read_text()) == {tandem_server.url: KEY}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    use(qtbot, window, choice)
    # The next start fills the form in with the server, its model and the remembered key.
    again = ServerChoice(window.background)
    again.restore(AppSettings().remote())
    assert again.url.text() == tandem_server.url and again.key.text() == KEY
    assert window.chat.gauge.label.text().startswith("0 / 1,024 tokens")  # the context the server states


def test_refused_connection_and_wrong_key_each_get_one_clear_line(
    make_window: Callable[..., MainWindow], tandem_server: RunningServer, data_dir: Path, qtbot: QtBot
) -> None:
    window = make_window()
    choice = connect(qtbot, window, f"http://127.0.0.1:{free_port()}/v1")
    assert choice.status.text().startswith("✗ cannot connect to http://127.0.0.1:")
    assert "\n" not in choice.status.text() and not choice.use_button.isEnabled()
    choice = connect(qtbot, window, tandem_server.url, "wrong-key")
    assert "refused the API key (401)" in choice.status.text()
    assert choice.models.count() == 0 and not choice.use_button.isEnabled()
    assert not (data_dir / KEY_FILE).exists()  # a refused key is not remembered
    choice = connect(qtbot, window, "gpu-box:8080")
    assert "must start with http://" in choice.status.text()
    choice = connect(qtbot, window, "http://no-such-host.invalid:8080/v1")
    assert choice.status.text() == "✗ cannot resolve the server's name in http://no-such-host.invalid:8080/v1"


def test_a_server_that_never_answers_times_out_in_one_line(
    make_window: Callable[..., MainWindow], monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    monkeypatch.setattr(server_choice, "CONNECT_TIMEOUT_S", 1.0)
    with socket.socket() as silent:  # accepts connections (the backlog) and never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        choice = connect(qtbot, make_window(), url)
    assert choice.status.text() == f"✗ {url} did not answer in time (ReadTimeout)"


def test_a_reply_from_tandem_serve_streams_with_origins_and_is_stored(
    make_window: Callable[..., MainWindow], tandem_server: RunningServer, data_dir: Path, qtbot: QtBot
) -> None:
    window = make_window()
    window.settings_panel.max_tokens.setValue(32)
    use(qtbot, window, connect(qtbot, window, tandem_server.url, KEY))
    assert window.pair_status.text() == window.controller.pair.remote.label  # type: ignore[union-attr]
    # The local-only tools are off while a server answers, and say why.
    for action in (window.tools.ab_action, window.tools.sweep_action, window.tools.preflight_action):
        assert not action.isEnabled() and action.toolTip() == LOCAL_ONLY
    assert not window.memory.isEnabled()
    recorder = Recorder(window)
    finished = send(qtbot, window, "Name three colours.", recorder)
    assert finished.text and finished.reason in (FinishReason.EOG, FinishReason.MAX_TOKENS)
    shown = window.chat.view.messages[-1]
    assert "".join(t.text for t in shown.tokens) == finished.text
    origins = {t.origin for t in shown.tokens}
    assert origins & {"draft", "corrected", "bonus"}, origins  # K=3 on the server: every step drafts
    stored = last_reply(window)
    assert stored.state == conversations.DONE and stored.content == finished.text
    assert [t.origin for t in stored.tokens] == [t.origin for t in shown.tokens]
    assert stored.meta["drafter"] == "server (Tandem)" and tandem_server.url.split("//")[1][:-3] in stored.meta["pair"]
    assert stored.meta["stats"]["drafted"] == finished.stats.drafted > 0
    # The statistics panel shows the server's counters.
    assert f"({finished.stats.accepted}/{finished.stats.drafted})" in window.stats.acceptance.text()
    assert AppSettings().remote() is not None and AppSettings().remote().model == tandem_server.engine.model_name  # type: ignore[union-attr]


def test_a_server_killed_mid_reply_leaves_the_partial_reply_stored_as_failed(
    make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    serve = subprocess.Popen(
        [sys.executable, "main.py", "serve", "--port", "0", "--target", str(small_pair[0]), "--draft",
         str(small_pair[1]), "--draft-max", "3", "--ctx", "1024", "--threads", "1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert serve.stdout is not None
        line = serve.stdout.readline()
        assert " at http://" in line, line + (serve.stderr.read() if serve.stderr else "")
        url = line.rsplit(" at ", 1)[1].strip()
        window = make_window()
        window.settings_panel.max_tokens.setValue(600)
        use(qtbot, window, connect(qtbot, window, url))
        recorder = Recorder(window)
        start_reply(qtbot, window, LONG)
        qtbot.waitUntil(lambda: len(recorder.steps) >= 4, timeout=120_000)
        serve.kill()
        serve.wait(30)
        qtbot.waitUntil(lambda: bool(recorder.errors), timeout=60_000)
        qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=30_000)
    finally:
        serve.kill()
        serve.wait(30)
        for stream in (serve.stdout, serve.stderr):
            if stream is not None:
                stream.close()
    message = recorder.errors[-1]
    assert "mid-reply" in message or "ended before the reply did" in message, message
    assert message in window.chat.banner.text.text()
    stored = last_reply(window)
    shown = "".join(t.text for t in window.chat.view.messages[-1].tokens)
    assert stored.state == conversations.FAILED and stored.meta["error"] == message
    assert stored.content and stored.content == shown  # everything that arrived is kept, nothing else
    assert stored.content.startswith("".join(s.text for s in recorder.steps[:4]))


def test_stop_cuts_the_stream_of_a_server_that_has_gone_silent(
    make_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    release = threading.Event()

    def one_chunk_then_silence(handler: ReplayHandler) -> None:
        handler.send_events([chat_chunk("Once upon a time")], done=False)
        release.wait(120)  # a server stuck in a long prefill: nothing more for minutes

    with ReplayServer(one_chunk_then_silence) as server:
        window = make_window()
        choice = connect(qtbot, window, server.url)
        assert choice.connected_kind is ServerKind.PLAIN and choice.note.text() == KIND_NOTES[ServerKind.PLAIN]
        use(qtbot, window, choice)
        recorder = Recorder(window)
        start_reply(qtbot, window, "Tell me a story.")
        qtbot.waitUntil(lambda: len(recorder.steps) == 1, timeout=30_000)
        window.controller.stop()
        # Far sooner than the silence ends: Stop shut the socket under the blocked read.
        qtbot.waitUntil(lambda: bool(recorder.finished or recorder.errors), timeout=20_000)
        qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=10_000)
        release.set()
    assert not recorder.errors, recorder.errors
    assert recorder.finished and recorder.finished[-1].reason is FinishReason.CANCELLED
    stored = last_reply(window)
    assert stored.state == conversations.CANCELLED and stored.content == "Once upon a time"
    assert stored.tokens[0].origin == "target"
    # The server sent no probability: stored as unknown, read back as NaN, exported as null.
    assert math.isnan(stored.tokens[0].p_target)
    exported = json.dumps(window.store.export_json(stored.conversation_id), allow_nan=False)
    assert '"p_target": null' in exported
    assert "no draft statistics" in window.chat.view.messages[-1].footer


@pytest.mark.subprocess  # the window starts llama-server
@pytest.mark.skipif(find_binary() is None, reason="llama-server is not built (scripts/build_llama_server.sh)")
def test_llama_server_replies_are_coloured_by_its_verify_steps(
    make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    with LlamaServerProcess(small_pair[0], small_pair[1], n_ctx=1024, threads=1) as server:
        window = make_window()
        window.settings_panel.max_tokens.setValue(48)
        choice = connect(qtbot, window, server.url)
        assert choice.connected_kind is ServerKind.LLAMA_SERVER
        use(qtbot, window, choice)
        finished = send(qtbot, window, "Write a Python function that adds two numbers.")
    stored = last_reply(window)
    assert stored.content == finished.text and "draft" in {t.origin for t in stored.tokens}
    assert stored.meta["drafter"] == "server (llama-server)" and finished.stats.drafted > 0
    # What llama-server does not send reads "not reported", never "0 ms"; its drafts are counted.
    assert window.stats.timing.text() == "not reported" and window.stats.threads.text() == "not reported"
    assert window.stats.rules.text() == "not reported"
    assert f"({finished.stats.accepted}/{finished.stats.drafted})" in window.stats.acceptance.text()


def test_a_malformed_event_ends_the_reply_with_all_its_text_kept(
    make_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    # llama-server's running counters: " two" opens a verify step that kept 2 of 3 drafts, so the
    # engine holds it back until the step's third token, which never comes.
    def garbage_mid_step(handler: ReplayHandler) -> None:
        handler.send_events(
            [
                chat_chunk("One", timings={"predicted_n": 1, "draft_n": 0, "draft_n_accepted": 0}),
                chat_chunk(" two", timings={"predicted_n": 2, "draft_n": 3, "draft_n_accepted": 2}),
                "{not json",
            ],
            done=False,
        )

    with ReplayServer(garbage_mid_step) as server:
        window = make_window()
        use(qtbot, window, connect(qtbot, window, server.url))
        recorder = Recorder(window)
        start_reply(qtbot, window, "Count.")
        qtbot.waitUntil(lambda: bool(recorder.errors), timeout=30_000)
        qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=10_000)
    assert recorder.errors == [
        "the server sent an event Tandem cannot read: malformed JSON '{not json': the partial reply is kept"
    ]
    stored = last_reply(window)
    assert stored.state == conversations.FAILED and stored.content == "One two"  # the held-back text too
    assert [(t.text, t.origin) for t in stored.tokens] == [("One", "target"), (" two", "target")]
    assert window.chat.view.messages[-1].footer == "failed: " + recorder.errors[0]
