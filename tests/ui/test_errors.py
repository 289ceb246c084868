"""Errors reach the window as a readable message and the app keeps working afterwards."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.engine.llama.session import DrafterKind
from app.engine.store import conversations
from app.ui.chat.controller import Activity
from app.ui.settings.store import PairChoice
from tests.engine.model_files import write_gguf
from tests.ui.helpers import LOAD_TIMEOUT_MS, Recorder, load, pair_choice, send


def _load_expecting_error(qtbot: QtBot, window, choice: PairChoice) -> str:
    recorder = Recorder(window)
    window.load_pair(choice)
    qtbot.waitUntil(lambda: bool(recorder.errors), timeout=LOAD_TIMEOUT_MS)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=30_000)
    assert window.controller.pair is None
    assert window.chat.banner.isVisible()
    return window.chat.banner.text.text()


def test_bad_file_and_incompatible_pair_then_app_still_works(make_window, small_pair, tmp_path, qtbot):
    window = make_window()
    window.settings_panel.max_tokens.setValue(16)

    broken = tmp_path / "broken-model.gguf"
    broken.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\x00" * 40)
    message = _load_expecting_error(qtbot, window, PairChoice(broken, None, DrafterKind.NGRAM))
    assert "broken-model.gguf" in message

    missing = tmp_path / "nowhere.gguf"
    message = _load_expecting_error(qtbot, window, PairChoice(missing, None, DrafterKind.NONE))
    assert "nowhere.gguf" in message

    tiny = write_gguf(tmp_path / "tiny-other-vocab.gguf")
    message = _load_expecting_error(qtbot, window, PairChoice(small_pair[0], tiny, DrafterKind.MODEL))
    assert "cannot draft" in message and "vocabulary size" in message

    load(qtbot, window, pair_choice(small_pair))
    assert not window.chat.banner.isVisible()
    reply = send(qtbot, window, "Say hello.")
    assert reply.text.strip()
    assert not window.chat.banner.isVisible()


def test_prompt_longer_than_the_context_is_reported(make_window, small_pair, qtbot):
    window = make_window()
    window.settings_panel.n_ctx.setValue(256)
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, pair_choice(small_pair))
    assert window.controller.pair is not None and window.controller.pair.n_ctx == 256

    recorder = Recorder(window)
    window.chat.prompt.setPlainText("Please summarise this. " + "The river runs to the sea. " * 80)
    window.chat.send_button.click()
    qtbot.waitUntil(lambda: bool(recorder.errors), timeout=120_000)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=30_000)
    assert "context" in window.chat.banner.text.text()
    stored = window.store.messages(window.controller.conversation_id)
    # The user's message is kept; the planner refused before a reply began, so no empty failed reply
    # is left behind (as for a server that refuses the connection): the banner says why.
    assert [m.role for m in stored] == ["user"] and stored[0].state == conversations.DONE

    window.controller.new_conversation()
    window.settings_panel.max_tokens.setValue(16)  # a new chat starts from the defaults
    recorder.errors.clear()
    reply = send(qtbot, window, "Say hello.", recorder)
    assert reply.text.strip()
