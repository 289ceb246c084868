"""The step view on a hand-built reply: the strip, the painted card, the keys, a jump from a token, play, export.

The reply and its step records are written into a real SQLite file the way
the store keeps them (tokens through the store, one ``steps`` row per step),
then the window is driven as a person would: the reply's "Steps" link, the
arrow keys, a click on a column and on a token, Play, the Export button.
Values are read back from the widgets' state; the card is grabbed to an image
and checked for paint where each bar says it is.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QImage, QPalette, QTextCursor

from app.core.decoding.events import TokenOrigin
from app.core.reply.step_record import DraftedRecord, StepRecord, TopEntry
from app.core.reply.step_words import explain
from app.core.reply.token_record import TokenRecord
from app.ui.steps.step_view import NO_STEPS
from tests.ui.helpers import click_action

D, C, B, T = TokenOrigin.DRAFT, TokenOrigin.CORRECTED, TokenOrigin.BONUS, TokenOrigin.TARGET
TOKENS = [
    ("The", D),
    (" sky", D),
    (" is", C),
    (" blue", D),
    (",", D),
    (" and", B),
    (" wide", T),
    (".", D),
    (" Night", C),
]
STEPS = [
    StepRecord(
        index=0,
        first_token=0,
        n_emitted=3,
        drafter="model",
        draft_length=3,
        reason="fixed",
        greedy=False,
        drafted=(
            DraftedRecord("The", 0.9, 0.95, True, 0.4),
            DraftedRecord(" sky", 0.7, 0.5, True, 0.3),
            DraftedRecord(" sea", 0.61, 0.12, False, 0.57),
        ),
        residual_top=(TopEntry(" is", 0.55), TopEntry(" was", 0.25), TopEntry(" looks", 0.1)),
        correction=TopEntry(" is", 0.55),
        draft_ms=4.5,
        verify_ms=11.0,
    ),
    StepRecord(
        index=1,
        first_token=3,
        n_emitted=3,
        drafter="lookup",
        draft_length=2,
        reason="fixed",
        greedy=False,
        drafted=(DraftedRecord(" blue", 0.8, 0.9, True, 0.2), DraftedRecord(",", 0.5, 0.6, True, 0.9)),
        lookup_match=3,
        bonus_top=(TopEntry(" and", 0.6), TopEntry(" but", 0.3)),
        bonus=TopEntry(" and", 0.6),
        draft_ms=0.1,
        verify_ms=9.0,
    ),
    StepRecord(
        index=2,
        first_token=6,
        n_emitted=1,
        drafter=None,
        draft_length=0,
        reason="no draft",
        greedy=False,
        bonus_top=(TopEntry(" wide", 0.7),),
        bonus=TopEntry(" wide", 0.7),
        verify_ms=8.0,
    ),
    StepRecord(
        index=3,
        first_token=7,
        n_emitted=2,
        drafter="model",
        draft_length=2,
        reason="fixed",
        greedy=True,
        drafted=(DraftedRecord(".", 0.9, 0.8, True), DraftedRecord(" It", 0.4, 0.1, False, target_top=" Night")),
        residual_top=(TopEntry(" Night", 1.0),),
        correction=TopEntry(" Night", 1.0),
        draft_ms=3.0,
        verify_ms=10.0,
    ),
]


def _reply(window, steps: list[StepRecord] = STEPS) -> int:
    """A chat with one question and the hand-built reply; the window shows it. Returns the reply's id."""
    store = window.store
    chat = store.create_conversation("Sky")
    store.add_message(chat, "user", "What colour is the sky?")
    reply = store.begin_reply(chat, {"drafter": "model"})
    store.append_tokens(
        reply,
        [
            TokenRecord(text=text, origin=origin, p_target=0.5, q_draft=0.5 if origin is D else None)
            for text, origin in TOKENS
        ],
    )
    store.finish_reply(reply, "".join(t for t, _ in TOKENS))
    store.append_steps(reply, steps)
    window.controller.open_conversation(chat)
    return reply


