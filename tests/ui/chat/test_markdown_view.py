"""The chat view sets streamed Markdown while every token keeps its origin, card and ghost.

Hand-built stored tokens (the records a reloaded chat uses) stream into the
view in uneven pieces, so every Markdown construct is checked exactly and the
streamed document is compared with one laid out in a single pass; the real
pair's streaming is covered in test_streaming.py.
"""

from __future__ import annotations

import random

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFont, QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.core.decoding.events import TokenOrigin
from app.core.reply.token_record import RejectedProposal, TokenRecord
from app.ui import theme
from app.ui.chat.view import reply_drawing
from app.ui.chat.view.chat_view import ChatView, ViewMessage
from app.ui.chat.view.token_painter import Prop

REPLY = (
    "## Fruit\n"
    "Some **bold** words, *one* `len()` call and a [link](https://example.org).\n"
    "\n"
    "| Fruit | Colour |\n"
    "|---|---|\n"
    "| apple | red |\n"
    "| fig | deep purple |\n"
    "\n"
    "> a quote\n"
    "\n"
    "```python\n"
    "def colour(fruit):\n"
    "    return TABLE[fruit]\n"
    "```\n"
    "Done."
)
ORIGINS = ("draft", "corrected", "bonus", "target")


def _tokens(text: str, seed: int = 0) -> list[TokenRecord]:
    rng = random.Random(seed)
    tokens, i = [], 0
    while i < len(text):
        n = rng.randint(1, 5)
        origin = ORIGINS[len(tokens) % 4]
        q = 0.4 if origin != "target" else None
        rejected = RejectedProposal(text="nope", p_target=0.1, q_draft=0.3) if origin == "corrected" else None
        tokens.append(TokenRecord(text=text[i : i + n], origin=origin, p_target=0.6, q_draft=q, rejected=rejected))
        i += n
    return tokens


def _stream(view: ChatView, tokens: list[TokenRecord], seed: int = 1) -> None:
    rng = random.Random(seed)
    view.set_messages([ViewMessage("user", "tell me")])
    view.begin_reply("pair")
    i = 0
    while i < len(tokens):
        n = rng.randint(1, 5)  # one verify step brings 1..K+1 tokens
        view.append_tokens(tokens[i : i + n])
        i += n
    view.end_reply("footer")


def _fragments(view: ChatView):
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            yield block, it.fragment()
            it += 1
        block = block.next()


class _At:
    """The character at a document position: its format and block, as the tests read them."""

    def __init__(self, view: ChatView, position: int) -> None:
        self._format = view.format_at(position)
        self._position = position

    def charFormat(self):  # noqa: N802 - reads like QTextFragment
        return self._format

    def position(self) -> int:
        return self._position


def _fragment_with(view: ChatView, text: str):
    """The block and first character of the first occurrence of ``text`` in the document."""
    found = view.document().find(text)
    assert not found.isNull(), f"no {text!r} in the document"
    position = found.selectionStart()
    return view.document().findBlock(position), _At(view, position)


def test_streamed_markdown_keeps_every_token_and_matches_a_one_pass_layout(qapp) -> None:
    tokens = _tokens(REPLY)
    streamed = ChatView()
    _stream(streamed, tokens)
    spans = [s for s in streamed.token_spans() if s.message_index == 1 and not s.ghost]
    assert [s.text for s in spans] == [t.text for t in tokens]
    assert [s.origin for s in spans] == [t.origin for t in tokens]
    once = ChatView()
    once.set_messages(
        [ViewMessage("user", "tell me"), ViewMessage("assistant", tokens=tokens, header="pair", footer="footer")]
    )
    assert streamed.toPlainText() == once.toPlainText()
    # Same formats too, character by character, for the reply.
    for position in range(streamed.document().characterCount() - 1):
        a, b = streamed.format_at(position), once.format_at(position)
        assert (a.fontWeight(), a.fontItalic(), a.foreground().color().name(), a.background().color().name()) == (
            b.fontWeight(),
            b.fontItalic(),
            b.foreground().color().name(),
            b.background().color().name(),
        ), position
    streamed.close()
    once.close()


