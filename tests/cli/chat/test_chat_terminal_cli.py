"""`python main.py chat --remote` against a real local server that streams terminal escapes: shown, not obeyed.

The server splits an OSC 52 clipboard write across two events, sets the
window title, clears the screen with a C1 CSI and fakes Tandem's own red; its
error text carries escapes too. Tandem's own colours (forced on) are the only
escape sequences that may reach the terminal.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.engine.remote.replay_server import ReplayHandler, ReplayServer, chat_chunk
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
TANDEM_STYLES = re.compile("\x1b\\[(?:32|31|34|0)m")  # app.cli.chat.printing's colours and reset
PIECES = ["Hello \x1b", "]52;c;cm0gLXJmIH4=\x07 ", "\x1b]0;pwned\x07 \x9b2J ", "\x1b[31mfake red\x1b[0m", " end"]


def _chat(url: str, data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "chat", "--remote", url, "--max-tokens", "64", "hi"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "TANDEM_DATA_DIR": str(data), "FORCE_COLOR": "1"},
        check=False,
    )


def test_a_streamed_reply_shows_its_escapes_and_keeps_tandems_colours(data_dir):
    events = [chat_chunk(p) for p in PIECES[:-1]] + [chat_chunk(PIECES[-1], "stop")]
    with ReplayServer(lambda h: h.send_events(events)) as server:
        result = _chat(server.url, data_dir)
    assert result.returncode == 0, result.stderr
    assert TANDEM_STYLES.search(result.stdout)  # the legend's colours are Tandem's and stay
    assert not OBEYED.search(TANDEM_STYLES.sub("", result.stdout)), repr(result.stdout)
    shown = TANDEM_STYLES.sub("", result.stdout)
    assert "Hello \\x1b]52;c;cm0gLXJmIH4=\\x07 \\x1b]0;pwned\\x07 \\x9b2J \\x1b[31mfake red\\x1b[0m end" in shown


def test_a_servers_error_text_is_one_line_with_its_escapes_shown(data_dir):
    def refuse(h: ReplayHandler) -> None:
        h.send_json(500, {"error": {"message": "\x1b]0;pwned\x07\x1b[2J boom", "type": "x"}})

    with ReplayServer(refuse) as server:
        result = _chat(server.url, data_dir)
    assert result.returncode == 2 and result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert not OBEYED.search(result.stderr) and "\\x1b]0;pwned\\x07\\x1b[2J boom" in result.stderr
