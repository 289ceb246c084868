"""Markdown streamed by the real SmolLM2 pair: a table and highlighted code, every token keeping its origin.

The prompts are ones the small pair answers (greedily) with a Markdown table
and with a fenced Python block; the checks read the document the view built
while the reply streamed.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.core.decoding.events import TokenOrigin
from app.ui import theme
from app.ui.chat.view.chat_view import ChatView
from app.ui.chat.view.token_painter import Prop
from tests.ui.helpers import Recorder, load, pair_choice, send

TABLE_PROMPT = (
    "Complete this Markdown table with two more fruits:\n\n| Fruit | Colour |\n|-------|--------|\n| apple | red |"
)
CODE_PROMPT = (
    "Make a Markdown table with columns Fruit and Colour for apple, banana and cherry. "
    "Then write a Python code block with a function that prints hello."
)


def _reply_fragments(view: ChatView, index: int):
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().property(Prop.MESSAGE_INDEX) == index:
                yield block, fragment
            it += 1
        block = block.next()


def _check_tokens_keep_origin_and_card(view: ChatView, index: int, emitted) -> None:
    spans = [s for s in view.token_spans() if s.message_index == index and not s.ghost]
    assert [s.text for s in spans] == [t.text for t in emitted]
    assert [s.origin for s in spans] == [t.origin.value for t in emitted]
    colours = theme.origin_colours(view.palette())
    for _, fragment in _reply_fragments(view, index):
        fmt = fragment.charFormat()
        if fmt.property(Prop.KIND) != "token":
            continue
        expected = colours[TokenOrigin(fmt.property(Prop.ORIGIN))]
        if expected is None:
            assert fmt.background().style() == Qt.BrushStyle.NoBrush
        else:
            assert fmt.background().color().name() == expected.name()
        tip = view.tooltip_at_position(fragment.position())
        assert tip is not None and "target p" in tip


def test_streamed_table_and_code_keep_every_token(make_window, small_pair, qtbot):
    window = make_window()
    window.settings_panel.max_tokens.setValue(80)
    load(qtbot, window, pair_choice(small_pair))
    view = window.chat.view

    recorder = Recorder(window)
    table = send(qtbot, window, TABLE_PROMPT, recorder)
    index = len(view.messages) - 1
    emitted = [t for step in recorder.steps for t in step.tokens]
    assert "| banana |" in table.text or "|banana|" in table.text.replace(" ", ""), table.text
    rows = [b for b, f in _reply_fragments(view, index) if b.text().lstrip().startswith("|")]
    assert rows, "no table row in the document"
    # Table rows are set in the code font with their pipes muted, and their columns line up.
    pipes = {tuple(i for i, c in enumerate(b.text()) if c == "|") for b in rows}
    assert len(pipes) == 1, [b.text() for b in rows]
    cells = [f for b, f in _reply_fragments(view, index) if b in rows and f.charFormat().property(Prop.KIND) == "token"]
    assert all(f.charFormat().fontFixedPitch() for f in cells)
    muted = theme.muted_text(view.palette()).name()
    assert any(f.text().strip() == "|" and f.charFormat().foreground().color().name() == muted for f in cells)
    _check_tokens_keep_origin_and_card(view, index, emitted)
    assert {t.origin for t in emitted} & {TokenOrigin.DRAFT, TokenOrigin.BONUS}

    recorder = Recorder(window)
    code = send(qtbot, window, CODE_PROMPT, recorder)
    index = len(view.messages) - 1
    emitted = [t for step in recorder.steps for t in step.tokens]
    assert "```python" in code.text, code.text
    code_fragments = [
        f for b, f in _reply_fragments(view, index) if f.text().strip() == "def" and f.charFormat().fontFixedPitch()
    ]
    assert code_fragments, "the code block is not set in the code font"
    keyword = code_fragments[0].charFormat().foreground().color().name()
    assert keyword != view.palette().text().color().name()  # Pygments coloured "def"
    _check_tokens_keep_origin_and_card(view, index, emitted)

    # Ghost text for the rejected proposals, with the Markdown still set.
    window.chat.legend.ghosts.setChecked(True)
    ghosts = [s for s in view.token_spans() if s.ghost]
    rejected = sum(1 for step in recorder.steps for token in step.tokens if token.rejected is not None)
    assert len([g for g in ghosts if g.message_index == index]) == rejected
    assert any(f.charFormat().fontFixedPitch() for b, f in _reply_fragments(view, index) if f.text().strip() == "def")
