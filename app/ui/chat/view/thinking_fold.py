"""A reply's reasoning block drawn as a collapsible "Thinking" section above its answer.

A reasoning model's reply opens with ``<think>…</think>`` (or the template
opened the block in the prompt, ``ReplyPlan.reasoning_inside``). The view
draws a header line for it, "Thinking…" while the block streams and
"Thinking (N s)" once it closed, then the block's tokens (expanded while it
streams, collapsed when the answer starts; a click on the header toggles it),
then the answer. A reply that ended with no answer (inside its block, or
right after closing it) keeps the section open and says under it that it
ended while thinking, and why (the token limit, stopped, the context full),
so the thinking never hides that there is no answer. Inside the section
every token keeps its origin tint and its hover card: the section's text is
the tokens' own, less the markers and the white space around the block
(:mod:`app.ui.chat.view.reply_split`). A reply without a block is drawn
exactly as before, with no header.

:class:`ReplyStream` is what the view keeps of the reply it draws last: the
split and a :class:`~app.ui.chat.view.reply_drawing.StreamState` for the section
and one for the answer, so a step draws again only the tail of whichever part
is streaming; a change of shape (the block appears, it closes) lays the
message out again once.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFont, QTextCursor

from app.core.decoding.events import FinishReason
from app.core.reply.token_record import TokenRecord
from app.ui.chat.view.message_lines import new_block
from app.ui.chat.view.reply_drawing import StreamState, relayout_tail
from app.ui.chat.view.reply_split import ReplySplit, duration_words
from app.ui.chat.view.token_painter import TokenPainter
from app.ui.i18n import QT_TRANSLATE_NOOP

THINKING_LINK = "tandem:thinking"  # ?message=N: the section's header, a click toggles it
SECTION_INDENT = 14.0


def header_words(split: ReplySplit, seconds: float | None, streaming: bool) -> str:
    """The section's title: "Thinking…" while it streams, "Thinking (N s)" once closed."""
    if not split.closed:
        if streaming:
            return QCoreApplication.translate("ThinkingFold", "Thinking…")
        return QCoreApplication.translate("ThinkingFold", "Thinking (not finished)")
    if seconds is None:
        return QCoreApplication.translate("ThinkingFold", "Thinking")
    return QCoreApplication.translate("ThinkingFold", "Thinking ({duration})").format(duration=duration_words(seconds))


def is_expanded(split: ReplySplit, choice: bool | None) -> bool:
    """Whether the section shows its tokens: the reader's click, else open until the answer starts.

    A reply that ended without an answer stays open: its thinking is all it has.
    """
    if choice is not None:
        return choice
    return not split.closed or ended_without_answer(split)


def ended_without_answer(split: ReplySplit) -> bool:
    """Whether the reply ended with a reasoning block and no answer after it."""
    return split.finished and split.has_block and not split.answer_text.strip()


_ENDED_WHY = {
    FinishReason.MAX_TOKENS: QT_TRANSLATE_NOOP(
        "ThinkingFold", "it reached the token limit (raise Max tokens in Settings, or Continue the reply)"
    ),
    FinishReason.CANCELLED: QT_TRANSLATE_NOOP("ThinkingFold", "it was stopped"),
    FinishReason.CONTEXT_FULL: QT_TRANSLATE_NOOP("ThinkingFold", "the context is full"),
}


def ended_words(split: ReplySplit, reason: str) -> str:
    """The line under a section whose reply has no answer: that it ended while thinking, and why."""
    if split.closed:
        said = QCoreApplication.translate("ThinkingFold", "The reply ended after its thinking, with no answer")
    else:
        said = QCoreApplication.translate("ThinkingFold", "The reply ended while thinking, before any answer")
    try:
        why = _ENDED_WHY.get(FinishReason(reason), "")
    except ValueError:
        why = ""
    if not why:
        return said + "."
    return said + ": " + QCoreApplication.translate("ThinkingFold", why) + "."


@dataclass(slots=True)
class ReplyStream:
    """The reply drawn last: its split, and where its section and its answer stand in the document."""

    message_index: int
    split: ReplySplit
    expanded: bool
    section: StreamState
    answer: StreamState

    def draw_tail(self, cursor: QTextCursor, painter: TokenPainter) -> None:
        """Draw again the tail of the part now streaming (nothing while a collapsed section streams)."""
        split = self.split
        if split.has_block and not split.closed:
            if self.expanded:
                relayout_tail(cursor, self.section, split.thinking, split.thinking_text, painter)
            return
        relayout_tail(cursor, self.answer, split.answer, split.answer_text, painter)


def draw_reply(
    cursor: QTextCursor,
    index: int,
    split: ReplySplit,
    painter: TokenPainter,
    seconds: float | None,
    choice: bool | None,
    streaming: bool,
    reason: str = "",
) -> ReplyStream:
    """Draw a reply's section (when it has a block) and its answer at ``cursor``, in a fresh block.

    ``reason`` is why the reply ended (a :class:`FinishReason` value; "" while it streams or when not known).
    """
    expanded = is_expanded(split, choice)
    stream = ReplyStream(
        index,
        split,
        expanded,
        StreamState(index, indent=SECTION_INDENT),
        StreamState(index, token_base=split.answer_base),
    )
    if not split.has_block:
        relayout_tail(cursor, stream.answer, split.answer, split.answer_text, painter)
        return stream
    _insert_header(cursor, painter, index, header_words(split, seconds, streaming), expanded)
    if expanded:
        new_block(cursor, top_margin=2)
        relayout_tail(cursor, stream.section, split.thinking, split.thinking_text, painter)
    if ended_without_answer(split) and not streaming:
        new_block(cursor, top_margin=6)
        cursor.insertText(ended_words(split, reason), painter.plain_format(index, "thinking-ended", painter.muted))
    elif split.closed:
        new_block(cursor, top_margin=6)
        relayout_tail(cursor, stream.answer, split.answer, split.answer_text, painter)
    return stream


def draw_text(cursor: QTextCursor, index: int, text: str, painter: TokenPainter) -> ReplyStream:
    """A reply with no tokens (a view built by hand): its text, set as Markdown, with no section."""
    split = ReplySplit()
    stream = ReplyStream(index, split, False, StreamState(index), StreamState(index))
    relayout_tail(cursor, stream.answer, [], text, painter)
    return stream


def _insert_header(cursor: QTextCursor, painter: TokenPainter, index: int, words: str, expanded: bool) -> None:
    """The section's header: a link that toggles it, muted, in the small print."""
    fmt = painter.plain_format(index, "thinking-header", painter.muted)
    fmt.setAnchor(True)
    fmt.setAnchorHref(f"{THINKING_LINK}?message={index}")
    fmt.setFontWeight(QFont.Weight.DemiBold)
    fmt.setFontPointSize(painter.small_point_size)
    cursor.insertText(("▾ " if expanded else "▸ ") + words, fmt)


def split_of(tokens: list[TokenRecord], inside: bool, final: bool, kept: ReplySplit | None) -> ReplySplit:
    """The split for ``tokens``: ``kept`` when it is up to date (it keeps the step times), else made afresh."""
    if kept is not None and kept.count == len(tokens) and kept.inside == inside:
        if final and not kept.finished:
            kept.finish()
        return kept
    return ReplySplit.of(tokens, inside, final)
