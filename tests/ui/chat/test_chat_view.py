"""The chat view's text handling: code blocks and inline code, and the text read back from the document.

These feed the view stored tokens directly (the same records a reloaded chat
uses), so Markdown edge cases are checked exactly; the streaming tests cover
the live path with the real models.
"""

from __future__ import annotations

from PySide6.QtGui import QTextFormat

from app.core.reply.token_record import RejectedProposal, TokenRecord
from app.ui.chat.view.chat_view import ChatView, ViewMessage


def test_code_blocks_are_monospace_with_a_background_and_text_round_trips(qapp):
    view = ChatView()
    tokens = [
        TokenRecord(text="Here:\n", origin="draft", p_target=0.9, q_draft=0.8),
        TokenRecord(text="```py\n", origin="draft", p_target=0.9, q_draft=0.9),
        TokenRecord(
            text="x = 1\n",
            origin="corrected",
            p_target=0.7,
            q_draft=0.1,
            rejected=RejectedProposal(text="y", p_target=0.1, q_draft=0.6),
        ),
        TokenRecord(text="```\n", origin="bonus", p_target=0.5),
        TokenRecord(text="\nDone", origin="target", p_target=0.5),
    ]
    view.set_messages([ViewMessage("user", "show me"), ViewMessage("assistant", tokens=tokens)])
    assert "".join(s.text for s in view.token_spans()) == "".join(t.text for t in tokens)
    blocks = {}
    block = view.document().begin()
    while block.isValid():
        blocks[block.text()] = block
        block = block.next()
    code_bg = blocks["x = 1"].blockFormat().background()
    assert code_bg.style() != 0 and blocks["```py   copy code"].blockFormat().background() == code_bg
    assert not blocks["Done"].blockFormat().hasProperty(QTextFormat.Property.BackgroundBrush)
    assert not blocks[""].blockFormat().hasProperty(QTextFormat.Property.BackgroundBrush)
    fragment = blocks["x = 1"].begin().fragment()
    assert fragment.charFormat().fontFixedPitch()
    assert not blocks["Done"].begin().fragment().charFormat().fontFixedPitch()
    view.close()