def test_markdown_constructs_are_set_and_tokens_keep_tint_and_card(qapp) -> None:
    view = ChatView()
    tokens = _tokens(REPLY)
    _stream(view, tokens)
    text = view.toPlainText()
    # Table columns aligned by filler padding (not part of the reply).
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len({tuple(i for i, c in enumerate(row) if c == "|") for row in rows}) == 1, rows
    _, bold = _fragment_with(view, "old")
    assert bold.charFormat().fontWeight() == QFont.Weight.Bold
    _, heading = _fragment_with(view, "ruit\n"[:3])
    assert heading.charFormat().fontPointSize() > view.font().pointSizeF()
    block, code = _fragment_with(view, "colour(")
    assert code.charFormat().fontFixedPitch() and block.blockFormat().background().style() != Qt.BrushStyle.NoBrush
    keyword_colour = _fragment_with(view, "def")[1].charFormat().foreground().color().name()
    assert keyword_colour not in (view.palette().text().color().name(), "#000000")  # Pygments coloured "def"
    _, link = _fragment_with(view, "lin")
    assert link.charFormat().isAnchor() and link.charFormat().anchorHref() == "https://example.org"
    _, markup = _fragment_with(view, "**")
    assert markup.charFormat().foreground().color().name() == theme.muted_text(view.palette()).name()
    # Every token fragment keeps its origin tint and its hover card.
    colours = theme.origin_colours(view.palette())
    for _, fragment in _fragments(view):
        fmt = fragment.charFormat()
        if fmt.property(Prop.KIND) == "token":
            expected = colours[TokenOrigin(fmt.property(Prop.ORIGIN))]
            if expected is None:
                assert fmt.background().style() == Qt.BrushStyle.NoBrush
            else:
                assert fmt.background().color().name() == expected.name()
            assert "target p" in (view.tooltip_at_position(fragment.position()) or "")
    # Ghost text for every rejected proposal, struck through, Markdown still set.
    view.set_show_ghosts(True)
    ghosts = [s for s in view.token_spans() if s.ghost]
    assert len(ghosts) == sum(1 for t in tokens if t.rejected is not None)
    assert _fragment_with(view, "old")[1].charFormat().fontWeight() == QFont.Weight.Bold
    # The plain reading view keeps the Markdown, drops the tints.
    view.set_show_ghosts(False)
    view.set_coloured(False)
    assert _fragment_with(view, "old")[1].charFormat().fontWeight() == QFont.Weight.Bold
    assert _fragment_with(view, "old")[1].charFormat().background().style() == Qt.BrushStyle.NoBrush
    assert view.toPlainText() == text
    view.close()


def _click_anchor(view: ChatView, href_prefix: str) -> None:
    for _, fragment in _fragments(view):
        fmt = fragment.charFormat()
        if fmt.isAnchor() and fmt.anchorHref().startswith(href_prefix):
            cursor = QTextCursor(view.document())
            cursor.setPosition(fragment.position() + 1)
            rect = view.cursorRect(cursor)
            point = QPoint(rect.center().x(), rect.center().y())
            QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
            return
    raise AssertionError(f"no link {href_prefix}")


def test_copy_code_and_copy_message_copy_the_raw_text(qapp) -> None:
    view = ChatView()
    view.resize(900, 700)
    view.show()
    _stream(view, _tokens(REPLY))
    clipboard = QApplication.clipboard()
    clipboard.setText("")
    _click_anchor(view, "tandem:copy-code")
    assert clipboard.text() == "def colour(fruit):\n    return TABLE[fruit]\n"
    _click_anchor(view, "tandem:copy-message")
    assert clipboard.text() == REPLY
    # The context menu's actions copy the same, from where the pointer is.
    position = _fragment_with(view, "TABLE[")[1].position()
    index, line = view.source_line_at(position)
    assert (index, line) == (1, 12)
    assert view.code_block_at_line(index, line) == "def colour(fruit):\n    return TABLE[fruit]\n"
    assert view.code_block_at_line(index, 3) is None
    view.close()


