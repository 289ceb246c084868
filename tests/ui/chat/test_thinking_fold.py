"""A reply's reasoning block in the window: a "Thinking" section that folds, keeps its cards, survives a reload.

Two roads in: a reply stored in the window's real SQLite store (as an earlier
session with a reasoning model would have left it), opened and clicked through
qtbot; and a real reply from the demo pair, which its system prompt asks to
think first (no reasoning model is on disk; greedy, so it does the same every
time), streamed into the window.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QObject, QPoint, QPointF, Qt, Slot
from PySide6.QtGui import QTextCursor

from app.core.conversation.chat_settings import ChatSettings
from app.core.reply.end import EndKind, ReplyEnd
from app.core.reply.token_record import RejectedProposal, TokenRecord
from app.engine.store import conversations
from app.ui.chat.view.chat_view import ChatView, ViewMessage
from app.ui.chat.view.thinking_fold import THINKING_LINK
from app.ui.chat.view.token_painter import Prop
from tests.ui.helpers import Recorder, load, pair_choice, send

THINK_FIRST = "Always begin your reply with <think>, write your reasoning, then </think>, then the answer."

TOKENS = [
    TokenRecord(text="<think>", origin="target", p_target=0.9),
    TokenRecord(text="\nAdd", origin="draft", p_target=0.8, q_draft=0.7, source="model"),
    TokenRecord(
        text=" 2 and 3",
        origin="corrected",
        p_target=0.6,
        q_draft=0.2,
        rejected=RejectedProposal(text=" 4", p_target=0.1, q_draft=0.5),
    ),
    TokenRecord(text=".\n</think>", origin="bonus", p_target=0.7),
    TokenRecord(text="\n\nThe answer", origin="draft", p_target=0.9, q_draft=0.85, source="model"),
    TokenRecord(text=" is 5.", origin="target", p_target=0.8),
]


def _header(view: ChatView, index: int) -> str | None:
    """The text of message ``index``'s "Thinking" header, if it has one."""
    href = f"{THINKING_LINK}?message={index}"
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                return fragment.text()
            it += 1
        block = block.next()
    return None


def _click_header(qtbot, view: ChatView, index: int) -> None:
    """Click the header where the view draws it, as a person would."""
    href = f"{THINKING_LINK}?message={index}"
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position() + 3)
                view.setTextCursor(cursor)
                view.ensureCursorVisible()
                rect = view.cursorRect(cursor)
                qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.left(), rect.center().y()))
                return
            it += 1
        block = block.next()
    raise AssertionError(f"no Thinking header on message {index}")


def _shown_texts(view: ChatView, index: int) -> list[str]:
    return [s.text for s in view.token_spans() if s.message_index == index and not s.ghost]


def _hover(view: ChatView, index: int, token_index: int) -> str | None:
    """The card shown when the pointer rests on a token's first character."""
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if (
                fmt.property(Prop.KIND) == "token"
                and fmt.property(Prop.MESSAGE_INDEX) == index
                and fmt.property(Prop.TOKEN_INDEX) == token_index
            ):
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position() + 1)
                view.setTextCursor(cursor)
                view.ensureCursorVisible()
                rect = view.cursorRect(cursor)
                return view.tooltip_at(QPointF(rect.left() - 1, rect.center().y()))
            it += 1
        block = block.next()
    raise AssertionError(f"token {token_index} of message {index} is not drawn")


