"""The conversation view: streamed replies with every token coloured by origin.

Each token is inserted with its own ``QTextCharFormat`` that carries the
facts behind it as user properties (origin, the target's p, the draft's q,
the rejected proposal), so the hover tooltip, the reading-view switch and
the tests all read the same facts back from the document instead of keeping
a second copy in sync. Colours come from :mod:`app.ui.theme`.

Replies are Markdown, set as :mod:`app.ui.chat.markdown_layout` says while
they stream: each step lays out again only the reply's last open block (a
code block only from its last line), so the cost per step stays bounded
however long the reply grows. Characters that are not part of the reply
(table padding, the copy links of code blocks) are "filler": they carry no
token and are skipped when the tokens are read back.

Under a stored message sits its action line (the small toolbar of chat apps):
the branch switcher "‹ 2/3 ›" where the message has siblings, then Edit,
Regenerate, Continue, Delete, Info as the message allows. The actions are
links the view turns into :attr:`ChatView.message_action`; the same actions
are in the message's context menu. While a reply streams they are drawn as
plain muted text, so nothing can change the conversation under the reply.
"""

from __future__ import annotations

import enum
import html
import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from PySide6.QtCore import QEvent, QPointF, Qt, QTimer, QUrl, QUrlQuery, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QFont,
    QHelpEvent,
    QKeyEvent,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QApplication, QTextBrowser, QTextEdit, QToolTip, QWidget

from app.core.decoding.events import TokenOrigin
from app.engine.store.conversations import StoredToken
from app.ui import theme
from app.ui.chat.code_spans import CodeTracker, SpanKind
from app.ui.chat.markdown_layout import LEX_WINDOW_LINES, Char, LineKind, LineLayout, fenced_code_blocks, layout

COPY_CODE = "tandem:copy-code"
COPY_MESSAGE = "tandem:copy-message"
MESSAGE_ACTION = "tandem:message-action"
# What each action is called in the action line and the context menu, in the order shown.
ACTION_LABELS = {
    "edit": "Edit",
    "regenerate": "Regenerate",
    "continue": "Continue",
    "delete": "Delete",
    "info": "Info",
}
HIGHLIGHT_MS = 2000  # how long a message found by search stays highlighted
_HEADING_SCALE = {1: 1.5, 2: 1.3, 3: 1.15}

_USER = int(QTextFormat.Property.UserProperty)


class Prop(enum.IntEnum):
    """User properties stored on every character format the view writes."""

    KIND = _USER + 1  # "token", "ghost", "text", "header", "notice", "footer", "footer-link", "filler"
    ORIGIN = _USER + 2
    P_TARGET = _USER + 3
    Q_DRAFT = _USER + 4
    REJECTED_TEXT = _USER + 5
    REJECTED_P = _USER + 6
    REJECTED_Q = _USER + 7
    TOKEN_INDEX = _USER + 8
    MESSAGE_INDEX = _USER + 9
    TOKEN_TEXT = _USER + 10
    SOURCE = _USER + 11  # which drafter proposed a draft token: "model" or "lookup"


@dataclass(slots=True)
class ViewMessage:
    """One turn as the view shows it; assistant turns keep their tokens."""

    role: str
    text: str = ""
    tokens: list[StoredToken] = field(default_factory=list)
    header: str = ""
    notice: str = ""
    footer: str = ""
    footer_link: tuple[str, str] | None = None  # (href, label): an action offered after the footer
    message_id: int | None = None  # the store's id (None: not stored, or a view built by hand)
    branch: tuple[int, int] = (1, 1)  # (position, count) among the message's siblings
    actions: tuple[str, ...] = ()  # keys of ACTION_LABELS this message offers
    info: str = ""  # rich text: what produced the reply (the Info action and the footer's hover)


@dataclass(frozen=True, slots=True)
class TokenSpan:
    """A token read back from the document."""

    message_index: int
    token_index: int
    text: str
    origin: str
    ghost: bool


def ghost_text(text: str) -> str:
    """How a rejected proposal is drawn inline: line breaks become a visible mark."""
    return text.replace("\n", "↵")


def _visible(text: str) -> str:
    """A token's text with its whitespace made visible, for tooltips."""
    return text.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥") or "∅"


