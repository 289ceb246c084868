"""The lines the chat view draws around a message's text: its header, notice, footer and action line.

Above the text: who wrote it (with the reply's pair) and, when there is one,
a notice in italics. Below a reply: its footer (the one-line summary, a
"copy" link for the raw Markdown, and the link the footer offers, if any).
Under a stored message: its action line, the branch switcher "‹ 2/3 ›" where
the message has siblings, then Generate (a question without a reply), Edit, Regenerate, Continue,
Delete, Info, Steps as the message allows. The links use the view's own ``tandem:`` schemes; while a
reply streams the action line is drawn as plain muted text.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QFont, QTextBlockFormat, QTextCharFormat, QTextCursor

from app.ui.chat.view.token_painter import Prop, TokenPainter
from app.ui.i18n import QT_TRANSLATE_NOOP

COPY_MESSAGE = "tandem:copy-message"
MESSAGE_ACTION = "tandem:message-action"
# What each action is called in the action line and the context menu, in the order shown.
ACTION_LABELS = {
    "generate": QT_TRANSLATE_NOOP("MessageLines", "Generate"),
    "edit": QT_TRANSLATE_NOOP("MessageLines", "Edit"),
    "regenerate": QT_TRANSLATE_NOOP("MessageLines", "Regenerate"),
    "continue": QT_TRANSLATE_NOOP("MessageLines", "Continue"),
    "delete": QT_TRANSLATE_NOOP("MessageLines", "Delete"),
    "info": QT_TRANSLATE_NOOP("MessageLines", "Info"),
    "steps": QT_TRANSLATE_NOOP("MessageLines", "Steps"),
}
# The context menu's entry that copies the branch up to a message into a new chat (not in the action line).
FORK_LABEL = QT_TRANSLATE_NOOP("MessageLines", "Fork into new chat")
_WHO = {
    "user": QT_TRANSLATE_NOOP("MessageLines", "You"),
    "assistant": QT_TRANSLATE_NOOP("MessageLines", "Assistant"),
    "system": QT_TRANSLATE_NOOP("MessageLines", "System"),
}


def action_label(key: str) -> str:
    """An action's name (see :data:`ACTION_LABELS`) in the window's language."""
    return QCoreApplication.translate("MessageLines", ACTION_LABELS[key])


def new_block(cursor: QTextCursor, top_margin: float = 0.0, background: QColor | None = None) -> None:
    """Start a paragraph at ``cursor`` (the document's first, empty one is reused)."""
    fmt = QTextBlockFormat()
    fmt.setTopMargin(top_margin)
    fmt.setLineHeight(115, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
    if background is not None:
        fmt.setBackground(background)
    if cursor.position() == 0 and cursor.document().characterCount() <= 1:
        cursor.setBlockFormat(fmt)  # the document's first, empty block
    else:
        cursor.insertBlock(fmt, QTextCharFormat())


def insert_header(cursor: QTextCursor, painter: TokenPainter, index: int, role: str, header: str, notice: str) -> None:
    """Who wrote message ``index`` (and ``header``, e.g. the pair), then its ``notice`` if any."""
    new_block(cursor, top_margin=0 if index == 0 else 16)
    fmt = painter.plain_format(index, "header", painter.muted)
    fmt.setFontWeight(QFont.Weight.DemiBold)
    cursor.insertText(
        QCoreApplication.translate("MessageLines", _WHO.get(role, role)) + (f"  ·  {header}" if header else ""), fmt
    )
    if notice:
        new_block(cursor, top_margin=4)
        warning = painter.plain_format(index, "notice", painter.muted)
        warning.setFontItalic(True)
        cursor.insertText("⚠ " + notice, warning)


def insert_footer(
    cursor: QTextCursor,
    painter: TokenPainter,
    index: int,
    footer: str,
    copyable: bool,
    footer_link: tuple[str, str] | None,
) -> None:
    """A reply's footer: the summary, "copy" when there is text to copy, then the offered link."""
    new_block(cursor, top_margin=6)
    fmt = painter.plain_format(index, "footer", painter.muted)
    fmt.setFontPointSize(painter.small_point_size)
    cursor.insertText(footer, fmt)
    if copyable:
        cursor.insertText("  ·  ", fmt)
        copy = QTextCharFormat(fmt)
        copy.setForeground(painter.link_colour)
        copy.setAnchor(True)
        copy.setAnchorHref(f"{COPY_MESSAGE}?message={index}")
        copy.setProperty(Prop.KIND, "footer-link")
        cursor.insertText(QCoreApplication.translate("MessageLines", "copy"), copy)
    if footer_link is not None:
        href, label = footer_link
        cursor.insertText("  ·  ", fmt)
        link = QTextCharFormat(fmt)
        link.setForeground(painter.link_colour)
        link.setFontUnderline(True)
        link.setAnchor(True)
        link.setAnchorHref(href)
        link.setProperty(Prop.KIND, "footer-link")
        cursor.insertText(label, link)


def insert_actions(
    cursor: QTextCursor,
    painter: TokenPainter,
    index: int,
    branch: tuple[int, int],
    actions: tuple[str, ...],
    enabled: bool,
) -> None:
    """The message's action line: the branch switcher, then its actions (links only when ``enabled``)."""
    new_block(cursor, top_margin=2)
    plain = painter.plain_format(index, "actions", painter.muted)
    plain.setFontPointSize(painter.small_point_size)

    switcher = QTextCharFormat(plain)
    switcher.setFontWeight(QFont.Weight.DemiBold)
    switcher.setFontPointSize(painter.point_size)

    def link(action: str, label: str, base: QTextCharFormat = plain) -> None:
        if not enabled:
            cursor.insertText(label, base)
            return
        fmt = QTextCharFormat(base)
        fmt.setForeground(painter.link_colour)
        fmt.setAnchor(True)
        fmt.setAnchorHref(f"{MESSAGE_ACTION}?do={action}&message={index}")
        cursor.insertText(label, fmt)

    position, count = branch
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
        if actions:
            cursor.insertText("     ", plain)
    for number, key in enumerate(actions):
        if number:
            cursor.insertText("  ·  ", plain)
        link(key, action_label(key))
