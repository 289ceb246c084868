"""A kill -9 in the middle of a reply loses at most that reply's unsaved tail."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from app.engine.store import conversations
from app.engine.store.conversations import ChatStore
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


def _read_event(process: subprocess.Popen[str], wanted: str, timeout_s: float) -> dict:
    deadline = time.monotonic() + timeout_s
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"the helper exited (code {process.poll()}) before {wanted!r}")
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue  # llama.cpp or Qt chatter
        if event.get("event") == wanted:
            return event
    raise AssertionError(f"no {wanted!r} within {timeout_s:.0f} s")


def test_sigkill_during_generation_keeps_everything_but_the_reply_in_flight(data_dir, small_pair, make_window):
    env = {**os.environ, "TANDEM_DATA_DIR": str(data_dir), "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.ui.kill_helper", str(small_pair[0]), str(small_pair[1])],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        first = _read_event(process, "first", 600)
        streaming = _read_event(process, "streaming", 600)
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(timeout=30) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    store = ChatStore()
    try:
        assert store.integrity_check() == "ok"
        messages = store.messages(first["conversation"])
        assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
        assert messages[0].content == "Say hello."
        assert messages[1].state == conversations.DONE and messages[1].content == first["text"]
        assert messages[1].tokens and "".join(t.text for t in messages[1].tokens) == first["text"]
        assert messages[2].content == "Write a very long story about a lighthouse keeper."
        # The reply in flight: marked interrupted, with at least what was committed before the kill.
        assert messages[3].state == conversations.INTERRUPTED
        assert len(messages[3].tokens) >= streaming["stored_tokens"]
        assert messages[3].content == "".join(t.text for t in messages[3].tokens)
    finally:
        store.close()

    # The window shows it as interrupted, and the partial reply is part of the conversation:
    # the next prompt sees it (no two user turns in a row) and so does the export.
    window = make_window()
    window.controller.open_conversation(first["conversation"])
    assert "interrupted" in window.chat.view.messages[-1].footer
    history = window.controller.history(first["conversation"])
    assert [m.role for m in history if m.role != "system"] == ["user", "assistant", "user", "assistant"]
    assert history[-1].content == messages[3].content
    assert messages[3].content.rstrip() in window.store.export_markdown(first["conversation"])