def _painted(image: QImage, rect: QRectF, background: int) -> int:
    """How many pixels inside ``rect`` differ from the background."""
    count = 0
    r = rect.toAlignedRect().intersected(image.rect())
    for x in range(r.left(), r.right() + 1):
        for y in range(r.top(), r.bottom() + 1):
            if image.pixel(x, y) != background:
                count += 1
    return count


def _open(window, qtbot):
    click_action(window, "steps", 1)
    view = window.steps.view
    qtbot.waitUntil(view.isVisible)
    return view


def test_the_strip_and_the_card_show_the_replys_steps(make_window, qtbot):
    window = make_window()
    reply = _reply(window)
    view = _open(window, qtbot)
    assert view.message_id == reply and view.steps == STEPS
    assert view.timeline.steps == STEPS and view.timeline.selected == 0
    assert view.card.step == STEPS[0] and view.card.position == (1, 4)
    assert view.words.text() == explain(STEPS[0]) and "0.57" in view.words.text()
    assert not view.notice.isVisible()

    image = view.card.grab().toImage()
    base = view.card.palette().color(QPalette.ColorRole.Base).rgb()
    for key in ("cost", "q:0", "p:0", "q:2", "p:2", "test:0", "coin:2", "strike:2", "residual:1", "chosen"):
        assert key in view.card.bars, key
        assert _painted(image, view.card.bars[key], base) > 0, key
    # The bars' sizes follow the record: q 0.61 against p 0.12 for the rejected token.
    assert view.card.bars["q:2"].height() > 4 * view.card.bars["p:2"].height()
    assert view.card.bars["chosen"] == view.card.bars["residual:0"]  # " is" drawn from the residual
    # The accept test is filled to min(1, p/q) = 0.20; the coin's mark sits at 0.57 of the same bar.
    test, coin = view.card.bars["test:2"], view.card.bars["coin:2"]
    assert test.right() < coin.center().x()

    view.select(1)  # a full acceptance: the bonus entries, the bonus marked
    image = view.card.grab().toImage()
    assert "bonus:0" in view.card.bars and view.card.bars["chosen"] == view.card.bars["bonus:0"]
    assert _painted(image, view.card.bars["bonus:1"], base) > 0
    assert "strike:0" not in view.card.bars and "strike:1" not in view.card.bars

    strip = view.timeline.grab().toImage()
    for i in range(4):
        assert _painted(strip, view.timeline.column_rect(i).adjusted(3, 3, -3, -3), base) > 0, i


def test_keys_buttons_and_a_click_on_a_column_move_between_steps(make_window, qtbot):
    window = make_window()
    _reply(window)
    view = _open(window, qtbot)
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.current == 1 and view.card.step == STEPS[1]
    qtbot.keyClick(view, Qt.Key.Key_End)
    assert view.current == 3 and not view.next_button.isEnabled()
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.current == 3
    qtbot.keyClick(view, Qt.Key.Key_Left)
    assert view.current == 2
    qtbot.keyClick(view, Qt.Key.Key_Home)
    assert view.current == 0 and not view.previous_button.isEnabled()
    qtbot.mouseClick(view.next_button, Qt.MouseButton.LeftButton)
    assert view.current == 1
    qtbot.mouseClick(view.last_button, Qt.MouseButton.LeftButton)
    assert view.current == 3
    column = view.timeline.column_rect(2).center().toPoint()
    qtbot.mouseClick(view.timeline, Qt.MouseButton.LeftButton, pos=column)
    assert view.current == 2 and view.timeline.selected == 2