class ChatView(QTextBrowser):
    """Read-only chat transcript that streams and colours replies."""

    message_action = Signal(str, int)  # action ("edit", "regenerate", ..., "previous", "next"), message index

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._actions_enabled = True
        self.highlighted_message: int | None = None  # the message a search jump highlighted, while it lasts
        self._highlight_timer = QTimer(self)
        self._highlight_timer.setSingleShot(True)
        self._highlight_timer.setInterval(HIGHLIGHT_MS)
        self._highlight_timer.timeout.connect(self.clear_highlight)
        self.setReadOnly(True)
        self.setOpenLinks(False)
        self.setUndoRedoEnabled(False)
        self.document().setDocumentMargin(14)
        self._messages: list[ViewMessage] = []
        self._coloured = True
        self._show_ghosts = False
        self._tracker = CodeTracker()
        self._underlines = False
        self._stream: _StreamState | None = None
        self.anchorClicked.connect(self._on_anchor)
        self.last_card: str | None = None  # the token card last shown from the keyboard
        # A caret in the read-only transcript, so the keyboard reaches every token.
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setAccessibleName("Conversation")
        self.setAccessibleDescription(
            "Alt+Right and Alt+Left move from token to token and show each token's card; "
            "Alt+Return shows the card of the token at the caret"
        )
        self._refresh_palette()

    # -- public API -------------------------------------------------------------

    @property
    def messages(self) -> list[ViewMessage]:
        """The turns shown, in order."""
        return self._messages

    @property
    def coloured(self) -> bool:
        """False in the clean reading view."""
        return self._coloured

    @property
    def show_ghosts(self) -> bool:
        """Whether rejected proposals are shown inline as struck-through text."""
        return self._show_ghosts

    def set_messages(self, messages: Sequence[ViewMessage]) -> None:
        """Show a whole conversation."""
        self._messages = list(messages)
        self._rerender(keep_scroll=False)

    def add_message(self, message: ViewMessage) -> None:
        """Append a finished turn (the user's prompt, usually)."""
        self._messages.append(message)
        with self._at_end() as cursor:
            self._render(cursor, len(self._messages) - 1, message)

    def begin_reply(self, header: str, notice: str = "") -> None:
        """Start an assistant turn that tokens will stream into."""
        message = ViewMessage("assistant", header=header, notice=notice)
        self._messages.append(message)
        with self._at_end() as cursor:
            self._render(cursor, len(self._messages) - 1, message)

    def append_tokens(self, tokens: Sequence[StoredToken]) -> None:
        """Stream more tokens into the current reply."""
        if not self._messages or self._messages[-1].role != "assistant":
            raise RuntimeError("append_tokens without begin_reply")
        message = self._messages[-1]
        message.tokens.extend(tokens)
        message.text += "".join(t.text for t in tokens)
        state = self._stream
        if state is None or state.message_index != len(self._messages) - 1:
            self._rerender(keep_scroll=True)
            return
        with self._at_end() as cursor:
            self._relayout_tail(cursor, state, message)

    def end_reply(self, footer: str) -> None:
        """Close the current reply with a one-line summary under it."""
        if not self._messages:
            return
        self._messages[-1].footer = footer
        with self._at_end() as cursor:
            self._insert_footer(cursor, len(self._messages) - 1, self._messages[-1])

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
        start = end = -1
        block = self.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                value = fragment.charFormat().property(Prop.MESSAGE_INDEX)
                if value is not None and int(value) == index:
                    if start < 0:
                        start = fragment.position()
                    end = fragment.position() + fragment.length()
                it += 1
            block = block.next()
        return start, end

    def highlight_message(self, index: int) -> None:
        """Scroll message ``index`` into view and mark it for a moment (a search result's jump)."""
        start, end = self.message_range(index)
        if start < 0:
            return
        cursor = QTextCursor(self.document())
        cursor.setPosition(end)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()
        cursor.setPosition(start)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()  # the start last: a long message shows its beginning
        selection = QTextEdit.ExtraSelection()
        selection.cursor = QTextCursor(self.document())
        selection.cursor.setPosition(start)
        selection.cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        selection.format.setBackground(theme.highlight_background(self.palette()))
        self.setExtraSelections([selection])
        self.highlighted_message = index
        self._highlight_timer.start()

    def clear_highlight(self) -> None:
        """End a search jump's highlight."""
        self._highlight_timer.stop()
        self.setExtraSelections([])
        self.highlighted_message = None

    def message_at(self, viewport_pos: QPointF) -> int | None:
        """The index of the message drawn under a viewport point, if any."""
        offset = QPointF(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        position = self.document().documentLayout().hitTest(viewport_pos + offset, Qt.HitTestAccuracy.FuzzyHit)
        if position < 0:
            return None
        value = self.format_at(position).property(Prop.MESSAGE_INDEX)
        return None if value is None else int(value)

    def set_coloured(self, coloured: bool) -> None:
        """Colour tokens by origin, or show the clean reading view."""
        if coloured != self._coloured:
            self._coloured = coloured
            self._rerender(keep_scroll=True)

    @property
    def underlines(self) -> bool:
        """Whether each origin also gets its own underline style (the cue that needs no colour)."""
        return self._underlines

    def set_underlines(self, on: bool) -> None:
        """Mark origins with underline styles as well as colours."""
        if on != self._underlines:
            self._underlines = on
            self._rerender(keep_scroll=True)

    def set_show_ghosts(self, show: bool) -> None:
        """Show rejected draft proposals inline as struck-through ghost text."""
        if show != self._show_ghosts:
            self._show_ghosts = show
            self._rerender(keep_scroll=True)

    # -- copying ----------------------------------------------------------------------

    def code_block_at_line(self, message_index: int, line: int) -> str | None:
        """The raw code of the fenced block of a message that contains source line ``line``, if any."""
        for start, _info, code in fenced_code_blocks(self._messages[message_index].text):
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
        elif base == MESSAGE_ACTION and self._actions_enabled:
            self.message_action.emit(query.queryItemValue("do"), int(query.queryItemValue("message")))

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt override
        """The standard menu plus copying the message or the code block under the pointer as raw text."""
        menu = self.createStandardContextMenu(event.pos())
        offset = QPointF(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        position = self.document().documentLayout().hitTest(QPointF(event.pos()) + offset, Qt.HitTestAccuracy.FuzzyHit)
        where = self.source_line_at(position) if position >= 0 else None
        if where is not None:
            index, line = where
            menu.addSeparator()
            if self.code_block_at_line(index, line) is not None:
                menu.addAction("Copy code block", lambda: self.copy_code_block(index, line))
            menu.addAction("Copy message as Markdown", lambda: self.copy_message(index))
        message = self.message_at(QPointF(event.pos()))
        if message is not None and self._messages[message].actions:
            menu.addSeparator()
            for key in self._messages[message].actions:
                action = menu.addAction(ACTION_LABELS[key])
                action.triggered.connect(partial(self.message_action.emit, key, message))
                action.setEnabled(self._actions_enabled)
        menu.exec(event.globalPos())
        menu.deleteLater()

    def token_spans(self) -> list[TokenSpan]:
        """Every token (and ghost) in the document, in order, as the formats describe them."""
        spans: list[TokenSpan] = []

        def add(fmt: QTextCharFormat, text: str) -> None:
            kind = fmt.property(Prop.KIND)
            if kind not in ("token", "ghost") or text == "":
                return
            key = (int(fmt.property(Prop.MESSAGE_INDEX)), int(fmt.property(Prop.TOKEN_INDEX)), kind == "ghost")
            last = spans[-1] if spans else None
            if last is not None and (last.message_index, last.token_index, last.ghost) == key:
                spans[-1] = TokenSpan(key[0], key[1], last.text + text, last.origin, key[2])
            else:
                spans.append(TokenSpan(key[0], key[1], text, str(fmt.property(Prop.ORIGIN)), key[2]))

        block = self.document().begin()
        while block.isValid():
            if block != self.document().begin():
                # A newline inside a reply starts a block whose own format is the token that wrote it.
                add(block.charFormat(), "\n")
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                add(fragment.charFormat(), fragment.text())
                it += 1
            block = block.next()
        return spans

    def format_at(self, position: int) -> QTextCharFormat:
        """The character format of the character at ``position``."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(min(position + 1, self.document().characterCount() - 1))
        return cursor.charFormat()

    def tooltip_at_position(self, position: int) -> str | None:
        """The hover text for the character at document ``position``."""
        return token_tooltip(self.format_at(position))

    def tooltip_at(self, viewport_pos: QPointF) -> str | None:
        """The hover text for the token under a viewport point, if there is one."""
        offset = QPointF(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        position = self.document().documentLayout().hitTest(viewport_pos + offset, Qt.HitTestAccuracy.ExactHit)
        if position < 0:
            return None
        return token_tooltip(self.format_at(position))

    # -- the token card from the keyboard ------------------------------------------------

    def token_positions(self) -> list[int]:
        """Document position of the first character of every token (ghosts excluded), in order."""
        positions: list[int] = []
        last: tuple[int, int] | None = None
        block = self.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                fmt = fragment.charFormat()
                if fmt.property(Prop.KIND) == "token":
                    key = (int(fmt.property(Prop.MESSAGE_INDEX)), int(fmt.property(Prop.TOKEN_INDEX)))
                    if key != last:
                        positions.append(fragment.position())
                        last = key
                it += 1
            block = block.next()
        return positions

    def step_token(self, forward: bool) -> str | None:
        """Move the caret to the next (or previous) token, select it and show its card."""
        here = self.textCursor().selectionStart() if self.textCursor().hasSelection() else self.textCursor().position()
        positions = self.token_positions()
        if forward:
            target = next((p for p in positions if p > here), None)
        else:
            target = next((p for p in reversed(positions) if p < here), None)
        if target is None:
            return None
        following = next((p for p in positions if p > target), None)
        end = following if following is not None else target + 1
        cursor = QTextCursor(self.document())
        cursor.setPosition(target)
        # Select the token's own characters (up to the next token or filler).
        stop = target + 1
        key = (self.format_at(target).property(Prop.MESSAGE_INDEX), self.format_at(target).property(Prop.TOKEN_INDEX))
        while stop < end:
            fmt = self.format_at(stop)
            if (fmt.property(Prop.MESSAGE_INDEX), fmt.property(Prop.TOKEN_INDEX)) != key:
                break
            stop += 1
        cursor.setPosition(stop, QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()
        return self.show_card_at_caret()

    def show_card_at_caret(self) -> str | None:
        """Show the card of the token at the caret (or the start of the selection), as hovering would."""
        cursor = self.textCursor()
        position = cursor.selectionStart() if cursor.hasSelection() else cursor.position()
        text = token_tooltip(self.format_at(position))
        self.last_card = text
        if text:
            probe = QTextCursor(self.document())
            probe.setPosition(position)
            rect = self.cursorRect(probe)
            QToolTip.showText(self.viewport().mapToGlobal(rect.bottomLeft()), text, self.viewport())
        return text

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
        offset = QPointF(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        position = self.document().documentLayout().hitTest(viewport_pos + offset, Qt.HitTestAccuracy.ExactHit)
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

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """Recolour when the theme changes."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._refresh_palette()
            self._rerender(keep_scroll=True)

    # -- rendering ----------------------------------------------------------------------

    def _refresh_palette(self) -> None:
        palette = self.palette()
        self._origin_colours = theme.origin_colours(palette)
        self._muted = theme.muted_text(palette)
        self._ghost = theme.ghost_colour(palette)
        self._code_bg = theme.code_background(palette)
        self._user_bg = theme.user_background(palette)
        self._mono = theme.monospace_font(self.font().pointSizeF() * 0.95)

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

    def _new_block(self, cursor: QTextCursor, top_margin: float = 0.0, background: QColor | None = None) -> None:
        fmt = QTextBlockFormat()
        fmt.setTopMargin(top_margin)
        fmt.setLineHeight(115, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        if background is not None:
            fmt.setBackground(background)
        if cursor.position() == 0 and self.document().characterCount() <= 1:
            cursor.setBlockFormat(fmt)  # the document's first, empty block
        else:
            cursor.insertBlock(fmt, QTextCharFormat())

    def _plain_format(self, message_index: int, kind: str, colour: QColor | None = None) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setProperty(Prop.KIND, kind)
        fmt.setProperty(Prop.MESSAGE_INDEX, message_index)
        if colour is not None:
            fmt.setForeground(colour)
        return fmt

    def _render(self, cursor: QTextCursor, index: int, message: ViewMessage) -> None:
        who = {"user": "You", "assistant": "Assistant", "system": "System"}.get(message.role, message.role)
        self._new_block(cursor, top_margin=0 if index == 0 else 16)
        header = self._plain_format(index, "header", self._muted)
        header.setFontWeight(QFont.Weight.DemiBold)
        cursor.insertText(who + (f"  ·  {message.header}" if message.header else ""), header)
        if message.notice:
            self._new_block(cursor, top_margin=4)
            notice = self._plain_format(index, "notice", self._muted)
            notice.setFontItalic(True)
            cursor.insertText("⚠ " + message.notice, notice)
        self._new_block(cursor, top_margin=6, background=self._user_bg if message.role == "user" else None)
        self._tracker = CodeTracker()
        if message.role == "assistant":
            if message.tokens:
                # The tokens are what is drawn: the text laid out is theirs.
                message.text = "".join(t.text for t in message.tokens)
            state = _StreamState(index)
            self._stream = state
            self._relayout_tail(cursor, state, message)
        else:
            self._insert_runs(cursor, message.text, self._plain_format(index, "text"), message.role == "user")

    # -- Markdown replies --------------------------------------------------------------

    def _relayout_tail(self, cursor: QTextCursor, state: _StreamState, message: ViewMessage) -> None:
        """Lay out the reply again from its last open leaf block (an open code block: its last line) on.

        Markdown is parsed from the last top-level block (earlier ones can no longer
        change) and drawn again from the last leaf block in it; inside a long open
        code block the parse starts a few lines back under a copy of its opening
        fence, so a step costs the same at token 10,000 as at token 100.
        """
        text = message.text
        known = len(state.token_starts)
        offset = state.token_starts[-1] + len(message.tokens[known - 1].text) if known else 0
        for token in message.tokens[known:]:
            state.token_starts.append(offset)
            offset += len(token.text)
        first = state.open_line
        redraw = max(first, state.last_line if state.open_fence else state.leaf_line)
        offsets = state.line_offsets
        dark = theme.is_dark(self.palette())
        if state.open_fence and redraw - first > LEX_WINDOW_LINES:
            tail = redraw - LEX_WINDOW_LINES // 2
            opener = text[offsets[first] : offsets[first + 1] - 1]
            laid = layout(opener + "\n" + text[offsets[tail] :], tail - 1, redraw, dark)
            still_open = laid.open_block_line == tail - 1
            open_line = first if still_open else laid.open_block_line
            leaf_line = first if still_open else laid.leaf_line
        else:
            laid = layout(text[offsets[first] :], first, redraw, dark)
            open_line, leaf_line = laid.open_block_line, laid.leaf_line
        base = laid.first_line
        # Lines before ``redraw`` stay as drawn; the rest is drawn again.
        del offsets[redraw + 1 :]
        for number in range(redraw + 1, base + len(laid.lines)):
            offsets.append(offsets[-1] + len(laid.lines[number - 1 - base].text) + 1)
        if redraw < len(state.break_positions):
            cursor.setPosition(state.break_positions[redraw])
            cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
            del state.break_positions[redraw:]
        for number in range(redraw, base + len(laid.lines)):
            self._draw_line(cursor, state, message, number, laid.lines[number - base])
        state.open_line = open_line
        state.leaf_line = leaf_line
        state.open_fence = laid.open_fence
        state.last_line = base + len(laid.lines) - 1

    def _draw_line(
        self, cursor: QTextCursor, state: _StreamState, message: ViewMessage, number: int, line: LineLayout
    ) -> None:
        start = state.line_offsets[number]
        state.break_positions.append(cursor.position())
        block = QTextBlockFormat()
        block.setLineHeight(115, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        if line.kind in (LineKind.CODE, LineKind.FENCE):
            block.setBackground(self._code_bg)
        if line.kind is LineKind.HEADING:
            block.setTopMargin(6)
        if line.quote:
            block.setLeftMargin(14.0 * line.quote)
        if number == 0:
            cursor.setBlockFormat(block)
        else:
            newline = start - 1
            owner = self._owner(state, newline)
            self._maybe_ghost(cursor, state, message, owner, newline)
            cursor.insertBlock(block, self._char_format(state, message, owner, line, Char.NONE, ""))
        padding = dict(line.padding)
        run_start = 0
        for column in range(len(line.text) + 1):
            boundary = column == len(line.text) or column in padding
            owner = self._owner(state, start + column) if column < len(line.text) else -1
            if not boundary and column > run_start:
                same = (
                    owner == self._owner(state, start + column - 1)
                    and line.styles[column] == line.styles[column - 1]
                    and (line.colours is None or line.colours[column] == line.colours[column - 1])
                    and state.token_starts[owner] != start + column
                )
                if same:
                    continue
            if column > run_start:
                self._draw_run(cursor, state, message, line, start, run_start, column)
            if column in padding:
                filler = self._plain_format(state.message_index, "filler")
                filler.setFontFamilies(self._mono.families())
                filler.setFontFixedPitch(True)
                cursor.insertText(" " * padding[column], filler)
            run_start = column
        if line.fence_info is not None:
            link = self._plain_format(state.message_index, "filler", self.palette().color(QPalette.ColorRole.Link))
            link.setAnchor(True)
            link.setAnchorHref(f"{COPY_CODE}?message={state.message_index}&line={number}")
            link.setFontPointSize(max(7.0, self.font().pointSizeF() * 0.85))
            cursor.insertText("   ", self._plain_format(state.message_index, "filler"))
            cursor.insertText("copy code", link)

    def _draw_run(
        self,
        cursor: QTextCursor,
        state: _StreamState,
        message: ViewMessage,
        line: LineLayout,
        start: int,
        begin: int,
        end: int,
    ) -> None:
        owner = self._owner(state, start + begin)
        self._maybe_ghost(cursor, state, message, owner, start + begin)
        colour = line.colours[begin] if line.colours is not None else ""
        href = next((h for a, b, h in line.links if a <= begin < b), "")
        fmt = self._char_format(state, message, owner, line, line.styles[begin], colour, href)
        cursor.insertText(line.text[begin:end], fmt)

    def _owner(self, state: _StreamState, offset: int) -> int:
        return max(0, bisect_right(state.token_starts, offset) - 1)

    def _maybe_ghost(
        self, cursor: QTextCursor, state: _StreamState, message: ViewMessage, owner: int, offset: int
    ) -> None:
        if not self._show_ghosts or not message.tokens or state.token_starts[owner] != offset:
            return
        token = message.tokens[owner]
        if token.rejected_text:
            # A rejected line break is shown as a mark: it never becomes part of the reply's layout.
            fmt = self._token_format(state.message_index, owner, token, ghost=True)
            cursor.insertText(ghost_text(token.rejected_text), fmt)

    def _char_format(
        self,
        state: _StreamState,
        message: ViewMessage,
        owner: int,
        line: LineLayout,
        style: Char,
        colour: str,
        href: str = "",
    ) -> QTextCharFormat:
        if not message.tokens:
            return self._plain_format(state.message_index, "text")
        fmt = self._token_format(state.message_index, owner, message.tokens[owner])
        code = line.kind in (LineKind.CODE, LineKind.FENCE, LineKind.TABLE, LineKind.TABLE_RULE) or style & Char.CODE
        if code:
            fmt.setFontFamilies(self._mono.families())
            fmt.setFontFixedPitch(True)
        if line.kind is LineKind.HEADING:
            fmt.setFontWeight(QFont.Weight.Bold)
            fmt.setFontPointSize(self.font().pointSizeF() * _HEADING_SCALE.get(line.level, 1.05))
        if style & Char.BOLD:
            fmt.setFontWeight(QFont.Weight.Bold)
        if style & Char.ITALIC:
            fmt.setFontItalic(True)
        if style & Char.STRIKE:
            fmt.setFontStrikeOut(True)
        if colour:
            fmt.setForeground(QColor(colour))
        if style & Char.MARKUP:
            fmt.setForeground(self._muted)
        if style & Char.LINK and href:
            fmt.setForeground(self.palette().color(QPalette.ColorRole.Link))
            fmt.setFontUnderline(True)
            fmt.setAnchor(True)
            fmt.setAnchorHref(href)
        return fmt

    def _token_format(
        self, message_index: int, token_index: int, token: StoredToken, ghost: bool = False
    ) -> QTextCharFormat:
        fmt = self._plain_format(message_index, "ghost" if ghost else "token")
        fmt.setProperty(Prop.TOKEN_INDEX, token_index)
        fmt.setProperty(Prop.TOKEN_TEXT, token.text)
        fmt.setProperty(Prop.ORIGIN, token.origin)
        fmt.setProperty(Prop.P_TARGET, token.p_target)
        if token.q_draft is not None:
            fmt.setProperty(Prop.Q_DRAFT, token.q_draft)
        if token.source is not None:
            fmt.setProperty(Prop.SOURCE, token.source)
        if token.rejected_text is not None:
            fmt.setProperty(Prop.REJECTED_TEXT, token.rejected_text)
            fmt.setProperty(Prop.REJECTED_P, token.rejected_p)
            fmt.setProperty(Prop.REJECTED_Q, token.rejected_q)
        if ghost:
            fmt.setFontStrikeOut(True)
            fmt.setForeground(self._ghost)
        elif self._coloured:
            origin = TokenOrigin(token.origin)
            colour = self._origin_colours.get(origin)
            if colour is not None:
                fmt.setBackground(colour)
            if self._underlines:
                fmt.setUnderlineStyle(theme.ORIGIN_UNDERLINES[origin])
        return fmt

    def _insert_runs(
        self, cursor: QTextCursor, text: str, fmt: QTextCharFormat, user: bool, track: bool = True
    ) -> None:
        """Insert ``text`` in ``fmt``, switching to the code font and code blocks where Markdown says so."""
        runs = self._tracker.split(text) if track else [(text, SpanKind.TEXT)]
        for run, kind in runs:
            if run == "\n":
                cursor.insertBlock(cursor.blockFormat(), fmt)
                self._set_block_kind(cursor, kind, user)
                continue
            if kind is SpanKind.CODE_BLOCK or cursor.atBlockStart():
                self._set_block_kind(cursor, kind, user)
            piece = QTextCharFormat(fmt)
            if kind is not SpanKind.TEXT:
                piece.setFontFamilies(self._mono.families())
                piece.setFontFixedPitch(True)
            cursor.insertText(run, piece)

    def _set_block_kind(self, cursor: QTextCursor, kind: SpanKind, user: bool) -> None:
        block = cursor.blockFormat()
        block.setTopMargin(0)
        if kind is SpanKind.CODE_BLOCK:
            block.setBackground(self._code_bg)
        elif user:
            block.setBackground(self._user_bg)
        else:
            block.clearBackground()
        cursor.setBlockFormat(block)

    def _insert_footer(self, cursor: QTextCursor, index: int, message: ViewMessage) -> None:
        self._new_block(cursor, top_margin=6)
        fmt = self._plain_format(index, "footer", self._muted)
        fmt.setFontPointSize(max(7.0, self.font().pointSizeF() * 0.85))
        cursor.insertText(message.footer, fmt)
        if message.text:
            cursor.insertText("  ·  ", fmt)
            copy = QTextCharFormat(fmt)
            copy.setForeground(self.palette().color(QPalette.ColorRole.Link))
            copy.setAnchor(True)
            copy.setAnchorHref(f"{COPY_MESSAGE}?message={index}")
            copy.setProperty(Prop.KIND, "footer-link")
            cursor.insertText("copy", copy)
        if message.footer_link is not None:
            href, label = message.footer_link
            cursor.insertText("  ·  ", fmt)
            link = QTextCharFormat(fmt)
            link.setForeground(self.palette().color(QPalette.ColorRole.Link))
            link.setFontUnderline(True)
            link.setAnchor(True)
            link.setAnchorHref(href)
            link.setProperty(Prop.KIND, "footer-link")
            cursor.insertText(label, link)

    def _insert_actions(self, cursor: QTextCursor, index: int, message: ViewMessage) -> None:
        """The message's action line: the branch switcher, then its actions (links only while idle)."""
        self._new_block(cursor, top_margin=2)
        plain = self._plain_format(index, "actions", self._muted)
        plain.setFontPointSize(max(7.0, self.font().pointSizeF() * 0.85))

        switcher = QTextCharFormat(plain)
        switcher.setFontWeight(QFont.Weight.DemiBold)
        switcher.setFontPointSize(self.font().pointSizeF())

        def link(action: str, label: str, base: QTextCharFormat = plain) -> None:
            if not self._actions_enabled:
                cursor.insertText(label, base)
                return
            fmt = QTextCharFormat(base)
            fmt.setForeground(self.palette().color(QPalette.ColorRole.Link))
            fmt.setAnchor(True)
            fmt.setAnchorHref(f"{MESSAGE_ACTION}?do={action}&message={index}")
            cursor.insertText(label, fmt)

        position, count = message.branch
        if count > 1:
            # The switcher in the body's size and bold: the arrows are small targets otherwise.
            if position > 1:
                link("previous", " ‹ ", switcher)
            else:
                cursor.insertText(" ‹ ", switcher)
            cursor.insertText(f"{position}/{count}", switcher)
            if position < count:
                link("next", " › ", switcher)
            else:
                cursor.insertText(" › ", switcher)
            if message.actions:
                cursor.insertText("     ", plain)
        for number, key in enumerate(message.actions):
            if number:
                cursor.insertText("  ·  ", plain)
            link(key, ACTION_LABELS[key])


@dataclass(slots=True)
class _StreamState:
    """Where the reply being laid out sits in the document, line by line."""

    message_index: int
    token_starts: list[int] = field(default_factory=list)  # reply offset where each token starts
    line_offsets: list[int] = field(default_factory=lambda: [0])  # reply offset where each line starts
    break_positions: list[int] = field(default_factory=list)  # document position just before each line
    open_line: int = 0  # the first line of the block that can still change
    open_fence: bool = False
    leaf_line: int = 0  # the first line to draw again
    last_line: int = 0


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


def _row(name: str, value: str) -> str:
    return f"<tr><td style='padding-right:10px'>{name}</td><td>{value}</td></tr>"


def _code(text: str) -> str:
    return f"<code>{html.escape(_visible(text))}</code>"


_SOURCE_LABELS = {"model": "the draft model", "lookup": "prompt lookup (copied from earlier text)"}


def token_tooltip(fmt: QTextCharFormat) -> str | None:
    """Rich-text hover card for a token's format, or ``None`` for anything that is not a token."""
    kind = fmt.property(Prop.KIND)
    if kind not in ("token", "ghost"):
        return None
    rows: list[str] = []
    if kind == "ghost":
        title = "<b>Rejected draft proposal</b>"
        explanation = "the draft proposed this; the target said no"
        rows.append(_row("proposal", _code(str(fmt.property(Prop.REJECTED_TEXT)))))
        rows.append(_row("target p", f"{float(fmt.property(Prop.REJECTED_P)):.3f}"))
        rows.append(_row("draft q", f"{float(fmt.property(Prop.REJECTED_Q)):.3f}"))
    else:
        origin = TokenOrigin(str(fmt.property(Prop.ORIGIN)))
        title = f"<b>{html.escape(theme.ORIGIN_LABELS[origin].capitalize())}</b>"
        explanation = theme.ORIGIN_EXPLANATIONS[origin]
        token = fmt.property(Prop.TOKEN_TEXT)
        if token is not None:
            rows.append(_row("token", _code(str(token))))
        p = float(fmt.property(Prop.P_TARGET))
        rows.append(_row("target p", "not reported by the server" if math.isnan(p) else f"{p:.3f}"))
        source = fmt.property(Prop.SOURCE)
        if source is not None:
            rows.append(_row("proposed by", _SOURCE_LABELS.get(str(source), str(source))))
        q = fmt.property(Prop.Q_DRAFT)
        if q is not None:
            rows.append(_row("draft q", f"{float(q):.3f}"))
        rejected = fmt.property(Prop.REJECTED_TEXT)
        if rejected is not None:
            odds = f"p {float(fmt.property(Prop.REJECTED_P)):.3f}, q {float(fmt.property(Prop.REJECTED_Q)):.3f}"
            rows.append(_row("rejected", f"{_code(str(rejected))} ({odds})"))
    return (
        f"<p style='white-space:pre'>{title}<br>{html.escape(explanation)}</p>"
        f"<table cellspacing='0' cellpadding='1'>{''.join(rows)}</table>"
    )
