"""Tokens read back from the view's document: the token card, the keyboard walk, the spans.

Nothing here keeps a copy of the tokens: everything is read from the
characters' formats. The card (on hover, or walked to from the keyboard) is
built from the token's own character format (the properties
:class:`~app.ui.chat.view.token_painter.TokenPainter` wrote): its origin and what
that means, the target's p, the draft's q, which drafter proposed it and the
proposal the target rejected there. From the keyboard, Alt+Right and Alt+Left
select the next or previous token and show its card where the caret is, so
every fact the colours show can be reached without a mouse. The tests read
the tokens back as :class:`TokenSpan` records.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextEdit, QToolTip

from app.core.decoding.events import TokenOrigin
from app.core.decoding.lookup import CONTEXT_CITATION
from app.ui import theme
from app.ui.chat.view.token_painter import Prop
from app.ui.i18n import QT_TRANSLATE_NOOP
from app.ui.i18n.words import number


@dataclass(frozen=True, slots=True)
class TokenSpan:
    """A token read back from the document."""

    message_index: int
    token_index: int
    text: str
    origin: str
    ghost: bool


# Where a copied token came from, as the core names it (stored with the token: data, in English).
_PAGE_CITATION = re.compile(r"^(?P<name>.+), p\. (?P<page>\d+)$")


def copied_from_label(source: str) -> str:
    """A "copied from" place in the window's language: "earlier in this chat", or a file's page ("report.pdf, p. 3")."""
    if source == CONTEXT_CITATION:
        return QCoreApplication.translate("TokenCards", "earlier in this chat")
    page = _PAGE_CITATION.match(source)
    if page is not None:
        return QCoreApplication.translate("TokenCards", "{name}, p. {page}").format(
            name=page["name"], page=page["page"]
        )
    return source


SHORT_SOURCE_LABELS = {
    "model": QT_TRANSLATE_NOOP("TokenCards", "model"),
    "lookup": QT_TRANSLATE_NOOP("TokenCards", "lookup"),
}
_SOURCE_LABELS = {
    "model": QT_TRANSLATE_NOOP("TokenCards", "the draft model"),
    "lookup": QT_TRANSLATE_NOOP("TokenCards", "prompt lookup (copied from earlier text)"),
}


def format_at(document: QTextDocument, position: int) -> QTextCharFormat:
    """The character format of the character at ``position``."""
    cursor = QTextCursor(document)
    cursor.setPosition(min(position + 1, document.characterCount() - 1))
    return cursor.charFormat()


def _visible(text: str) -> str:
    """A token's text with its whitespace made visible, for tooltips."""
    return text.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥") or "∅"


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
        title = "<b>" + html.escape(QCoreApplication.translate("TokenCards", "Rejected draft proposal")) + "</b>"
        explanation = QCoreApplication.translate("TokenCards", "the draft proposed this; the target said no")
        rows.append(
            _row(QCoreApplication.translate("TokenCards", "proposal"), _code(str(fmt.property(Prop.REJECTED_TEXT))))
        )
        rows.append(
            _row(
                QCoreApplication.translate("TokenCards", "target p"),
                number(float(fmt.property(Prop.REJECTED_P)), ".3f"),
            )
        )
        rows.append(
            _row(
                QCoreApplication.translate("TokenCards", "draft q"), number(float(fmt.property(Prop.REJECTED_Q)), ".3f")
            )
        )
    else:
        origin = TokenOrigin(str(fmt.property(Prop.ORIGIN)))
        label = theme.origin_label(origin)
        title = f"<b>{html.escape(label[:1].upper() + label[1:])}</b>"
        explanation = theme.origin_explanation(origin)
        token = fmt.property(Prop.TOKEN_TEXT)
        if token is not None:
            rows.append(_row(QCoreApplication.translate("TokenCards", "token"), _code(str(token))))
        p = float(fmt.property(Prop.P_TARGET))
        rows.append(
            _row(
                QCoreApplication.translate("TokenCards", "target p"),
                QCoreApplication.translate("TokenCards", "not reported by the server")
                if math.isnan(p)
                else number(p, ".3f"),
            )
        )
        source = fmt.property(Prop.SOURCE)
        if source is not None:
            rows.append(
                _row(
                    QCoreApplication.translate("TokenCards", "proposed by"),
                    QCoreApplication.translate("TokenCards", _SOURCE_LABELS.get(str(source), str(source))),
                )
            )
        copied = fmt.property(Prop.COPIED_FROM)
        if copied is not None:
            rows.append(
                _row(
                    QCoreApplication.translate("TokenCards", "copied from"), html.escape(copied_from_label(str(copied)))
                )
            )
        q = fmt.property(Prop.Q_DRAFT)
        if q is not None:
            rows.append(_row(QCoreApplication.translate("TokenCards", "draft q"), number(float(q), ".3f")))
        rejected = fmt.property(Prop.REJECTED_TEXT)
        if rejected is not None:
            p_rejected = number(float(fmt.property(Prop.REJECTED_P)), ".3f")
            odds = f"p {p_rejected}, q {number(float(fmt.property(Prop.REJECTED_Q)), '.3f')}"
            rows.append(_row(QCoreApplication.translate("TokenCards", "rejected"), f"{_code(str(rejected))} ({odds})"))
    return (
        f"<p style='white-space:pre'>{title}<br>{html.escape(explanation)}</p>"
        f"<table cellspacing='0' cellpadding='1'>{''.join(rows)}</table>"
    )