def test_the_token_card_opens_from_the_keyboard(qapp) -> None:
    view = ChatView()
    view.resize(900, 700)
    view.show()
    tokens = _tokens(REPLY)
    _stream(view, tokens)
    view.setFocus()
    view.moveCursor(QTextCursor.MoveOperation.Start)
    QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    first = view.last_card
    assert first is not None and "Draft, accepted" in first and "target p" in first
    assert view.textCursor().selectedText() == tokens[0].text.replace("#", "#")
    QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    assert "Target correction" in (view.last_card or "")
    assert "nope" in (view.last_card or "")  # the rejected proposal is on the card
    QTest.keyClick(view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert view.last_card == first
    view.last_card = None
    QTest.keyClick(view, Qt.Key.Key_Return, Qt.KeyboardModifier.AltModifier)
    assert view.last_card == first
    assert view.accessibleName() == "Conversation"
    view.close()


def test_underlines_mark_each_origin_without_colour(qapp) -> None:
    view = ChatView()
    tokens = _tokens(REPLY)
    view.set_messages([ViewMessage("assistant", tokens=tokens)])
    view.set_underlines(True)
    seen = {}
    for _, fragment in _fragments(view):
        fmt = fragment.charFormat()
        if fmt.property(Prop.KIND) == "token" and not fmt.isAnchor():
            seen[fmt.property(Prop.ORIGIN)] = fmt.underlineStyle()
    assert seen == {origin.value: style for origin, style in theme.ORIGIN_UNDERLINES.items()}
    view.set_coloured(False)  # the plain reading view has no origin cues at all
    assert all(
        f.charFormat().underlineStyle() == theme.ORIGIN_UNDERLINES[TokenOrigin.TARGET]
        for _, f in _fragments(view)
        if f.charFormat().property(Prop.KIND) == "token" and not f.charFormat().isAnchor()
    )
    view.close()


def _long_reply(sections: int) -> str:
    parts = []
    for i in range(sections):
        parts.append(f"### Part {i}\nSome **text** for part {i}, with `code` in it.\n")
        parts.append("\n".join(f"- item {j} of part {i}" for j in range(8)) + "\n")
    code = "\n".join(f"value_{j} = compute({j}) + {j}" for j in range(150))
    return "\n".join(parts) + f"\n```python\n{code}\n```\nThe end.\n"


def test_each_step_draws_a_bounded_number_of_lines_however_long_the_reply(qapp, monkeypatch) -> None:
    tokens = _tokens(_long_reply(40), seed=3)
    view = ChatView()
    drawn: list[int] = [0]
    original = reply_drawing._draw_line

    def counting(*args, **kwargs):
        drawn[-1] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(reply_drawing, "_draw_line", counting)
    view.set_messages([ViewMessage("user", "go")])
    view.begin_reply("pair")
    per_step: list[int] = []
    for i in range(0, len(tokens), 3):
        drawn.append(0)
        view.append_tokens(tokens[i : i + 3])
        per_step.append(drawn[-1])
    assert len("".join(t.text for t in tokens).splitlines()) > 500
    # The last leaf block is redrawn (a heading, a list item, a code block's last line), never the reply.
    assert max(per_step) <= 4, max(per_step)
    assert min(per_step) >= 1  # every step draws its open line again: the count sees the drawing
    monkeypatch.undo()
    once = ChatView()
    once.set_messages([ViewMessage("user", "go"), ViewMessage("assistant", tokens=tokens, header="pair")])
    assert view.toPlainText() == once.toPlainText()
    colours = [view.format_at(p).foreground().color().name() for p in range(view.document().characterCount() - 1)]
    assert colours == [
        once.format_at(p).foreground().color().name() for p in range(once.document().characterCount() - 1)
    ]
    view.close()
    once.close()


def test_every_chat_control_has_an_accessible_name(qapp) -> None:
    from PySide6.QtWidgets import QAbstractButton, QPlainTextEdit, QProgressBar

    from app.ui.chat.panel import ChatPanel

    panel = ChatPanel()
    controls = [
        *panel.findChildren(QAbstractButton),
        *panel.findChildren(QPlainTextEdit),
        *panel.findChildren(QProgressBar),
        panel.view,
    ]
    assert len(controls) >= 8
    unnamed = [
        type(c).__name__ + ":" + (getattr(c, "text", lambda: "")() or "") for c in controls if not c.accessibleName()
    ]
    assert not unnamed, unnamed
    panel.deleteLater()
