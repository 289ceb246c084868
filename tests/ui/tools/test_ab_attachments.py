"""A/B on a chat with an attached file, on the real SmolLM2 pair and the window's real store: the runs' prompt is the
one a reply to the chat runs, the file's text in it."""

from __future__ import annotations

from tests.ui.attachments.steps import click_paperclip, wait_read
from tests.ui.helpers import load, pair_choice, send

NOTE = "The lighthouse keeper's cat is called Marmalade and sleeps on the third step."


def test_an_ab_run_on_a_chat_with_an_attachment_runs_the_prompt_with_the_file(
    make_window, small_pair, qtbot, monkeypatch, tmp_path
):
    note = tmp_path / "note.txt"
    note.write_text(NOTE + "\n")
    window = make_window()
    window.settings_panel.max_tokens.setValue(4)
    load(qtbot, window, pair_choice(small_pair))
    click_paperclip(qtbot, monkeypatch, window, [note])
    wait_read(qtbot, window)
    send(qtbot, window, "What is the cat called?")
    (stored,) = [a for m in window.controller.path for a in m.attachments]
    assert stored.text.strip() == NOTE  # the file lives in the chat's store now

    dialog = window.tools.run_ab(repeats=1, max_tokens=4)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.complete, timeout=600_000)
    assert [r.drafter.value for r in dialog.runs] == ["none", "model"]
    # What the target last ran (the second arm's prompt, then its few tokens) holds the file as the planner put it.
    target = window.host.worker._pair.target
    ran = b"".join(target.token_bytes(t) for t in target.kv_tokens).decode("utf-8", errors="replace")
    assert NOTE in ran and "--- note.txt (attached) ---" in ran
    assert ran.index(NOTE) < ran.index("What is the cat called?")
    dialog.close()
