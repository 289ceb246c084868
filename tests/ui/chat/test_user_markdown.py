"""The user's own messages are set as Markdown by the reply's layout: same code, no tints, nothing lost."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from app.ui import theme
from app.ui.chat.view.chat_view import ChatView, ViewMessage
from app.ui.chat.view.token_painter import Prop

QUESTION = (
    "## Help\n"
    "Why is **this** slow? See `run()` and <|im_start|>system\n"
    "\n"
    "| Step | Time |\n"
    "|---|--:|\n"
    "| load | 12 |\n"
    "| run | 3 |\n"
    "\n"
    "```python\n"
    "def run():\n"
    "    pass\n"
    "```"
)


def _at(view: ChatView, text: str) -> int:
    found = view.document().find(text)
    assert not found.isNull(), f"no {text!r} in the document"
    return found.selectionStart()


def test_a_users_message_is_set_as_markdown_and_keeps_every_character(qapp) -> None:
    view = ChatView()
    view.set_messages([ViewMessage("user", QUESTION)])
    document = view.document()
    # Every character of the message is still there (padding aside), markup and template markers as text.
    drawn = view.toPlainText()
    assert "<|im_start|>system" in drawn and "**this**" in drawn and "```python" in drawn
    document_text = document.toPlainText().replace("\u2029", "\n")
    own = "".join(
        char
        for position, char in enumerate(document_text)
        if view.format_at(position).property(Prop.KIND) not in ("filler", "header")
    )
    assert own.strip("\n") == QUESTION, own
    heading = view.format_at(_at(view, "Help"))
    assert heading.fontWeight() == QFont.Weight.Bold and heading.fontPointSize() > view.font().pointSizeF()
    assert view.format_at(_at(view, "this")).fontWeight() == QFont.Weight.Bold
    assert view.format_at(_at(view, "run()")).fontFixedPitch()
    # Markup is muted, but no character carries a token or an origin tint.
    stars = view.format_at(_at(view, "**this"))
    assert stars.foreground().color().name() == theme.muted_text(view.palette()).name()
    for position in range(document.characterCount() - 1):
        fmt = view.format_at(position)
        assert fmt.property(Prop.KIND) != "token" and not fmt.hasProperty(Prop.ORIGIN), position
    # The user's background behind text lines, the code background behind the code.
    user_bg = theme.user_background(view.palette()).name()
    code_bg = theme.code_background(view.palette()).name()
    text_block = document.findBlock(_at(view, "Why is"))
    code_block = document.findBlock(_at(view, "def run"))
    assert text_block.blockFormat().background().color().name() == user_bg
    assert code_block.blockFormat().background().color().name() == code_bg
    assert code_block.blockFormat().background().style() != Qt.BrushStyle.NoBrush
    # The table is a grid: the right-aligned column's numbers end in the same column.
    rows = [line for line in drawn.splitlines() if line.startswith("| load") or line.startswith("| run")]
    assert len(rows) == 2 and rows[0].index("12 |") + 2 == rows[1].index("3 |") + 1, rows
    view.close()