def test_clicking_a_token_or_walking_to_it_shows_its_step(make_window, qtbot):
    window = make_window()
    _reply(window)
    view = _open(window, qtbot)
    chat = window.chat.view
    positions = chat.token_positions()
    assert len(positions) == len(TOKENS)
    cursor = QTextCursor(chat.document())
    cursor.setPosition(positions[6] + 1)  # inside " wide": made by step 2
    chat.ensureCursorVisible()
    point = chat.cursorRect(cursor).center()
    qtbot.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(point.x(), point.y()))
    assert view.current == 2
    qtbot.keyClick(chat, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)  # on to "."
    assert view.current == 3
    for _ in range(4):
        qtbot.keyClick(chat, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)  # back to " blue"
    assert view.current == 1
    view.select(3)
    qtbot.mouseClick(view.caret_button, Qt.MouseButton.LeftButton)
    assert view.current == 1
    # Ctrl+J from the chat: the reply at the caret, at the caret token's step.
    view.close()
    chat.setFocus()
    assert window.steps.open_action.shortcut().toString() == "Ctrl+J"
    window.steps.open_action.trigger()  # as Ctrl+J does (offscreen windows are never active for shortcuts)
    qtbot.waitUntil(view.isVisible)
    assert view.current == 1


def test_play_advances_at_the_speed_and_stops_at_the_last_step(make_window, qtbot):
    window = make_window()
    _reply(window)
    view = _open(window, qtbot)
    view.speed.setValue(20.0)
    assert view.player.speed == 20.0
    qtbot.mouseClick(view.play_button, Qt.MouseButton.LeftButton)
    assert view.player.playing and view.play_button.text().endswith("Pause")
    seen: list[int | None] = []
    view.player.tick.connect(lambda: seen.append(view.current))
    qtbot.waitUntil(lambda: not view.player.playing, timeout=10_000)
    assert view.current == 3 and seen[:3] == [1, 2, 3]
    qtbot.keyClick(view, Qt.Key.Key_Space)  # Play at the end replays from the first step
    assert view.player.playing and view.current == 0
    qtbot.keyClick(view, Qt.Key.Key_Space)
    assert not view.player.playing


def test_a_reply_without_records_says_so(make_window, qtbot):
    window = make_window()
    _reply(window, steps=[])
    view = _open(window, qtbot)
    assert view.steps == [] and view.card.step is None
    assert view.notice.isVisible() and view.notice.text() == NO_STEPS
    assert not view.export_button.isEnabled() and not view.play_button.isEnabled()
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.current is None


def test_export_writes_a_page_with_the_steps(make_window, qtbot, tmp_path: Path):
    window = make_window()
    reply = _reply(window)
    view = _open(window, qtbot)
    target = tmp_path / "steps.html"
    window.steps.ask_path = lambda _suggested: target
    qtbot.mouseClick(view.export_button, Qt.MouseButton.LeftButton)
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
    assert page.count('class="card') == len(STEPS)
    assert "sea" in page and "0.57" in page and "wide" in page
    assert f"reply {reply}" in window.statusBar().currentMessage() or "exported" in window.statusBar().currentMessage()
    # The reply's own menu offers the same export.
    again = tmp_path / "again.html"
    window.steps.ask_path = lambda _suggested: again
    window.chat.view.message_action.emit("export-steps", 1)
    assert again.read_text(encoding="utf-8") == page


def test_the_arrow_keys_move_as_soon_as_the_view_opens(make_window, qtbot):
    window = make_window()
    window.show()
    _reply(window)
    view = _open(window, qtbot)
    qtbot.waitUntil(lambda: view.focusWidget() is not None)
    # The key goes where a person's key goes: the widget with focus in the view, no click first.
    qtbot.keyClick(view.focusWidget(), Qt.Key.Key_Right)
    assert view.current == 1
    qtbot.keyClick(view.focusWidget(), Qt.Key.Key_Right)
    qtbot.keyClick(view.focusWidget(), Qt.Key.Key_Left)
    assert view.current == 1
    view.close()
    click_action(window, "steps", 1)  # opened again, on the first step
    qtbot.waitUntil(view.isVisible)
    qtbot.keyClick(view.focusWidget(), Qt.Key.Key_Right)
    assert view.current == 1