def test_a_streamed_block_is_open_while_it_streams_and_folds_when_the_answer_starts(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    view.set_messages([ViewMessage("user", "What is 2+3?")])
    view.begin_reply("pair")
    view.append_tokens(TOKENS[:2], step_ms=400.0)
    assert _header(view, 1) == "▾ Thinking…"
    assert _shown_texts(view, 1) == ["Add"]  # the marker and the white space after it are not drawn
    view.append_tokens(TOKENS[2:3], step_ms=300.0)
    assert _shown_texts(view, 1) == ["Add", " 2 and 3"]
    view.append_tokens(TOKENS[3:5], step_ms=550.0)  # the block closes, the answer starts
    assert _header(view, 1) == "▸ Thinking (1.2 s)"
    assert _shown_texts(view, 1) == ["The answer"]
    view.append_tokens(TOKENS[5:], step_ms=900.0)
    view.end_reply("done")
    assert _shown_texts(view, 1) == ["The answer", " is 5."]
    assert view.messages[1].thinking_seconds == 1.25  # the answer's steps do not count
    assert [s.token_index for s in view.token_spans() if s.message_index == 1] == [4, 5]  # the reply's own indices

    _click_header(qtbot, view, 1)
    assert _header(view, 1) == "▾ Thinking (1.2 s)"
    assert _shown_texts(view, 1) == ["Add", " 2 and 3", ".", "The answer", " is 5."]
    card = _hover(view, 1, 2)  # inside the section, the corrected token keeps its card
    assert card is not None and "Target correction" in card
    assert "target p</td><td>0.600" in card and "draft q</td><td>0.200" in card
    _click_header(qtbot, view, 1)
    assert _header(view, 1) == "▸ Thinking (1.2 s)" and _shown_texts(view, 1) == ["The answer", " is 5."]


def test_a_reply_without_a_block_has_no_section_and_a_late_marker_stays_text(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    tokens = [
        TokenRecord(text="Use ", origin="target", p_target=0.5),
        TokenRecord(text="<think>", origin="draft", p_target=0.5, q_draft=0.5),
        TokenRecord(text=" tags", origin="target", p_target=0.5),
    ]
    view.set_messages([ViewMessage("assistant", tokens=list(tokens))])
    assert _header(view, 0) is None
    assert _shown_texts(view, 0) == ["Use ", "<think>", " tags"]


def _store_reasoning_chat(store, meta: dict, tokens: list[TokenRecord]) -> int:
    chat = store.create_conversation("Thinking")
    store.add_message(chat, "user", "What is 2+3?")
    reply = store.begin_reply(chat, {"pair": "reasoner + draft", **meta})
    store.append_tokens(reply, tokens)
    store.finish_reply(reply, "".join(t.text for t in tokens), conversations.DONE, {"stats": {"emitted": len(tokens)}})
    return chat


def test_a_stored_reasoning_reply_reopens_folded_with_its_duration(qtbot, make_window):
    window = make_window()
    chat = _store_reasoning_chat(window.store, {"thinking_seconds": 2.5}, TOKENS)
    # A template that opened the block in the prompt: the reply has no opener of its own.
    inside = _store_reasoning_chat(window.store, {"reasoning_inside": True}, [TOKENS[1], *TOKENS[3:]])
    window.sidebar.refresh()
    window.controller.open_conversation(chat)
    view = window.chat.view
    assert _header(view, 1) == "▸ Thinking (2.5 s)"
    # The Stats tab shows this reply's thinking and answer apart, as it did while the reply streamed.
    assert not window.stats.parts.isHidden()
    assert window.stats.parts.text() == "thinking 50% (1/2, 4 tokens) | answer 100% (1/1, 2 tokens)"
    assert _shown_texts(view, 1) == ["The answer", " is 5."]
    _click_header(qtbot, view, 1)
    assert _shown_texts(view, 1) == ["Add", " 2 and 3", ".", "The answer", " is 5."]
    card = _hover(view, 1, 1)
    assert card is not None and "Draft, accepted" in card and "draft q</td><td>0.700" in card

    window.controller.open_conversation(inside)
    assert _header(view, 1) == "▸ Thinking"  # no duration stored: none shown
    _click_header(qtbot, view, 1)
    assert _shown_texts(view, 1) == ["Add", ".", "The answer", " is 5."]

    window.close()
    again = make_window()  # a new session on the same store
    again.controller.open_conversation(chat)
    assert _header(again.chat.view, 1) == "▸ Thinking (2.5 s)"
    assert _shown_texts(again.chat.view, 1) == ["The answer", " is 5."]


class _Headers(QObject):
    """The reply's "Thinking" header after each step, read once the window has drawn the step."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.view = window.chat.view
        self.seen: list[str | None] = []
        window.host.worker.step.connect(self._step)  # connected after the window's own: runs after it

    @Slot(object)
    def _step(self, _event: object) -> None:
        self.seen.append(_header(self.view, 1))


def test_a_real_reply_thinks_in_the_section_and_the_gauge_counts_it_left_out(
    qtbot, make_window, demo_pair, monkeypatch
):
    window = make_window()
    counts = _Counts(window, monkeypatch)
    panel = window.settings_panel
    panel.max_tokens.setValue(80)
    load(qtbot, window, pair_choice(demo_pair))
    panel.system_prompt.setPlainText(THINK_FIRST)
    panel.temperature.setValue(0.0)
    view = window.chat.view
    headers = _Headers(window)
    ends: list[ReplyEnd] = []
    window.controller.reply_finished.connect(ends.append)
    send(qtbot, window, "What is 2+3?", Recorder(window))

    reply = window.controller.path[-1]
    assert reply.content.startswith("<think>") and "</think>" in reply.content, reply.content
    assert "▾ Thinking…" in headers.seen, headers.seen  # open while it streamed
    assert (headers.seen[-1] or "").startswith("▸ Thinking ("), headers.seen  # folded once the answer came
    stored = reply.meta.get("thinking_seconds")
    assert isinstance(stored, float) and stored > 0  # kept with the reply
    texts = [t.text for t in reply.tokens]
    close = next(i for i in range(len(texts)) if "</think>" in "".join(texts[: i + 1]))
    steps = window.store.steps(reply.id)  # the block's steps, from its first token to the one that closed it
    timed = sum(s.draft_ms + s.verify_ms for s in steps if s.first_token <= close) / 1000.0
    assert stored == pytest.approx(timed, abs=0.01)
    assert [(e.kind, e.text, e.thinking_seconds) for e in ends] == [(EndKind.FINISHED, reply.content, stored)]
    shown = _header(view, 1)  # the window showed the branch again from the store
    assert shown is not None and shown.startswith("▸ Thinking (") and shown.endswith(" s)")
    answer = "".join(_shown_texts(view, 1))
    assert answer.strip() and "think>" not in answer and answer in reply.content
    _click_header(qtbot, view, 1)
    drafted = next(i for i in range(2, close) if reply.tokens[i].origin == "draft" and texts[i].strip().isalpha())
    card = _hover(view, 1, drafted)  # a token inside the section keeps its card
    assert card is not None and "Draft, accepted" in card
    assert f"draft q</td><td>{reply.tokens[drafted].q_draft:.3f}" in card

    # The gauge counts the next prompt as it will be sent (a follow-up typed): without the reply's thinking.
    window.chat.prompt.setPlainText("And 3+4?")  # the reply is an earlier turn now
    counted = _count(qtbot, window, counts)
    copy = window.store.create_conversation("Answer only")
    window.store.set_conversation_settings(copy, window.store.conversation_settings(window.controller.conversation_id))
    window.store.add_message(copy, "user", "What is 2+3?")
    window.store.add_message(copy, "assistant", reply.content.split("</think>", 1)[1].lstrip())
    window.controller.open_conversation(copy)
    window.chat.prompt.setPlainText("And 3+4?")
    assert ChatSettings.from_dict(window.store.conversation_settings(copy)).system_prompt == THINK_FIRST
    assert _count(qtbot, window, counts) == counted


class _Counts(QObject):
    """Every count of the next prompt the window asks the engine thread for, and every answer.

    The engine thread answers them in order, so once there are as many answers
    as questions the gauge shows the answer to the last one (earlier questions,
    asked when the text was typed or the chat opened, may still be waiting).
    """

    def __init__(self, window, monkeypatch) -> None:
        super().__init__(window)
        self.asked = 0
        self.answered = 0
        host = window.host
        ask = host.count_prompt

        def counted_ask(request) -> None:
            self.asked += 1
            ask(request)

        monkeypatch.setattr(host, "count_prompt", counted_ask)
        host.worker.prompt_counted.connect(self._answer)

    @Slot(object)
    def _answer(self, _info: object) -> None:
        self.answered += 1


def _count(qtbot, window, counts: _Counts) -> int:
    """The gauge's count of what the window shows now, once every question asked so far is answered."""
    window.controller.context.count()
    qtbot.waitUntil(lambda: counts.answered >= counts.asked, timeout=120_000)
    return int(window.chat.gauge.used)


def _ended_line(view: ChatView, index: int) -> str | None:
    """The line the view writes under message ``index``'s section when the reply ended with no answer."""
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.property(Prop.KIND) == "thinking-ended" and fmt.property(Prop.MESSAGE_INDEX) == index:
                return it.fragment().text()
            it += 1
        block = block.next()
    return None


def _store_ended_chat(store, tokens: list[TokenRecord], reason: str) -> int:
    chat = store.create_conversation("Cut short")
    store.add_message(chat, "user", "What is 2+3?")
    reply = store.begin_reply(chat, {"pair": "reasoner + draft"})
    store.append_tokens(reply, tokens)
    meta = {"stats": {"emitted": len(tokens)}, "finish_reason": reason}
    store.finish_reply(reply, "".join(t.text for t in tokens), conversations.DONE, meta)
    return chat


def test_a_stored_reply_that_ended_while_thinking_opens_its_thinking_and_says_why(qtbot, make_window):
    window = make_window()
    cut = _store_ended_chat(window.store, TOKENS[:3], "length")  # the token limit, inside the block
    closed = _store_ended_chat(window.store, TOKENS[:4], "eog")  # the block closed, then the model stopped
    window.sidebar.refresh()
    view = window.chat.view

    window.controller.open_conversation(cut)
    assert _header(view, 1) == "▾ Thinking (not finished)"  # open: its thinking is all the reply has
    assert _shown_texts(view, 1) == ["Add", " 2 and 3"]
    assert _ended_line(view, 1) == (
        "The reply ended while thinking, before any answer: it reached the token limit "
        "(raise Max tokens in Settings, or Continue the reply)."
    )
    _click_header(qtbot, view, 1)  # the reader may still fold it; the line stays
    assert _header(view, 1) == "▸ Thinking (not finished)" and _shown_texts(view, 1) == []
    assert (_ended_line(view, 1) or "").startswith("The reply ended while thinking")

    window.controller.open_conversation(closed)
    assert (_header(view, 1) or "").startswith("▾ Thinking")
    assert _shown_texts(view, 1) == ["Add", " 2 and 3", "."]
    assert _ended_line(view, 1) == "The reply ended after its thinking, with no answer."


def test_a_streamed_reply_stopped_while_thinking_stays_open_and_says_it_was_stopped(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    view.set_messages([ViewMessage("user", "What is 2+3?")])
    view.begin_reply("pair")
    view.append_tokens(TOKENS[:3], step_ms=400.0)
    assert _ended_line(view, 1) is None  # still streaming: nothing ended yet
    view.end_reply("3 tokens", "cancelled")
    assert _header(view, 1) == "▾ Thinking (not finished)"
    assert _ended_line(view, 1) == "The reply ended while thinking, before any answer: it was stopped."

    # A reply whose answer came says nothing of the kind.
    view.begin_reply("pair")
    view.append_tokens(TOKENS, step_ms=400.0)
    view.end_reply("done", "eog")
    assert _ended_line(view, 2) is None and _header(view, 2) == "▸ Thinking (0.4 s)"


def test_a_real_reply_cut_off_while_thinking_shows_its_thinking_and_says_why(qtbot, make_window, demo_pair):
    window = make_window()
    panel = window.settings_panel
    panel.max_tokens.setValue(12)  # the demo pair thinks for longer than this before it answers
    load(qtbot, window, pair_choice(demo_pair))
    panel.system_prompt.setPlainText(THINK_FIRST)
    panel.temperature.setValue(0.0)
    send(qtbot, window, "What is 2+3?", Recorder(window))

    reply = window.controller.path[-1]
    assert reply.content.startswith("<think>") and "</think>" not in reply.content, reply.content
    view = window.chat.view
    assert _header(view, 1) == "▾ Thinking (not finished)"  # open, not folded over nothing
    assert "".join(_shown_texts(view, 1)).strip()  # the thinking it wrote is on screen
    assert _ended_line(view, 1) == (
        "The reply ended while thinking, before any answer: it reached the token limit "
        "(raise Max tokens in Settings, or Continue the reply)."
    )
