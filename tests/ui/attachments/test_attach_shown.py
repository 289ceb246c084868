"""Attachments in the conversation: chips under a message, a reply's citations, a token card's copy source."""

from __future__ import annotations

from app.core.attachments.record import Attachment, AttachmentKind, AttachmentUse, Section
from app.core.reply.token_record import TokenRecord
from app.ui.chat.attachments.lines import OPEN_ATTACHMENT, OPEN_CITATION
from app.ui.chat.view.chat_view import ViewMessage
from tests.ui.attachments.steps import click_href

_PAGES = ["Page one is about apples.\n\n", "Page two is about pears.\n\n", "Page three is about plums.\n\n"]


def _report() -> Attachment:
    starts = [sum(len(p) for p in _PAGES[:i]) for i in range(len(_PAGES))]
    sections = tuple(Section(f"p. {i + 1}", start) for i, start in enumerate(starts))
    return Attachment("report.pdf", AttachmentKind.PDF, "ab" * 32, 48_000, "".join(_PAGES), sections)


def test_chips_under_a_message_and_citations_under_a_reply_open_the_text(make_window, qtbot):
    window = make_window()
    report = _report()
    uses = (AttachmentUse("report.pdf", report.sha256, False, ("report.pdf, p. 3", "report.pdf, p. 1"), 40),)
    tokens = [
        TokenRecord(text="Plums ", origin="target", p_target=0.9),
        TokenRecord(
            text="are on page three",
            origin="draft",
            p_target=0.8,
            q_draft=1.0,
            source="lookup",
            copied_from="report.pdf, p. 3",
        ),
    ]
    view = window.chat.view
    view.set_messages(
        [
            ViewMessage("user", "What is on page three?", attachments=(report,)),
            ViewMessage("assistant", tokens=tokens, footer="2 tokens", attachment_uses=uses),
        ]
    )
    text = view.document().toPlainText()
    assert "report.pdf · 47 KiB · ≈" in text
    assert "from report.pdf p. 3, p. 1" in text

    click_href(window, f"{OPEN_ATTACHMENT}?message=0&n=0")
    flow = window.controller.attachments
    qtbot.waitUntil(lambda: flow.dialog is not None and flow.dialog.isVisible(), timeout=10_000)
    assert flow.dialog is not None and flow.dialog.text.toPlainText() == report.text
    first = flow.dialog

    # A citation opens the text scrolled to its passage.
    click_href(window, f"{OPEN_CITATION}?message=1&use=0&chunk=0")
    qtbot.waitUntil(lambda: flow.dialog is not first, timeout=10_000)
    dialog = flow.dialog
    assert dialog is not None
    assert dialog.text.textCursor().position() == report.sections[2].start
    assert dialog.sections.currentItem().text() == "p. 3"
    click_href(window, f"{OPEN_CITATION}?message=1&use=0&chunk=1")
    qtbot.waitUntil(lambda: flow.dialog is not dialog, timeout=10_000)
    assert flow.dialog is not None and flow.dialog.text.textCursor().position() == 0

    # The token lookup copied says where from.
    position = text.index("are on page three")
    card = view.tooltip_at_position(position + 1)
    assert card is not None and "copied from" in card and "report.pdf, p. 3" in card
    plain = view.tooltip_at_position(text.index("Plums") + 1)
    assert plain is not None and "copied from" not in plain


def test_a_reply_given_the_whole_file_lists_no_passages(make_window):
    window = make_window()
    report = _report()
    view = window.chat.view
    whole = (AttachmentUse("report.pdf", report.sha256, True, (), 60),)
    view.set_messages(
        [
            ViewMessage("user", "Summarise", attachments=(report,)),
            ViewMessage(
                "assistant",
                tokens=[TokenRecord(text="It is about fruit.", origin="target", p_target=1.0)],
                footer="5",
                attachment_uses=whole,
            ),
        ]
    )
    assert "from report.pdf" not in view.document().toPlainText()


def test_the_stats_tab_counts_copied_tokens_per_source(make_window):
    window = make_window()
    stats = window.stats
    assert stats.copied.text() == "–"
    stats.set_copied({"earlier in this chat": 3, "report.pdf, p. 3": 12, "notes.md": 3})
    assert stats.copied.text() == "report.pdf, p. 3: 12, earlier in this chat: 3, notes.md: 3"
    stats.reset("hybrid")  # a new reply starts from nothing
    assert stats.copied.text() == "–"
