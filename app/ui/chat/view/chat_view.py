"""The conversation view: streamed replies with every token coloured by origin.

Each token is inserted with its own ``QTextCharFormat`` that carries the
facts behind it as user properties (:mod:`app.ui.chat.view.token_painter`), so the
token card (:mod:`app.ui.chat.view.token_cards`), the reading-view switch and the
tests all read the same facts back from the document instead of keeping a
second copy in sync.

Replies are Markdown, drawn as they stream by :mod:`app.ui.chat.view.reply_drawing`:
each step lays out again only the reply's last open block, so the cost per
step stays bounded however long the reply grows. Characters that are not part
of the reply (table padding, the copy links of code blocks) are "filler": they
carry no token and are skipped when the tokens are read back.

Under a stored message sits its action line (the small toolbar of chat apps,
drawn by :mod:`app.ui.chat.view.message_lines`): the branch switcher "‹ 2/3 ›"
where the message has siblings, then Edit, Regenerate, Continue, Delete, Info
as the message allows. The actions are links the view turns into
:attr:`ChatView.message_action`; the same actions are in the message's
context menu. While a reply streams they are drawn as
plain muted text, so nothing can change the conversation under the reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QPointF, Qt, QUrl, QUrlQuery, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QFont,
    QHelpEvent,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import QApplication, QTextBrowser, QToolTip, QWidget

from app.core.attachments.record import Attachment, AttachmentUse
from app.core.conversation.images import ImageInput
from app.core.reply.token_record import TokenRecord
from app.ui.chat.attachments.lines import insert_chips, insert_citations, insert_thumbnails
from app.ui.chat.view import math_formula, table_grid, token_cards
from app.ui.chat.view.markdown_layout import fenced_code_blocks
from app.ui.chat.view.message_highlight import MessageHighlight, message_range
from app.ui.chat.view.message_lines import (
    COPY_MESSAGE,
    MESSAGE_ACTION,
    insert_actions,
    insert_footer,
    insert_header,
    new_block,
)
from app.ui.chat.view.message_menu import message_menu
from app.ui.chat.view.reply_drawing import COPY_CODE, StreamState, relayout_tail
from app.ui.chat.view.reply_split import ReplySplit
from app.ui.chat.view.thinking_fold import THINKING_LINK, ReplyStream, draw_reply, draw_text, is_expanded, split_of
from app.ui.chat.view.token_cards import TokenSpan, format_at, token_tooltip
from app.ui.chat.view.token_painter import Prop, TokenPainter

# Zoom of the conversation's text (Ctrl++ / Ctrl+- / Ctrl+0): tenths of the application's size, from 60 % to 250 %.
ZOOM_STEP = 0.1
MIN_ZOOM = -4
MAX_ZOOM = 15


@dataclass(slots=True)
class ViewMessage:
    """One turn as the view shows it; assistant turns keep their tokens."""

    role: str
    text: str = ""
    tokens: list[TokenRecord] = field(default_factory=list)
    header: str = ""
    notice: str = ""
    footer: str = ""
    footer_link: tuple[str, str] | None = None  # (href, label): an action offered after the footer
    message_id: int | None = None  # the store's id (None: not stored, or a view built by hand)
    branch: tuple[int, int] = (1, 1)  # (position, count) among the message's siblings
    actions: tuple[str, ...] = ()  # keys of ACTION_LABELS this message offers
    info: str = ""  # rich text: what produced the reply (the Info action and the footer's hover)
    attachments: tuple[Attachment, ...] = ()  # the files attached to it (chips under it)
    attachment_uses: tuple[AttachmentUse, ...] = ()  # a reply: how its prompt used them (citations)
    images: tuple[ImageInput, ...] = ()  # the pictures sent with it (thumbnails in its bubble)
    reasoning_inside: bool = False  # the prompt opened the reasoning block: the reply starts as thinking
    thinking_seconds: float | None = None  # how long its reasoning block took (None: not known)
    thinking_open: bool | None = None  # the reader's choice for its "Thinking" section (None: automatic)
    finish_reason: str = ""  # why the reply ended (a FinishReason value; "" while it streams or when not known)
    split: ReplySplit | None = field(default=None, repr=False, compare=False)  # its tokens by part, as drawn


class ChatView(QTextBrowser):
    """Read-only chat transcript that streams and colours replies."""

    message_action = Signal(str, int)  # action ("edit", "regenerate", ..., "previous", "next"), message index

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._actions_enabled = True
        self._zoom = 0
        self._base_point_size = self.font().pointSizeF()
        self._highlight = MessageHighlight(self)
        self.setReadOnly(True)
        self.setOpenLinks(False)
        self.setUndoRedoEnabled(False)
        self.document().setDocumentMargin(14)
        self._formulas = math_formula.FormulaObjects(self)
        self._formulas.install(self.document())
        self._messages: list[ViewMessage] = []
        self.attachment_tokens: dict[str, int] = {}  # sha256 -> tokens counted, for the chips
        self._painter = TokenPainter(self)
        self._stream: ReplyStream | None = None  # the reply drawn last, where its parts stand
        self._streaming = False  # a reply streams into the last message
        self.anchorClicked.connect(self._on_anchor)
        self.last_card: str | None = None  # the token card last shown from the keyboard
        # A caret in the read-only transcript, so the keyboard reaches every token.
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setAccessibleName(self.tr("Conversation"))
        self.setAccessibleDescription(
            self.tr(
                "Alt+Right and Alt+Left move from token to token and show each token's card; "
                "Alt+Return shows the card of the token at the caret"
            )
        )

    # -- public API -------------------------------------------------------------

    @property
    def messages(self) -> list[ViewMessage]:
        """The turns shown, in order."""
        return self._messages

    @property
    def coloured(self) -> bool:
        """False in the clean reading view."""
        return self._painter.coloured

    @property
    def show_ghosts(self) -> bool:
        """Whether rejected proposals are shown inline as struck-through text."""
        return self._painter.show_ghosts

    def set_messages(self, messages: Sequence[ViewMessage]) -> None:
        """Show a whole conversation."""
        self._messages = list(messages)
        self._streaming = False
        self._rerender(keep_scroll=False)

    def add_message(self, message: ViewMessage) -> None:
        """Append a finished turn (the user's prompt, usually)."""
        self._messages.append(message)
        with self._at_end() as cursor:
            self._render(cursor, len(self._messages) - 1, message)

    def begin_reply(self, header: str, notice: str = "", reasoning_inside: bool = False) -> None:
        """Start an assistant turn that tokens will stream into (``reasoning_inside``: it starts as thinking)."""
        message = ViewMessage("assistant", header=header, notice=notice, reasoning_inside=reasoning_inside)
        message.split = ReplySplit(reasoning_inside)
        self._messages.append(message)
        self._streaming = True
        with self._at_end() as cursor:
            self._render(cursor, len(self._messages) - 1, message)

    def append_tokens(self, tokens: Sequence[TokenRecord], step_ms: float | None = None) -> None:
        """Stream more tokens into the current reply (``step_ms``: the verify step's time, for "Thinking (N s)")."""
        if not self._messages or self._messages[-1].role != "assistant":
            raise RuntimeError("append_tokens without begin_reply")
        message = self._messages[-1]
        message.tokens.extend(tokens)
        message.text += "".join(t.text for t in tokens)
        stream, split = self._stream, message.split
        # A reply re-opened to continue was drawn as finished: it is drawn once more as streaming.
        changed = not self._streaming or split is None
        self._streaming = True
        if split is not None and split.add(tokens, step_ms):
            changed = True
            if split.closed:
                message.thinking_open = None  # the answer starts: the section folds
                if split.seconds is not None:
                    message.thinking_seconds = split.seconds
        if changed or stream is None or stream.message_index != len(self._messages) - 1 or stream.split is not split:
            self._rerender(keep_scroll=True)
            return
        with self._at_end() as cursor:
            stream.draw_tail(cursor, self._painter)

    def end_reply(self, footer: str, reason: str = "") -> None:
        """Close the current reply with a one-line summary under it (``reason``: a FinishReason value)."""
        if not self._messages:
            return
        message = self._messages[-1]
        message.footer = footer
        message.finish_reason = reason
        self._streaming = False
        split, stream = message.split, self._stream
        if split is not None and not split.finished:
            # Text held back as a possible marker is decided; a section with no answer after it says so.
            if (
                split.finish()
                or (split.has_block and (not split.closed or not split.answer_text.strip()))
                or stream is None
                or stream.split is not split
            ):
                self._rerender(keep_scroll=True)
                return
            with self._at_end() as cursor:
                stream.draw_tail(cursor, self._painter)
        with self._at_end() as cursor:
            self._insert_footer(cursor, len(self._messages) - 1, message)

    def toggle_thinking(self, index: int) -> None:
        """Fold or unfold message ``index``'s "Thinking" section (its header's link does this)."""
        message = self._messages[index] if 0 <= index < len(self._messages) else None
        if message is not None and message.split is not None and message.split.has_block:
            message.thinking_open = not is_expanded(message.split, message.thinking_open)
            self._rerender(keep_scroll=True)

    def refresh(self) -> None:
        """Lay the document out again from :attr:`messages` (after a footer or its link changed)."""
        self._rerender(keep_scroll=True)

    @property
    def actions_enabled(self) -> bool:
        """False while a reply streams: the action lines are drawn, but not as links."""
        return self._actions_enabled

    def set_actions_enabled(self, enabled: bool, redraw: bool = True) -> None:
        """Offer the messages' actions as links (idle) or show them inert (a reply streams).

        ``redraw=False`` when the caller sets new messages right after (one layout, not two).
        """
        if enabled != self._actions_enabled:
            self._actions_enabled = enabled
            if redraw and any(m.actions or m.branch[1] > 1 for m in self._messages):
                self._rerender(keep_scroll=True)

    def message_index_of(self, message_id: int) -> int | None:
        """Where the stored message ``message_id`` is shown (None: not on the branch shown)."""
        return next((i for i, m in enumerate(self._messages) if m.message_id == message_id), None)

    def message_range(self, index: int) -> tuple[int, int]:
        """Document positions (start, end) of everything drawn for message ``index``."""
        return message_range(self.document(), index)

    @property
    def highlighted_message(self) -> int | None:
        """The message a search jump highlighted, while the highlight lasts."""
        return self._highlight.index

    def highlight_message(self, index: int) -> None:
        """Scroll message ``index`` into view and mark it for a moment (a search result's jump)."""
        self._highlight.show(index)

    def clear_highlight(self) -> None:
        """End a search jump's highlight."""
        self._highlight.clear()

    def _position_at(self, viewport_pos: QPointF, accuracy: Qt.HitTestAccuracy) -> int:
        """The document position under a viewport point (-1: none), the scrolled offset added."""
        offset = QPointF(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        return self.document().documentLayout().hitTest(viewport_pos + offset, accuracy)

    def message_at(self, viewport_pos: QPointF) -> int | None:
        """The index of the message drawn under a viewport point, if any."""
        position = self._position_at(viewport_pos, Qt.HitTestAccuracy.FuzzyHit)
        if position < 0:
            return None
        value = self.format_at(position).property(Prop.MESSAGE_INDEX)
        return None if value is None else int(value)

    def set_coloured(self, coloured: bool) -> None:
        """Colour tokens by origin, or show the clean reading view."""
        if coloured != self._painter.coloured:
            self._painter.coloured = coloured
            self._rerender(keep_scroll=True)

    @property
    def underlines(self) -> bool:
        """Whether each origin also gets its own underline style (the cue that needs no colour)."""
        return self._painter.underlines

    def set_underlines(self, on: bool) -> None:
        """Mark origins with underline styles as well as colours."""
        if on != self._painter.underlines:
            self._painter.underlines = on
            self._rerender(keep_scroll=True)

    def set_show_ghosts(self, show: bool) -> None:
        """Show rejected draft proposals inline as struck-through ghost text."""
        if show != self._painter.show_ghosts:
            self._painter.show_ghosts = show
            self._rerender(keep_scroll=True)

    # -- copying ----------------------------------------------------------------------

    def code_block_at_line(self, message_index: int, line: int) -> str | None:
        """The raw code of the fenced block of a message that contains source line ``line``, if any."""
        message = self._messages[message_index]
        # A reply with a "Thinking" section: its copy links count the lines of the answer drawn under it.
        split = message.split
        text = split.answer_text if split is not None and split.has_block else message.text
        for start, _info, code in fenced_code_blocks(text):
            if start <= line <= start + code.count("\n") + 1:
                return code
        return None

    def copy_code_block(self, message_index: int, line: int) -> bool:
        """Put a code block's raw code on the clipboard."""
        code = self.code_block_at_line(message_index, line)
        if code is not None:
            QApplication.clipboard().setText(code)
        return code is not None

    def copy_message(self, message_index: int) -> None:
        """Put a message's raw Markdown on the clipboard."""
        QApplication.clipboard().setText(self._messages[message_index].text)

    def source_line_at(self, position: int) -> tuple[int, int] | None:
        """(message index, source line) of the reply character at document ``position``."""
        fmt = self.format_at(position)
        if fmt.property(Prop.KIND) != "token":
            return None
        index, token = int(fmt.property(Prop.MESSAGE_INDEX)), int(fmt.property(Prop.TOKEN_INDEX))
        message = self._messages[index]
        before = "".join(t.text for t in message.tokens[:token])
        return index, before.count("\n")

    def _on_anchor(self, url: QUrl) -> None:
        query = QUrlQuery(url)
        base = url.toString().split("?")[0]
        if base == COPY_CODE:
            self.copy_code_block(int(query.queryItemValue("message")), int(query.queryItemValue("line")))
        elif base == COPY_MESSAGE:
            self.copy_message(int(query.queryItemValue("message")))
        elif base == THINKING_LINK:
            self.toggle_thinking(int(query.queryItemValue("message")))
        elif base == MESSAGE_ACTION and self._actions_enabled:
            self.message_action.emit(query.queryItemValue("do"), int(query.queryItemValue("message")))

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt override
        """The standard menu plus copying the message or the code block under the pointer as raw text."""
        position = self._position_at(QPointF(event.pos()), Qt.HitTestAccuracy.FuzzyHit)
        menu = message_menu(self, event.pos(), position)
        menu.exec(event.globalPos())
        menu.deleteLater()

    def token_spans(self) -> list[TokenSpan]:
        """Every token (and ghost) in the document, in order, as the formats describe them."""
        return token_cards.token_spans(self.document())

    def format_at(self, position: int) -> QTextCharFormat:
        """The character format of the character at ``position``."""
        return format_at(self.document(), position)

    def tooltip_at_position(self, position: int) -> str | None:
        """The hover text for the character at document ``position``."""
        return token_tooltip(self.format_at(position))

    def tooltip_at(self, viewport_pos: QPointF) -> str | None:
        """The hover text for the token under a viewport point, if there is one."""
        position = self._position_at(viewport_pos, Qt.HitTestAccuracy.ExactHit)
        if position < 0:
            return None
        if self.format_at(position).objectType() == math_formula.FORMULA_OBJECT:
            # A formula is drawn by its first object over its tokens' band: the card is the token's under the point.
            probe = QTextCursor(self.document())
            probe.setPosition(position)
            left = self.cursorRect(probe).x()
            position = math_formula.slice_under(self.document(), position, left, viewport_pos.x())
        return token_tooltip(self.format_at(position))

    # -- the token card from the keyboard ------------------------------------------------

    def token_positions(self) -> list[int]:
        """Document position of the first character of every token (ghosts excluded), in order."""
        return token_cards.token_positions(self.document())

    def step_token(self, forward: bool) -> str | None:
        """Move the caret to the next (or previous) token, select it and show its card."""
        if not token_cards.select_next_token(self, forward):
            return None
        return self.show_card_at_caret()

    def show_card_at_caret(self) -> str | None:
        """Show the card of the token at the caret (or the start of the selection), as hovering would."""
        self.last_card = token_cards.show_card_at_caret(self)
        return self.last_card

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        """Alt+Right / Alt+Left walk the tokens, Alt+Return shows the card at the caret."""
        if event.modifiers() == Qt.KeyboardModifier.AltModifier:
            if event.key() in (Qt.Key.Key_Right, Qt.Key.Key_Left):
                self.step_token(event.key() == Qt.Key.Key_Right)
                return
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.show_card_at_caret()
                return
        super().keyPressEvent(event)

    def _info_at(self, viewport_pos: QPointF) -> str | None:
        """A reply's provenance, when hovering its footer or action line."""
        position = self._position_at(viewport_pos, Qt.HitTestAccuracy.ExactHit)
        if position < 0:
            return None
        fmt = self.format_at(position)
        if fmt.property(Prop.KIND) not in ("footer", "footer-link", "actions"):
            return None
        return self._messages[int(fmt.property(Prop.MESSAGE_INDEX))].info or None

    # -- Qt hooks ---------------------------------------------------------------------

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Show the token tooltip on hover."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self.tooltip_at(QPointF(event.pos())) or self._info_at(QPointF(event.pos()))
            if text:
                QToolTip.showText(event.globalPos(), text, self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().viewportEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """The text, then the lines of any table's grid over it."""
        super().paintEvent(event)
        painter = QPainter(self.viewport())
        table_grid.paint(self, painter, self._painter.muted)
        painter.end()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """Recolour when the theme changes; re-lay the text when its size changes (zoom)."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self._painter.refresh()
            self._rerender(keep_scroll=True)

    @property
    def zoom(self) -> int:
        """Zoom steps from the application's text size (0: as the platform sets it)."""
        return self._zoom

    def set_zoom(self, step: int) -> int:
        """Scale the conversation's text ``step`` tenths from the application's size (clamped); the step taken.

        Every size the view draws (code, footers, action lines) follows the
        widget's font, so the whole transcript scales and tokens keep their tints.
        """
        step = max(MIN_ZOOM, min(MAX_ZOOM, step))
        self._zoom = step
        font = QFont(self.font())
        font.setPointSizeF(self._base_point_size * (1.0 + ZOOM_STEP * step))
        self.setFont(font)
        return step

    # -- rendering ----------------------------------------------------------------------

    def _rerender(self, keep_scroll: bool) -> None:
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        old = bar.value()
        self.document().clear()
        cursor = QTextCursor(self.document())
        for index, message in enumerate(self._messages):
            self._render(cursor, index, message)
            if message.footer:
                self._insert_footer(cursor, index, message)
            if message.actions or message.branch[1] > 1:
                self._insert_actions(cursor, index, message)
        if keep_scroll and not at_bottom:
            bar.setValue(old)
        else:
            bar.setValue(bar.maximum())

    def _at_end(self) -> _EndCursor:
        return _EndCursor(self)

    def _render(self, cursor: QTextCursor, index: int, message: ViewMessage) -> None:
        insert_header(cursor, self._painter, index, message.role, message.header, message.notice)
        user = message.role == "user"
        new_block(cursor, top_margin=6, background=self._painter.user_background if user else None)
        if message.role == "assistant":
            if message.tokens:
                # The tokens are what is drawn: the text laid out is theirs.
                message.text = "".join(t.text for t in message.tokens)
            self._stream = self._draw_reply(cursor, index, message)
        else:
            # The user's own words are set as Markdown by the same layout, as text without tokens.
            background = self._painter.user_background if user else None
            relayout_tail(cursor, StreamState(index, background=background), [], message.text, self._painter)
            insert_thumbnails(cursor, message.images, background)
        insert_chips(cursor, self._painter, index, message.attachments, self.attachment_tokens)

    def _draw_reply(self, cursor: QTextCursor, index: int, message: ViewMessage) -> ReplyStream:
        """A reply's "Thinking" section, where it has a reasoning block, and its answer (:mod:`thinking_fold`)."""
        if not message.tokens and message.text:
            return draw_text(cursor, index, message.text, self._painter)
        streaming = self._streaming and index == len(self._messages) - 1
        message.split = split_of(message.tokens, message.reasoning_inside, not streaming, message.split)
        seconds, choice = message.thinking_seconds, message.thinking_open
        return draw_reply(
            cursor, index, message.split, self._painter, seconds, choice, streaming, message.finish_reason
        )

    def _insert_footer(self, cursor: QTextCursor, index: int, message: ViewMessage) -> None:
        insert_footer(cursor, self._painter, index, message.footer, bool(message.text), message.footer_link)
        insert_citations(cursor, self._painter, index, message.attachment_uses)

    def _insert_actions(self, cursor: QTextCursor, index: int, message: ViewMessage) -> None:
        insert_actions(cursor, self._painter, index, message.branch, message.actions, self._actions_enabled)


class _EndCursor:
    """A cursor at the end of the document that keeps the view pinned to the bottom if it was there."""

    def __init__(self, view: ChatView) -> None:
        self._view = view
        self._cursor = QTextCursor(view.document())

    def __enter__(self) -> QTextCursor:
        bar = self._view.verticalScrollBar()
        self._follow = bar.value() >= bar.maximum() - 4
        self._cursor.movePosition(QTextCursor.MoveOperation.End)
        self._cursor.beginEditBlock()
        return self._cursor

    def __exit__(self, *exc: object) -> None:
        self._cursor.endEditBlock()
        if self._follow:
            bar = self._view.verticalScrollBar()
            bar.setValue(bar.maximum())
