"""The conversation view: streamed replies with every token coloured by origin.

Each token is inserted with its own ``QTextCharFormat`` that carries the
facts behind it as user properties (origin, the target's p, the draft's q,
the rejected proposal), so the hover tooltip, the reading-view switch and
the tests all read the same facts back from the document instead of keeping
a second copy in sync. Colours come from :mod:`app.ui.theme`.
"""

from __future__ import annotations

import enum
import html
from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QHelpEvent,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QTextBrowser, QToolTip, QWidget

from app.core.decoding.events import TokenOrigin
from app.engine.chat_store import StoredToken
from app.ui import theme
from app.ui.chat.code_spans import CodeTracker, SpanKind

_USER = int(QTextFormat.Property.UserProperty)


class Prop(enum.IntEnum):
    """User properties stored on every character format the view writes."""

    KIND = _USER + 1  # "token", "ghost", "text", "header", "notice", "footer"
    ORIGIN = _USER + 2
    P_TARGET = _USER + 3
    Q_DRAFT = _USER + 4
    REJECTED_TEXT = _USER + 5
    REJECTED_P = _USER + 6
    REJECTED_Q = _USER + 7
    TOKEN_INDEX = _USER + 8
    MESSAGE_INDEX = _USER + 9
    TOKEN_TEXT = _USER + 10


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

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setOpenLinks(False)
        self.setUndoRedoEnabled(False)
        self.document().setDocumentMargin(14)
        self._messages: list[ViewMessage] = []
        self._coloured = True
        self._show_ghosts = False
        self._tracker = CodeTracker()
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
        start = len(message.tokens)
        message.tokens.extend(tokens)
        message.text += "".join(t.text for t in tokens)
        with self._at_end() as cursor:
            for offset, token in enumerate(tokens):
                self._insert_token(cursor, len(self._messages) - 1, start + offset, token)

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

    def set_coloured(self, coloured: bool) -> None:
        """Colour tokens by origin, or show the clean reading view."""
        if coloured != self._coloured:
            self._coloured = coloured
            self._rerender(keep_scroll=True)

    def set_show_ghosts(self, show: bool) -> None:
        """Show rejected draft proposals inline as struck-through ghost text."""
        if show != self._show_ghosts:
            self._show_ghosts = show
            self._rerender(keep_scroll=True)

    def token_spans(self) -> list[TokenSpan]:
        """Every token (and ghost) in the document, in order, as the formats describe them."""
        spans: list[TokenSpan] = []

        def add(fmt: QTextCharFormat, text: str) -> None:
            kind = fmt.property(Prop.KIND)
            if kind not in ("token", "ghost"):
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

    def tooltip_at(self, viewport_pos: QPointF) -> str | None:
        """The hover text for the token under a viewport point, if there is one."""
        offset = QPointF(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        position = self.document().documentLayout().hitTest(viewport_pos + offset, Qt.HitTestAccuracy.ExactHit)
        if position < 0:
            return None
        return token_tooltip(self.format_at(position))

    # -- Qt hooks ---------------------------------------------------------------------

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Show the token tooltip on hover."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self.tooltip_at(QPointF(event.pos()))
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
            for i, token in enumerate(message.tokens):
                self._insert_token(cursor, index, i, token)
        else:
            self._insert_runs(cursor, message.text, self._plain_format(index, "text"), message.role == "user")

    def _insert_token(self, cursor: QTextCursor, message_index: int, token_index: int, token: StoredToken) -> None:
        if self._show_ghosts and token.rejected_text:
            ghost = self._token_format(message_index, token_index, token, ghost=True)
            # A rejected line break is shown as a mark: it never becomes part of the reply's layout.
            self._insert_runs(cursor, ghost_text(token.rejected_text), ghost, False, track=False)
        self._insert_runs(cursor, token.text, self._token_format(message_index, token_index, token), False)

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
        if token.rejected_text is not None:
            fmt.setProperty(Prop.REJECTED_TEXT, token.rejected_text)
            fmt.setProperty(Prop.REJECTED_P, token.rejected_p)
            fmt.setProperty(Prop.REJECTED_Q, token.rejected_q)
        if ghost:
            fmt.setFontStrikeOut(True)
            fmt.setForeground(self._ghost)
        elif self._coloured:
            colour = self._origin_colours.get(TokenOrigin(token.origin))
            if colour is not None:
                fmt.setBackground(colour)
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
        rows.append(_row("target p", f"{float(fmt.property(Prop.P_TARGET)):.3f}"))
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
