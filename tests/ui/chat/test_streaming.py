"""Streaming a real reply: the coloured spans in the document are exactly the engine's step events.

Runs the SmolLM2 pair (target Q4_1, draft Q4_0), which agree on about half
of the greedy drafts, so accepted, corrected and bonus tokens all appear.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest

from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.events import FinishReason, TokenOrigin
from app.engine.llama.profile_store import ProfileStore
from app.engine.store import conversations
from app.ui import theme
from app.ui.chat.view.token_cards import token_tooltip
from app.ui.chat.view.token_painter import Prop, ghost_text
from tests.ui.helpers import Recorder, load, pair_choice, send

PROMPT = "List five fruits, one per line."


def test_spans_match_step_events(window, qtbot):
    window.settings_panel.max_tokens.setValue(40)
    recorder = Recorder(window)
    finished = send(qtbot, window, PROMPT, recorder)

    view = window.chat.view
    reply_index = len(view.messages) - 1
    spans = [s for s in view.token_spans() if s.message_index == reply_index and not s.ghost]
    emitted = [t for step in recorder.steps for t in step.tokens]
    assert emitted, "the engine emitted no tokens"
    assert [s.text for s in spans] == [t.text for t in emitted]
    assert [s.origin for s in spans] == [t.origin.value for t in emitted]
    assert "".join(s.text for s in spans) == finished.text
    origins = {t.origin for t in emitted}
    assert TokenOrigin.DRAFT in origins and TokenOrigin.CORRECTED in origins, origins

    # Every token fragment is tinted with its origin's palette colour (target-only: no tint).
    colours = theme.origin_colours(view.palette())
    checked = 0
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.property(Prop.KIND) == "token":
                expected = colours[TokenOrigin(fmt.property(Prop.ORIGIN))]
                if expected is None:
                    assert fmt.background().style() == Qt.BrushStyle.NoBrush
                else:
                    assert fmt.background().color().name() == expected.name()
                checked += 1
            it += 1
        block = block.next()
    # Tokens that are only newlines have no fragment (they are block breaks); every other one was checked.
    assert checked >= len([t for t in emitted if t.text.strip("\n")])

    # Hovering a drafted token shows its origin and both probabilities.
    first_draft = next(i for i, t in enumerate(emitted) if t.origin is TokenOrigin.DRAFT)
    position = _position_of_token(view, reply_index, first_draft)
    cursor = QTextCursor(view.document())
    cursor.setPosition(position + 1)
    rect = view.cursorRect(cursor)
    tip = view.tooltip_at(QPointF(rect.left() - 1, rect.center().y()))
    assert tip is not None
    assert "Draft, accepted" in tip
    assert f"target p</td><td>{emitted[first_draft].p_target:.3f}" in tip
    assert f"draft q</td><td>{emitted[first_draft].q_draft:.3f}" in tip

    # Stored as it streamed: the tokens in SQLite carry the same origins.
    messages = window.store.messages(window.controller.conversation_id)
    assert messages[-1].state == conversations.DONE
    assert [t.origin for t in messages[-1].tokens] == [t.origin.value for t in emitted]


def test_rejected_proposals_as_ghost_text(window, qtbot):
    window.settings_panel.max_tokens.setValue(40)
    recorder = Recorder(window)
    send(qtbot, window, PROMPT, recorder)
    view = window.chat.view
    reply_index = len(view.messages) - 1

    expected: dict[int, str] = {}
    offset = 0
    for step in recorder.steps:
        for position, token in enumerate(step.tokens):
            if token.rejected is not None:
                expected[offset + position] = ghost_text(token.rejected.text)
        offset += len(step.tokens)
    assert expected, "no draft was rejected: the test needs a pair that disagrees"

    assert not [s for s in view.token_spans() if s.ghost]
    window.chat.legend.ghosts.setChecked(True)
    ghosts = [s for s in view.token_spans() if s.ghost and s.message_index == reply_index]
    assert {g.token_index: g.text for g in ghosts} == expected
    # A ghost sits right before the token that replaced it, struck through.
    spans = [s for s in view.token_spans() if s.message_index == reply_index]
    for i, span in enumerate(spans):
        if span.ghost:
            assert spans[i + 1].token_index == span.token_index and not spans[i + 1].ghost
    fmt = view.format_at(_position_of_token(view, reply_index, ghosts[0].token_index, ghost=True))
    assert fmt.fontStrikeOut()
    assert "Rejected draft proposal" in (token_tooltip(fmt) or "")

    # The clean reading view drops the tints but keeps the text.
    window.chat.legend.coloured.setChecked(False)
    window.chat.legend.ghosts.setChecked(False)
    text_before = [s.text for s in view.token_spans()]
    fmt = view.format_at(_position_of_token(view, reply_index, 0))
    assert fmt.background().style() == Qt.BrushStyle.NoBrush
    assert [s.text for s in view.token_spans()] == text_before


def test_cancel_mid_reply_then_next_reply_is_correct(window, qtbot):
    window.settings_panel.max_tokens.setValue(24)
    recorder = Recorder(window)
    question = "What is the capital of France?"
    reference = send(qtbot, window, question, recorder).text
    assert reference.strip()

    window.controller.new_conversation()
    window.settings_panel.max_tokens.setValue(400)
    window.chat.prompt.setPlainText("Write a long story about a lighthouse keeper.")
    steps_before = len(recorder.steps)
    window.chat.send_button.click()
    qtbot.waitUntil(lambda: len(recorder.steps) >= steps_before + 3, timeout=300_000)
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: len(recorder.finished) == 2, timeout=120_000)
    cancelled = recorder.finished[-1]
    assert cancelled.reason is FinishReason.CANCELLED
    assert cancelled.stats.emitted < 400
    stored = window.store.messages(window.controller.conversation_id)
    assert stored[-1].state == conversations.CANCELLED
    assert "stopped" in window.chat.view.messages[-1].footer

    # A fresh chat with the first question gets the same greedy answer as before the cancel.
    window.controller.new_conversation()
    window.settings_panel.max_tokens.setValue(24)
    again = send(qtbot, window, question, recorder)
    assert again.reason is not FinishReason.CANCELLED
    assert again.text == reference


# A fresh window (make_window), not the module's: the recorded timing (load_timing) must be in place when the pair
# loads, and the adaptive default is what a first start has.
def test_adaptive_default_measures_a_draft_then_says_its_choice(make_window, small_pair, load_timing, qtbot):
    # The small pair's draft is as big as its target, so no draft length can pay:
    # the default (adaptive) must switch drafting off and say so instead of showing no colours.
    assert ChatSettings().adaptive
    window = make_window(adaptive=True)
    # The timing at load is recorded (load_timing), so whether the draft model reads the prompt does not
    # follow this machine's load; 128 tokens leave room to measure a draft after that read.
    window.settings_panel.max_tokens.setValue(128)
    load(qtbot, window, pair_choice(small_pair))
    recorder = Recorder(window)
    finished = send(qtbot, window, PROMPT, recorder)
    assert finished.stats.emitted > 0
    lengths = [step.draft_length for step in recorder.steps]
    # The first token is the target's alone while the draft model reads the prompt (lazy prefill);
    # then the controller measures a draft before it knows the costs.
    assert lengths[0] == 0 and any(n > 0 for n in lengths[1:3]), lengths
    panel = window.stats
    assert "adaptive" in panel.drafter.text()
    # Whether drafting ends off depends on this machine's timings: the tiny pair's draft costs about a
    # tenth of a verify step, so with near-full acceptance K=1 can pay. Whichever the controller chose
    # last, the panel says it (the "off" wording itself: tests/ui/stats/test_stats_panel.py).
    if lengths[-1] == 0:
        assert panel.draft_length.text().startswith("0: off"), panel.draft_length.text()
        assert "slower than the target alone" in panel.draft_length.text()
    else:
        assert panel.draft_length.text() == str(lengths[-1])


# Fresh windows: a restart on the same data folder, with the recorded timing in place at each load.
def test_what_the_controller_learned_is_kept_for_the_next_start(make_window, small_pair, data_dir, load_timing, qtbot):
    # A reply on the default (adaptive) settings, then the app "restarts": a new window on the same data
    # folder loads the same pair and starts from the costs the first one measured. (128 tokens: the
    # first reply must have room to measure its draft, see the test above.)
    window = make_window(adaptive=True)
    window.settings_panel.max_tokens.setValue(128)
    load(qtbot, window, pair_choice(small_pair))
    first = Recorder(window)
    send(qtbot, window, PROMPT, first)
    kept = ProfileStore(data_dir / "cache" / "controller-profiles.json")
    assert len(kept) == 1
    window.close()
    again = make_window(adaptive=True)
    again.settings_panel.max_tokens.setValue(128)
    load(qtbot, again, pair_choice(small_pair))
    second = Recorder(again)
    send(qtbot, again, PROMPT, second)
    assert _measured_a_draft(first) and not _measured_a_draft(second)
    assert len(kept) == 1  # the same pair on the same machine: one entry, updated


def _measured_a_draft(recorder: Recorder) -> bool:
    """Whether a step of the reply drafted only to measure what a draft costs (the stored step records say)."""
    reasons = [step.record.reason for step in recorder.steps if step.record is not None]
    assert reasons, "the window traces its replies"
    return any("measuring what a draft costs" in reason for reason in reasons)


def _position_of_token(view, message_index: int, token_index: int, ghost: bool = False) -> int:
    """Document position of the first character of a token (or its ghost)."""
    kind = "ghost" if ghost else "token"
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if (
                fmt.property(Prop.KIND) == kind
                and fmt.property(Prop.MESSAGE_INDEX) == message_index
                and fmt.property(Prop.TOKEN_INDEX) == token_index
            ):
                return fragment.position()
            it += 1
        block = block.next()
    raise AssertionError(f"token {token_index} of message {message_index} not found")