def token_positions(document: QTextDocument) -> list[int]:
    """Document position of the first character of every token (ghosts excluded), in order."""
    positions: list[int] = []
    last: tuple[int, int] | None = None
    block = document.begin()
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


def select_next_token(view: QTextEdit, forward: bool) -> bool:
    """Select the token after (or before) the caret in ``view``; False when there is none that way."""
    document = view.document()
    here = view.textCursor().selectionStart() if view.textCursor().hasSelection() else view.textCursor().position()
    positions = token_positions(document)
    if forward:
        target = next((p for p in positions if p > here), None)
    else:
        target = next((p for p in reversed(positions) if p < here), None)
    if target is None:
        return False
    following = next((p for p in positions if p > target), None)
    end = following if following is not None else target + 1
    cursor = QTextCursor(document)
    cursor.setPosition(target)
    # Select the token's own characters (up to the next token or filler).
    stop = target + 1
    first = format_at(document, target)
    key = (first.property(Prop.MESSAGE_INDEX), first.property(Prop.TOKEN_INDEX))
    while stop < end:
        fmt = format_at(document, stop)
        if (fmt.property(Prop.MESSAGE_INDEX), fmt.property(Prop.TOKEN_INDEX)) != key:
            break
        stop += 1
    cursor.setPosition(stop, QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    view.ensureCursorVisible()
    return True


def show_card_at_caret(view: QTextEdit) -> str | None:
    """Show the card of the token at ``view``'s caret (or its selection's start), as hovering would."""
    cursor = view.textCursor()
    position = cursor.selectionStart() if cursor.hasSelection() else cursor.position()
    text = token_tooltip(format_at(view.document(), position))
    if text:
        probe = QTextCursor(view.document())
        probe.setPosition(position)
        rect = view.cursorRect(probe)
        QToolTip.showText(view.viewport().mapToGlobal(rect.bottomLeft()), text, view.viewport())
    return text


def token_spans(document: QTextDocument) -> list[TokenSpan]:
    """Every token (and ghost) in ``document``, in order, as the formats describe them."""
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

    block = document.begin()
    while block.isValid():
        if block != document.begin():
            # A newline inside a reply starts a block whose own format is the token that wrote it.
            add(block.charFormat(), "\n")
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            # A formula's slice is one object character standing for its token's source characters.
            source = fmt.property(Prop.MATH_SOURCE)
            add(fmt, fragment.text() if source is None else str(source))
            it += 1
        block = block.next()
    return spans
