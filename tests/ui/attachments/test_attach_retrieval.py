"""A reply that used passages of a long attachment, on the real SmolLM2 pair: its footer cites them, each clickable.

Needs the context planner (attach26x's branch): until the branches meet
these tests are skipped, as the window then sends no attachment to the model.
"""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import Qt

from app.engine.reply import ReplyRequest
from app.ui.chat.attachments.lines import OPEN_CITATION
from tests.ui.attachments.files import text_pdf
from tests.ui.attachments.steps import click_href, click_paperclip, wait_read
from tests.ui.helpers import load, pair_choice, send

pytestmark = pytest.mark.skipif(
    "whole_documents" not in {f.name for f in dataclasses.fields(ReplyRequest)},
    reason="the context planner is not on this branch yet",
)

_PAGES = [
    " ".join(f"Page {page} talks about the weather in town number {page} and nothing else." for _ in range(30))
    for page in range(1, 13)
]
_PAGES[6] = "The secret launch code is PURPLE-HARBOUR-42, kept in the vault. " * 10


def test_a_reply_from_retrieved_passages_cites_them_and_each_opens_its_text(
    make_window, qtbot, monkeypatch, tmp_path, small_pair
):
    report = tmp_path / "report.pdf"
    report.write_bytes(text_pdf(_PAGES))
    window = make_window()
    window.settings_panel.n_ctx.setValue(1024)
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, pair_choice(small_pair))
    click_paperclip(qtbot, monkeypatch, window, [report])
    wait_read(qtbot, window)
    send(qtbot, window, "What is the secret launch code kept in the vault?")

    reply = window.chat.view.messages[-1]
    (use,) = reply.attachment_uses
    assert not use.whole and use.chunks, use
    assert any("p. 7" in chunk for chunk in use.chunks)  # BM25 found the page that answers
    # Ranked by the chat database's own FTS index (from the engine thread, on a connection of its own).
    assert window.store._db.execute("SELECT count(*) FROM attachment_chunks").fetchone()[0] > 0
    text = window.chat.view.document().toPlainText()
    assert "from report.pdf p. " in text
    number = next(i for i, chunk in enumerate(use.chunks) if "p. 7" in chunk)
    click_href(window, f"{OPEN_CITATION}?message=1&use=0&chunk={number}")
    flow = window.controller.attachments
    qtbot.waitUntil(lambda: flow.dialog is not None, timeout=10_000)
    attachment = window.store.messages(window.controller.conversation_id)[0].attachments[0]
    page7 = next(s for s in attachment.sections if s.label == "p. 7")
    assert flow.dialog.text.textCursor().position() == page7.start
    assert flow.dialog.sections.currentItem().text() == "p. 7"


def test_whole_document_that_does_not_fit_is_said_on_the_reply(make_window, qtbot, monkeypatch, tmp_path, small_pair):
    report = tmp_path / "report.pdf"
    report.write_bytes(text_pdf(_PAGES))
    window = make_window()
    window.settings_panel.n_ctx.setValue(1024)
    window.settings_panel.max_tokens.setValue(8)
    load(qtbot, window, pair_choice(small_pair))
    click_paperclip(qtbot, monkeypatch, window, [report])
    wait_read(qtbot, window)
    qtbot.mouseClick(window.chat.attachments.chips[0].whole, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "does not fit whole" in window.chat.gauge.attachment_notice.text(), timeout=30_000)
    send(qtbot, window, "Summarise the report.")
    assert "report.pdf does not fit whole" in window.chat.view.messages[-1].notice
