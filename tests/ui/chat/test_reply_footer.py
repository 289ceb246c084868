"""The reply footer says what drafting did, and "show speculation anyway" drafts on any machine.

Real SmolLM2 pair: its draft is as big as its target, so the adaptive
controller (the default) switches the draft model off after measuring, exactly
the case that read as broken ("acceptance 0%") before. The chat uses the model
drafter: the default hybrid also looks up repeats, and a list's "\n2. " is one
it may rightly send on the last step, so whether its footer says "off" depends
on timing (the lookup's own footer is covered in tests/ui/chat/test_lookup_*).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest

from app.core.reply.plan import DEMO_DRAFT_LENGTH
from app.core.reply.record import ReplyRecord
from app.ui.chat.reply.info import provenance_rows
from app.ui.chat.reply.words import footer_text
from app.ui.chat.view.chat_view import ChatView
from app.ui.chat.view.token_painter import Prop
from tests.ui.helpers import Recorder, load, pair_choice, send

PROMPT = "List five fruits, one per line."


def _click_footer_link(view: ChatView, message_index: int, href_prefix: str = "tandem:speculation") -> None:
    """Click a footer link of a message where it is drawn, as a user would."""
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if (
                fmt.property(Prop.KIND) == "footer-link"
                and fmt.property(Prop.MESSAGE_INDEX) == message_index
                and fmt.anchorHref().startswith(href_prefix)
            ):
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position() + 1)
                rect = view.cursorRect(cursor)
                point = QPoint(rect.center().x(), rect.center().y())
                QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
                return
            it += 1
        block = block.next()
    raise AssertionError(f"no footer link under message {message_index}")


def test_footer_explains_a_reply_without_drafts_and_the_demo_switch_drafts(make_window, small_pair, qtbot):
    window = make_window(adaptive=True)
    window.settings_panel.max_tokens.setValue(40)
    window.settings_panel.drafter.setCurrentIndex(window.settings_panel.drafter.findData("model"))
    # The Q4_1 file drafts for the Q4_0 one: a draft no cheaper than its target. On a 135M model a
    # verify step carries more fixed work than a draft token, so one run's timings can still make
    # a short draft look worth it; the profile is kept across replies, and a few more converge.
    target, draft = small_pair[1], small_pair[0]
    load(qtbot, window, pair_choice((target, draft)))
    recorder = Recorder(window)
    send(qtbot, window, PROMPT, recorder)
    view = window.chat.view
    # How the prompt was read: the time to the first token, its speed and what the cache gave (nothing, first reply).
    figures = recorder.finished[-1].stats.prompt_figures
    assert figures is not None and figures.prompt_reused == 0
    footer = view.messages[-1].footer
    assert "first token " in footer and f"0 of {figures.prompt_tokens:,} prompt tokens from cache" in footer
    assert window.stats.prompt_cached.text() == f"0 of {figures.prompt_tokens:,} prompt tokens"
    assert window.stats.first_token.text().endswith(" ms")

    for follow_up in ("Five more.", "And five more.", "Five others."):
        if recorder.steps[-1].draft_length == 0:
            break
        # The controller ended this reply drafting: the footer gives its figures and offers no switch.
        reply = view.messages[-1]
        assert "draft off" not in reply.footer and "drafter: model" in reply.footer, reply.footer
        assert reply.footer_link is None
        send(qtbot, window, follow_up, recorder)
    reply = view.messages[-1]
    assert recorder.steps[-1].draft_length == 0, "the draft stayed on over four replies"
    assert "draft off: it would slow this machine down" in reply.footer, reply.footer
    assert "acceptance 0%" not in reply.footer
    assert reply.footer_link is not None and reply.footer_link[1] == "show speculation anyway"

    _click_footer_link(view, len(view.messages) - 1)
    assert window.controller.demo.on
    assert "undo" in view.messages[-1].footer_link[1]

    first_demo_step = len(recorder.steps)
    send(qtbot, window, "And five vegetables.", recorder)
    demo_steps = recorder.steps[first_demo_step:]
    assert demo_steps and all(step.draft_length == DEMO_DRAFT_LENGTH for step in demo_steps[:-1])
    assert sum(step.drafted for step in demo_steps) > 0
    demo_reply = view.messages[-1]
    assert f"speculation demo: {DEMO_DRAFT_LENGTH} drafted tokens every step" in demo_reply.footer
    assert "acceptance" in demo_reply.footer
    assert demo_reply.footer_link is not None and demo_reply.footer_link[1] == "back to adaptive"
    # The reply whose link promised "next reply drafts anyway (undo)" offers nothing once that reply exists.
    assert view.messages[-3].role == "assistant" and view.messages[-3].footer_link is None
    assert {t.origin for t in demo_reply.tokens} & {"draft", "corrected", "bonus"}

    # Remembered per chat: a new chat starts adaptive, the demo chat comes back with its switch on,
    # also in a window started afresh on the same data.
    chat = window.controller.conversation_id
    window.controller.new_conversation()
    assert not window.controller.demo.on
    window.controller.open_conversation(chat)
    assert window.controller.demo.on
    other = make_window(adaptive=True)
    other.controller.open_conversation(chat)
    assert other.controller.demo.on
    assert "speculation demo" in other.chat.view.messages[-1].footer

    _click_footer_link(view, len(view.messages) - 1)  # "back to adaptive"
    assert not window.controller.demo.on


def test_footer_words_for_each_case() -> None:
    off = {
        "emitted": 30,
        "steps": 28,
        "drafted": 8,
        "drafting_steps": 2,
        "acceptance_rate": 0.25,
        "last_draft_length": 0,
        "tokens_per_second": 9.0,
    }
    text = footer_text(off, "eog", "model", adaptive=True)
    assert "draft off: it would slow this machine down" in text and "measured in 2 of 28 steps" in text
    assert "lookup off for now" in footer_text(off, "eog", "ngram", adaptive=True)
    assert "and no trusted repeat to look up" in footer_text(off, "eog", "hybrid", adaptive=True)
    # 13 of 20 tokens copied by lookup: the footer says lookup paid, never that there was nothing to look up.
    copied = {**off, "emitted": 20, "by_source": {"lookup": {"drafted": 15, "accepted": 13}}}
    hybrid_off = footer_text(copied, "eog", "hybrid", adaptive=True)
    assert "no trusted repeat" not in hybrid_off
    assert "draft model off: it would slow this machine down; lookup copied 13 tokens the target kept" in hybrid_off
    assert "lookup off for now, after it copied 13 tokens the target kept" in footer_text(
        copied, "eog", "ngram", adaptive=True
    )
    hybrid_on = {**copied, "drafting_steps": 28, "last_draft_length": 4}
    assert "drafter: hybrid  ·  lookup copied 13 tokens" in footer_text(hybrid_on, "eog", "hybrid", adaptive=True)
    assert "target only" in footer_text({"emitted": 5, "steps": 5}, "eog", "none")
    assert "draft length 0 in Settings" in footer_text({"emitted": 5, "steps": 5}, "eog", "model")
    on = {**off, "drafting_steps": 28, "last_draft_length": 4, "mean_accepted_length": 1.5}
    assert "mean accepted 1.50" in footer_text(on, "eog", "model", adaptive=True)
    assert "speculation demo: 4 drafted tokens every step" in footer_text(on, "eog", "model", demo_length=4)


def test_an_older_reply_footer_shows_a_dash_for_the_prompt_figures() -> None:
    old = {"emitted": 12, "tokens_per_second": 30.0, "steps": 12, "prompt_tokens": 40, "prefill_s": 0.2}
    footer = footer_text(old, "eog", "none")
    assert "first token —" in footer and "12 tokens" in footer
    new = {**old, "prompt_reused": 30, "prefill_ms": 20.0, "time_to_first_token_ms": 25.0}
    assert "first token 25 ms  ·  prompt 450 tok/s  ·  30 of 40 prompt tokens from cache" in footer_text(
        new, "eog", "none"
    )


def test_info_rows_give_prefill_speed_and_first_token_or_a_dash() -> None:
    produced_by = {"target": "t.gguf", "drafter": "none", "draft_policy": "none"}
    old = ReplyRecord.from_meta({"produced_by": produced_by, "prompt_tokens": 40, "stats": {"prefill_s": 0.2}})
    rows = dict(provenance_rows(old))
    assert rows["Prefill"] == "200 ms" and rows["First token"] == "—"
    stats = {"prompt_tokens": 40, "prompt_reused": 30, "prefill_ms": 20.0, "time_to_first_token_ms": 25.0}
    new = ReplyRecord.from_meta({"produced_by": produced_by, "prompt_tokens": 40, "stats": stats})
    rows = dict(provenance_rows(new))
    assert rows["Prefill"] == "20 ms, 450 prompt tokens/s" and rows["First token"] == "25 ms"


def test_info_rows_name_the_output_format_and_free_text_has_none() -> None:
    produced_by = {"target": "t.gguf", "drafter": "none", "draft_policy": "none"}
    assert "Output format" not in dict(provenance_rows(ReplyRecord.from_meta({"produced_by": produced_by})))
    sha = "fe" * 32
    schema = {"kind": "json_schema", "name": "book", "sha256": sha, "strict": True}
    rows = dict(provenance_rows(ReplyRecord.from_meta({"produced_by": {**produced_by, "output_format": schema}})))
    assert rows["Output format"] == f"JSON schema “book”, strict, SHA-256 {sha[:16]}…"
    mode = {**produced_by, "output_format": {"kind": "json_object"}}
    assert (
        dict(provenance_rows(ReplyRecord.from_meta({"produced_by": mode})))["Output format"]
        == "JSON object (JSON mode)"
    )


def _footer_drawn(view: ChatView, message_index: int) -> str:
    """The footer's text as the view draws it under a message."""
    block = view.document().begin()
    parts: list[str] = []
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.property(Prop.KIND) == "footer" and fmt.property(Prop.MESSAGE_INDEX) == message_index:
                parts.append(it.fragment().text())
            it += 1
        block = block.next()
    return "".join(parts)


def test_a_reopened_reply_whose_tokens_lookup_copied_says_lookup_paid(make_window) -> None:
    window = make_window()
    store = window.store
    chat = store.create_conversation("Harbour manual")
    store.add_message(chat, "user", "When does the harbour office open?")
    # 13 of the reply's 20 tokens were copied from page 2; at the end the controller had the draft model off.
    stats = {
        "emitted": 20, "steps": 9, "drafted": 15, "accepted": 13, "drafting_steps": 3, "acceptance_rate": 13 / 15,
        "last_draft_length": 0, "tokens_per_second": 9.0,
        "by_source": {"lookup": {"drafted": 15, "accepted": 13}}, "copied": {"harbour-manual.pdf, p. 2": 13},
    }  # fmt: skip
    reply = store.begin_reply(chat, {"pair": "t + d", "drafter": "hybrid", "adaptive": True})
    store.finish_reply(reply, "The office opens at 8.", "done", {"stats": stats, "finish_reason": "eog"})
    window.sidebar.refresh()
    window.controller.open_conversation(chat)
    footer = _footer_drawn(window.chat.view, 1)
    assert "lookup copied 13 tokens the target kept" in footer, footer
    assert "no trusted repeat" not in footer
