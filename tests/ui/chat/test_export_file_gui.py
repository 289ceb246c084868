"""The window's Export writes through the same safe writer as the CLI: a file it may replace, never a link or device."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest


def _chat(window: object) -> int:
    store = window.store  # type: ignore[attr-defined]
    conversation = store.create_conversation("Colours")
    store.add_message(conversation, "user", "Name a colour.")
    store.add_message(conversation, "assistant", "Vermilion")
    return int(conversation)


def test_export_replaces_a_file_the_dialog_confirmed(make_window, tmp_path: Path) -> None:
    window = make_window()
    conversation = _chat(window)
    target = tmp_path / "chat.json"
    target.write_text("an older export")
    assert window.sidebar.export(conversation, "json", target) == target
    assert json.loads(target.read_text(encoding="utf-8"))["title"] == "Colours"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "tandem-data") == ["chat.json"]


@pytest.mark.skipif(os.name == "nt", reason="POSIX links and FIFOs")
def test_export_refuses_a_link_or_a_fifo_and_says_so(make_window, tmp_path: Path) -> None:
    window = make_window()
    conversation = _chat(window)
    victim = tmp_path / "bashrc"
    victim.write_text("precious\n")
    link = tmp_path / "chat.md"
    link.symlink_to(victim)
    assert window.sidebar.export(conversation, "markdown", link) is None
    assert "symbolic link" in window.statusBar().currentMessage()
    assert link.is_symlink() and victim.read_text() == "precious\n"
    fifo = tmp_path / "fifo.md"
    os.mkfifo(fifo)
    assert window.sidebar.export(conversation, "markdown", fifo) is None
    assert "FIFO" in window.statusBar().currentMessage()
