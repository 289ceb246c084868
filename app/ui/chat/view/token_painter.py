"""The token painter: the character formats the chat view writes, tokens coloured by origin.

Every format carries the facts behind its characters as user properties
(:class:`Prop`: what kind of text, which message, and for a token its origin,
the target's p, the draft's q, the rejected proposal), so the hover card,
the keyboard walk and the tests read the facts back from the document. A
token's origin is its background colour, and, for readers who cannot tell the
colours apart, its underline style too; a rejected proposal is "ghost" text,
struck through. Colours come from :mod:`app.ui.theme`.
"""

from __future__ import annotations

import enum

from PySide6.QtGui import QColor, QFont, QPalette, QTextCharFormat, QTextFormat
from PySide6.QtWidgets import QWidget

from app.core.decoding.events import TokenOrigin
from app.core.reply.token_record import TokenRecord
from app.ui import theme
from app.ui.chat.view.markdown_layout import Char, LineKind, LineLayout

_USER = int(QTextFormat.Property.UserProperty)
_HEADING_SCALE = {1: 1.5, 2: 1.3, 3: 1.15}
# Lines set in the code font: code, and tables (so their padded columns line up as a grid).
_MONOSPACE_LINES = frozenset(
    {LineKind.CODE, LineKind.FENCE, LineKind.TABLE, LineKind.TABLE_HEADER, LineKind.TABLE_RULE}
)


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
    COPIED_FROM = _USER + 12  # where prompt lookup copied a token from: "report.pdf, p. 3", "earlier in this chat"
    MATH_SOURCE = _USER + 13  # on a formula's object character: the source characters it stands for


def ghost_text(text: str) -> str:
    """How a rejected proposal is drawn inline: line breaks become a visible mark."""
    return text.replace("\n", "↵")


class TokenPainter:
    """Builds the view's character formats from its palette, its font and the reader's choices.

    The colours are taken from the palette when :meth:`refresh` is called (the
    view calls it when the theme changes); the font size and the link colour
    are read from the widget each time, as the view draws.
    """

    def __init__(self, widget: QWidget) -> None:
        self._widget = widget
        self.coloured = True  # False in the clean reading view
        self.underlines = False  # each origin also gets its own underline style
        self.show_ghosts = False  # rejected proposals drawn inline, struck through
        self.refresh()

    def refresh(self) -> None:
        """Take the colours and the code font from the widget's current palette and font."""
        palette = self._widget.palette()
        self.origin_colours = theme.origin_colours(palette)
        self.muted = theme.muted_text(palette)
        self.ghost = theme.ghost_colour(palette)
        self.code_background = theme.code_background(palette)
        self.user_background = theme.user_background(palette)
        self.mono = theme.monospace_font(self._widget.font().pointSizeF() * 0.95)

    @property
    def link_colour(self) -> QColor:
        """The palette's link colour, for the view's own links (copy, actions, footer links)."""
        return self._widget.palette().color(QPalette.ColorRole.Link)

    @property
    def text_colour(self) -> QColor:
        """The palette's text colour (formulas are drawn in it)."""
        return self._widget.palette().color(QPalette.ColorRole.Text)

    @property
    def point_size(self) -> float:
        """The body text's point size."""
        return self._widget.font().pointSizeF()

    @property
    def small_point_size(self) -> float:
        """The point size of the small print: footers, action lines, copy links."""
        return max(7.0, self.point_size * 0.85)

    @property
    def dark(self) -> bool:
        """Whether the palette is dark (the code highlighter picks its colours by it)."""
        return theme.is_dark(self._widget.palette())

    def set_monospace(self, fmt: QTextCharFormat) -> None:
        """Switch ``fmt`` to the code font."""
        fmt.setFontFamilies(self.mono.families())
        fmt.setFontFixedPitch(True)

    def plain_format(self, message_index: int, kind: str, colour: QColor | None = None) -> QTextCharFormat:
        """A format for text of ``kind`` that belongs to message ``message_index`` but to no token."""
        fmt = QTextCharFormat()
        fmt.setProperty(Prop.KIND, kind)
        fmt.setProperty(Prop.MESSAGE_INDEX, message_index)
        if colour is not None:
            fmt.setForeground(colour)
        return fmt

    def token_format(
        self, message_index: int, token_index: int, token: TokenRecord, ghost: bool = False
    ) -> QTextCharFormat:
        """The format of a token's characters (or, ``ghost``, of its rejected proposal), with its facts."""
        fmt = self.plain_format(message_index, "ghost" if ghost else "token")
        fmt.setProperty(Prop.TOKEN_INDEX, token_index)
        fmt.setProperty(Prop.TOKEN_TEXT, token.text)
        fmt.setProperty(Prop.ORIGIN, token.origin)
        fmt.setProperty(Prop.P_TARGET, token.p_target)
        if token.q_draft is not None:
            fmt.setProperty(Prop.Q_DRAFT, token.q_draft)
        if token.source is not None:
            fmt.setProperty(Prop.SOURCE, token.source)
        if token.copied_from is not None:
            fmt.setProperty(Prop.COPIED_FROM, token.copied_from)
        if token.rejected is not None:
            fmt.setProperty(Prop.REJECTED_TEXT, token.rejected.text)
            fmt.setProperty(Prop.REJECTED_P, token.rejected.p_target)
            fmt.setProperty(Prop.REJECTED_Q, token.rejected.q_draft)
        if ghost:
            fmt.setFontStrikeOut(True)
            fmt.setForeground(self.ghost)
        elif self.coloured:
            origin = TokenOrigin(token.origin)
            colour = self.origin_colours.get(origin)
            if colour is not None:
                fmt.setBackground(colour)
            if self.underlines:
                fmt.setUnderlineStyle(theme.ORIGIN_UNDERLINES[origin])
        return fmt

    def reply_format(
        self,
        message_index: int,
        tokens: list[TokenRecord],
        owner: int,
        line: LineLayout,
        style: Char,
        colour: str,
        href: str = "",
    ) -> QTextCharFormat:
        """A reply character's format: its token's, dressed as the Markdown layout says (code, heading, link...)."""
        # Text without tokens (a user's message) is dressed the same way, with no tint.
        fmt = (
            self.token_format(message_index, owner, tokens[owner])
            if tokens
            else self.plain_format(message_index, "text")
        )
        if line.kind in _MONOSPACE_LINES or style & Char.CODE:
            self.set_monospace(fmt)
        if line.kind is LineKind.TABLE_HEADER and not style & Char.MARKUP:
            fmt.setFontWeight(QFont.Weight.Bold)
        if line.kind is LineKind.HEADING:
            fmt.setFontWeight(QFont.Weight.Bold)
            fmt.setFontPointSize(self.point_size * _HEADING_SCALE.get(line.level, 1.05))
        if style & Char.BOLD:
            fmt.setFontWeight(QFont.Weight.Bold)
        if style & Char.ITALIC:
            fmt.setFontItalic(True)
        if style & Char.STRIKE:
            fmt.setFontStrikeOut(True)
        if colour:
            fmt.setForeground(QColor(colour))
        if style & Char.MARKUP:
            fmt.setForeground(self.muted)
        if style & Char.LINK and href:
            fmt.setForeground(self.link_colour)
            fmt.setFontUnderline(True)
            fmt.setAnchor(True)
            fmt.setAnchorHref(href)
        return fmt
