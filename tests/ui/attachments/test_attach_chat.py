"""Sending attachments on the real SmolLM2 pair: stored with the message, carried to the engine, shown, kept.

The file may vanish after it was attached (the chat keeps its text), and a
full database stores neither the message nor its files, with the chat still
usable once there is room again.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.ui.chat.attachments.lines import OPEN_ATTACHMENT
from tests.ui.attachments.files import text_pdf
from tests.ui.attachments.steps import click_href, click_paperclip, wait_read
from tests.ui.helpers import Recorder, click_action, load, pair_choice, send, wait_reply

_NO_LIMIT = 1_073_741_823  # SQLite's largest max_page_count


def test_a_sent_attachment_is_stored_carried_to_the_engine_and_outlives_its_file(
    make_window, qtbot, monkeypatch, tmp_path, small_pair
):
    notes = tmp_path / "notes.txt"
    notes.write_text("The launch moved to Thursday at ten in room B.\n")
    report = tmp_path / "report.pdf"
    report.write_bytes(text_pdf(["Revenue rose three percent.", "Costs fell."]))
    window = make_window()
    window.settings_panel.max_tokens.setValue(12)
    load(qtbot, window, pair_choice(small_pair))
    click_paperclip(qtbot, monkeypatch, window, [notes, report])
    wait_read(qtbot, window)
    send(qtbot, window, "When is the launch?")

    controller = window.controller
    conversation = controller.conversation_id
    assert conversation is not None
    stored = window.store.messages(conversation)
    user = stored[0]
    assert user.role == "user" and [a.name for a in user.attachments] == ["notes.txt", "report.pdf"]
    assert "Thursday at ten" in user.attachments[0].text
    assert [s.label for s in user.attachments[1].sections] == ["p. 1", "p. 2"]
    # The prompt's messages carry them to the engine (the context planner decides how they go in).
    prompt_user = next(m for m in controller.history(conversation) if m.role == "user")
    assert prompt_user.attachments == user.attachments
    # The chips above the prompt went with the message; the message shows them.
    assert window.chat.attachments.chips == [] and controller.attachments.attachments() == ()
    shown = window.chat.view.messages[0]
    assert [a.name for a in shown.attachments] == ["notes.txt", "report.pdf"]
    text = window.chat.view.document().toPlainText()
    counted = controller.attachments.counts[user.attachments[0].sha256]
    assert f"notes.txt · {notes.stat().st_size} B · {counted:,} tokens" in text  # counted by the target's tokenizer

    # The files go away; the chat keeps their text: reopened, shown and answered again.
    notes.unlink()
    report.unlink()
    controller.new_conversation()
    controller.open_conversation(conversation)
    click_href(window, f"{OPEN_ATTACHMENT}?message=0&n=1")
    qtbot.waitUntil(lambda: controller.attachments.dialog is not None, timeout=10_000)
    assert "Revenue rose three percent." in controller.attachments.dialog.text.toPlainText()
    controller.attachments.dialog.close()
    recorder = Recorder(window)
    click_action(window, "regenerate", 1)
    wait_reply(qtbot, window, recorder, 0)
    assert [a.name for a in window.store.messages(conversation)[0].attachments] == ["notes.txt", "report.pdf"]
    assert not window.chat.banner.isVisible()


def test_a_full_database_stores_neither_the_message_nor_its_files_and_the_chat_goes_on(
    make_window, qtbot, monkeypatch, tmp_path, small_pair
):
    big = tmp_path / "big.md"
    # About 17 KB (5,000 tokens): more than the room a database that may not grow has left, and more than the
    # small context (the reply reads at most 1024 tokens) takes, as a long file is.
    big.write_text("".join(f"Line {i}: a sentence that takes some room in the database.\n" for i in range(300)))
    window = make_window()
    window.settings_panel.max_tokens.setValue(8)
    window.settings_panel.n_ctx.setValue(1024)
    load(qtbot, window, pair_choice(small_pair))
    send(qtbot, window, "Say hello.")
    conversation = window.controller.conversation_id
    before = len(window.store.messages(conversation))

    db = window.store._db  # SQLite's own full-disk error: the file may not grow past its current size
    db.execute(f"PRAGMA max_page_count={db.execute('PRAGMA page_count').fetchone()[0]}")
    click_paperclip(qtbot, monkeypatch, window, [big])
    wait_read(qtbot, window)
    window.chat.prompt.setPlainText("Summarise the file.")
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.notice.isVisible() or window.chat.banner.isVisible(), timeout=30_000)
    shown = window.notice.text.text() if window.notice.isVisible() else window.chat.banner.text.text()
    assert "full" in shown
    # Nothing half-stored: no message, no attachment row; what was typed and attached waits.
    assert len(window.store.messages(conversation)) == before
    assert db.execute("SELECT COUNT(*) FROM attachments").fetchone()[0] == 0
    assert window.chat.prompt.toPlainText() == "Summarise the file."
    assert [c.pending.attachment.name for c in window.chat.attachments.chips] == ["big.md"]

    db.execute(f"PRAGMA max_page_count={_NO_LIMIT}")
    big.unlink()  # gone between attaching and sending: the chip holds its text
    recorder = Recorder(window)
    window.chat.send_button.click()
    wait_reply(qtbot, window, recorder, 0)
    stored = window.store.messages(conversation)
    assert len(stored) == before + 2 and [a.name for a in stored[before].attachments] == ["big.md"]
