"""The step card: one verify step drawn with QPainter from its record.

Top to bottom: which step it is and what it cost (the draft and verify times,
as numbers and as a two-part bar); then one column per drafted token with
the token (struck through where the target rejected it, dim after that: never
tested), its q (what the drafter thought) and p (what the target thought) as
two bars, and the accept test as a bar filled to min(1, p/q) with the coin's
draw marked on it (a greedy step compares with the target's argmax instead,
and says so); then the outcome: after a rejection the residual distribution
normalise(max(0, p - q)) as bars with the correction the target drew marked,
after a fully accepted draft (or with none) the target's own distribution
with the bonus token marked.

Colours are the origins' Okabe-Ito hues (:mod:`app.ui.theme`): bluish green
for what the draft got accepted, vermillion for the rejection and its
correction, sky blue for the bonus; q in orange and p in blue. Every bar
drawn is kept in :attr:`StepCard.bars` by name ("q:0", "p:0", "test:0",
"coin:0", "strike:2", "residual:1", "chosen", "bonus:0", "cost"), so tests
can find it on the grabbed image.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.core.decoding.events import TokenOrigin
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.reply.step_record import DraftedRecord, StepRecord, TopEntry
from app.core.reply.step_words import reason_words
from app.ui import theme
from app.ui.i18n.words import number, say
from app.ui.steps.timeline import origin_colour

_MARGIN = 12.0
_LINE = 20.0
_TOKEN_H = 24.0
_BARS_H = 84.0
_TEST_H = 12.0
_ROW_H = 20.0
_MIN_COLUMN = 120.0  # a drafted token's column, at least
_DRAFTERS = {
    "model": str(QT_TRANSLATE_NOOP("StepCard", "the draft model")),
    "lookup": str(QT_TRANSLATE_NOOP("StepCard", "prompt lookup")),
}
Q_HUE = "orange"
P_HUE = "blue"


def visible(text: str) -> str:
    """A token's text with its whitespace made visible (a card shows single tokens)."""
    return text.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥") or "∅"


class StepCard(QWidget):
    """Paints one :class:`StepRecord` (or a line saying there is none)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.step: StepRecord | None = None
        self.position: tuple[int, int] = (0, 0)  # (this step's number from 1, how many steps)
        self.empty_text = self.tr("No step selected")
        self.bars: dict[str, QRectF] = {}
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName(self.tr("Step card"))

    def set_step(self, step: StepRecord | None, number: int = 0, count: int = 0) -> None:
        """Show ``step`` (number ``number`` of ``count``), or the empty text."""
        self.step = step
        self.position = (number, count)
        self.setMinimumHeight(int(self.needed_height()))
        # A long draft keeps its columns readable: the card grows and its scroll area scrolls.
        self.setMinimumWidth(int(2 * _MARGIN + _MIN_COLUMN * len(step.drafted)) if step is not None else 0)
        self.updateGeometry()
        self.update()

    def needed_height(self) -> float:
        """How tall the card must be for its step."""
        step = self.step
        if step is None:
            return 3 * _LINE
        height = _MARGIN + 2 * _LINE + 8
        if step.drafted:
            height += _LINE + _TOKEN_H + _BARS_H + _LINE + _TEST_H + _LINE + 8
        entries = step.residual_top if step.rejected_at is not None else step.bonus_top
        height += _LINE + max(1, len(entries)) * _ROW_H + _ROW_H + _MARGIN
        return height

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Wide enough for a few drafted tokens, as tall as the step needs."""
        return QSize(720, int(self.needed_height()))

    # -- painting ---------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """Draw the step (the bars drawn are recorded in :attr:`bars`)."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.color(QPalette.ColorRole.Base))
        self.bars = {}
        step = self.step
        if step is None:
            painter.setPen(theme.muted_text(palette))
            painter.drawText(
                self.rect().adjusted(12, 0, -12, 0),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.empty_text,
            )
            painter.end()
            return
        y = self._header(painter, step, _MARGIN)
        if step.drafted:
            y = self._drafted(painter, step, y)
        self._outcome(painter, step, y)
        painter.end()

    def _text(
        self,
        painter: QPainter,
        rect: QRectF,
        text: str,
        colour: QColor | None = None,
        bold: bool = False,
        align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft,
    ) -> None:
        font = QFont(self.font())
        font.setBold(bold)
        painter.setFont(font)
        painter.setPen(colour or self.palette().color(QPalette.ColorRole.Text))
        elided = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect, int(align | Qt.AlignmentFlag.AlignVCenter), elided)

    def _header(self, painter: QPainter, step: StepRecord, y: float) -> float:
        palette = self.palette()
        width = self.width() - 2 * _MARGIN
        number, count = self.position
        drafted = len(step.drafted)
        if drafted:
            known = _DRAFTERS.get(step.drafter or "")
            by = self.tr(known) if known is not None else step.drafter or self.tr("the drafter")
            if step.drafter == "lookup" and step.lookup_match is not None:
                by = self.tr("{drafter} (a {n}-token match)").format(drafter=by, n=step.lookup_match)
            rejected = step.rejected_at
            outcome = (
                self.tr("{accepted} accepted, rejected at {position}").format(
                    accepted=step.n_accepted, position=rejected + 1
                )
                if rejected is not None
                else self.tr("all {n} accepted, then a bonus token").format(n=drafted)
            )
            summary = self.tr("{drafter} drafted {n}: {outcome}").format(drafter=by, n=drafted, outcome=outcome)
        else:
            summary = self.tr("nothing drafted: the target decoded one token alone")
        title = (
            self.tr("Step {number} of {count} · {summary}").format(number=number, count=count, summary=summary)
            if count
            else summary
        )
        self._text(painter, QRectF(_MARGIN, y, width, _LINE), title, bold=True)
        y += _LINE
        why = self.tr("draft length {n}").format(n=step.draft_length)
        if step.reason:  # the policy's reason, kept in English in the record, said in the window's language
            why += f" ({say(reason_words(step.reason))})"
        mode = (
            self.tr("greedy: kept when it is the target's argmax")
            if step.greedy
            else self.tr("sampled: kept when the coin < min(1, p/q)")
        )
        cost = say(
            QT_TRANSLATE_NOOP("StepCard", "draft {draft:.1f} ms · verify {verify:.1f} ms").fill(
                draft=step.draft_ms, verify=step.verify_ms
            )
        )
        bar_w = 160.0
        self._text(
            painter, QRectF(_MARGIN, y, width - bar_w - 8, _LINE), f"{why} · {mode} · {cost}", theme.muted_text(palette)
        )
        total = step.draft_ms + step.verify_ms
        bar = QRectF(self.width() - _MARGIN - bar_w, y + 5, bar_w, _LINE - 10)
        self.bars["cost"] = bar
        if total > 0:
            split = bar_w * step.draft_ms / total
            painter.fillRect(QRectF(bar.left(), bar.top(), split, bar.height()), theme.OKABE_ITO[Q_HUE])
            painter.fillRect(QRectF(bar.left() + split, bar.top(), bar_w - split, bar.height()), theme.OKABE_ITO[P_HUE])
        return y + _LINE + 8

    def _drafted(self, painter: QPainter, step: StepRecord, y: float) -> float:
        palette = self.palette()
        muted = theme.muted_text(palette)
        self._text(
            painter,
            QRectF(_MARGIN, y, 400, _LINE),
            self.tr("Drafted tokens: q (draft) and p (target)"),
            muted,
            bold=True,
        )
        y += _LINE
        n = len(step.drafted)
        column = max(_MIN_COLUMN, min(170.0, (self.width() - 2 * _MARGIN) / n))
        rejected = step.rejected_at
        tints = theme.origin_colours(palette)
        for i, token in enumerate(step.drafted):
            x = _MARGIN + i * column
            tested = rejected is None or i <= rejected
            self._token_box(painter, QRectF(x + 2, y, column - 4, _TOKEN_H), token, i, tested, tints)
            self._bars(painter, token, i, QRectF(x + 2, y + _TOKEN_H + 4, column - 4, _BARS_H), tested)
            test_y = y + _TOKEN_H + 4 + _BARS_H + _LINE
            if tested:
                self._accept_test(painter, step, token, i, QRectF(x + 6, test_y, column - 12, _TEST_H))
            else:
                self._text(
                    painter,
                    QRectF(x + 2, test_y - 4, column - 4, _LINE),
                    self.tr("not tested"),
                    muted,
                    align=Qt.AlignmentFlag.AlignHCenter,
                )
        return y + _TOKEN_H + 4 + _BARS_H + _LINE + _TEST_H + _LINE + 8

    def _token_box(
        self,
        painter: QPainter,
        rect: QRectF,
        token: DraftedRecord,
        i: int,
        tested: bool,
        tints: dict[TokenOrigin, QColor | None],
    ) -> None:
        palette = self.palette()
        if token.accepted:
            fill = tints[TokenOrigin.DRAFT]
        elif tested:
            fill = theme.blend(theme.OKABE_ITO["vermillion"], palette.color(QPalette.ColorRole.Base), 0.25)
        else:
            fill = None
        if fill is not None:
            painter.fillRect(rect, fill)
        colour = palette.color(QPalette.ColorRole.Text) if tested else theme.ghost_colour(palette)
        self._text(painter, rect, visible(token.text), colour, align=Qt.AlignmentFlag.AlignHCenter)
        if tested and not token.accepted:
            pen = QPen(theme.OKABE_ITO["vermillion"])
            pen.setWidthF(2.0)
            painter.setPen(pen)
            middle = rect.center().y()
            strike = QRectF(rect.left() + 4, middle - 1, rect.width() - 8, 2)
            painter.drawLine(strike.topLeft(), strike.topRight())
            self.bars[f"strike:{i}"] = strike

    def _bars(self, painter: QPainter, token: DraftedRecord, i: int, area: QRectF, tested: bool) -> None:
        muted = theme.muted_text(self.palette())
        bar_w = min(22.0, area.width() / 4)
        label_h = 16.0
        top = area.top()
        full = area.height() - label_h
        for key, value, hue, x in (
            ("q", token.q_draft, Q_HUE, area.center().x() - bar_w - 3),
            ("p", token.p_target, P_HUE, area.center().x() + 3),
        ):
            painter.setPen(muted)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(x, top, bar_w, full))
            height = max(1.0, full * max(0.0, min(1.0, value)))
            rect = QRectF(x, top + full - height, bar_w, height)
            colour = QColor(theme.OKABE_ITO[hue])
            if not tested:
                colour = theme.blend(colour, self.palette().color(QPalette.ColorRole.Base), 0.4)
            painter.fillRect(rect, colour)
            self.bars[f"{key}:{i}"] = rect
        label = QRectF(area.left(), top + full, area.width(), label_h)
        self._text(
            painter,
            label,
            f"q {number(token.q_draft, '.2f')}  p {number(token.p_target, '.2f')}",
            muted,
            align=Qt.AlignmentFlag.AlignHCenter,
        )

    def _accept_test(self, painter: QPainter, step: StepRecord, token: DraftedRecord, i: int, rect: QRectF) -> None:
        palette = self.palette()
        muted = theme.muted_text(palette)
        label = QRectF(rect.left() - 4, rect.top() - _LINE, rect.width() + 8, _LINE)
        if step.greedy or token.coin is None:
            verdict = "= argmax" if token.accepted else f"argmax {visible(token.target_top or '?')}"
            self._text(painter, label, verdict, muted, align=Qt.AlignmentFlag.AlignHCenter)
            hue = "bluish green" if token.accepted else "vermillion"
            painter.fillRect(rect, theme.OKABE_ITO[hue])
            self.bars[f"test:{i}"] = rect
            return
        chance = token.accept_probability
        self._text(
            painter,
            label,
            say(
                QT_TRANSLATE_NOOP("StepCard", "keep {chance:.2f} · coin {coin:.2f}").fill(
                    chance=chance, coin=token.coin
                )
            ),
            muted,
            align=Qt.AlignmentFlag.AlignHCenter,
        )
        painter.setPen(muted)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)
        filled = QRectF(rect.left(), rect.top(), max(1.0, rect.width() * chance), rect.height())
        hue = "bluish green" if token.accepted else "vermillion"
        painter.fillRect(filled, theme.OKABE_ITO[hue])
        self.bars[f"test:{i}"] = filled
        x = rect.left() + rect.width() * max(0.0, min(1.0, token.coin))
        pen = QPen(palette.color(QPalette.ColorRole.Text))
        pen.setWidthF(2.5)
        painter.setPen(pen)
        painter.drawLine(QPointF(x, rect.top() - 3), QPointF(x, rect.bottom() + 3))
        self.bars[f"coin:{i}"] = QRectF(x - 1.5, rect.top() - 3, 3, rect.height() + 6)

    def _outcome(self, painter: QPainter, step: StepRecord, y: float) -> None:
        palette = self.palette()
        muted = theme.muted_text(palette)
        width = self.width() - 2 * _MARGIN
        if step.rejected_at is not None:
            title = self.tr("Residual max(0, p − q), renormalised: the target drew the correction from it")
            entries, chosen, key, origin = step.residual_top, step.correction, "residual", TokenOrigin.CORRECTED
        else:
            title = (
                self.tr("Bonus: every draft token was kept, so the target drew one more from its own distribution")
                if step.drafted
                else self.tr("The target's own distribution, and the token it drew")
            )
            entries, chosen, key, origin = step.bonus_top, step.bonus, "bonus", TokenOrigin.BONUS
        self._text(painter, QRectF(_MARGIN, y, width, _LINE), title, muted, bold=True)
        y += _LINE
        colour = origin_colour(origin, palette)
        soft = theme.blend(colour, palette.color(QPalette.ColorRole.Base), 0.45)
        name_w, value_w = 130.0, 70.0
        bar_full = max(40.0, width - name_w - value_w - 90)
        shown_chosen = False
        if not entries:
            self._text(painter, QRectF(_MARGIN, y, width, _ROW_H), self.tr("(no entries recorded)"), muted)
            y += _ROW_H
        for i, entry in enumerate(entries):
            is_chosen = chosen is not None and entry.text == chosen.text and not shown_chosen
            shown_chosen = shown_chosen or is_chosen
            self._entry_row(
                painter=painter,
                entry=entry,
                row=QRectF(_MARGIN, y, width, _ROW_H),
                name_w=name_w,
                bar_full=bar_full,
                colour=colour if is_chosen else soft,
                chosen=is_chosen,
                key=f"{key}:{i}",
            )
            y += _ROW_H
        if chosen is not None and not shown_chosen:
            self._entry_row(
                painter=painter,
                entry=chosen,
                row=QRectF(_MARGIN, y, width, _ROW_H),
                name_w=name_w,
                bar_full=bar_full,
                colour=colour,
                chosen=True,
                key=f"{key}:drawn",
            )

    def _entry_row(
        self,
        painter: QPainter,
        entry: TopEntry,
        row: QRectF,
        name_w: float,
        bar_full: float,
        colour: QColor,
        chosen: bool,
        key: str,
    ) -> None:
        self._text(
            painter,
            QRectF(row.left(), row.top(), name_w - 8, row.height()),
            visible(entry.text),
            bold=chosen,
            align=Qt.AlignmentFlag.AlignRight,
        )
        bar = QRectF(
            row.left() + name_w, row.top() + 4, max(1.0, bar_full * max(0.0, min(1.0, entry.p))), row.height() - 8
        )
        painter.fillRect(bar, colour)
        self.bars[key] = bar
        if chosen:
            self.bars["chosen"] = bar
        words = number(entry.p, ".3f") + ("  " + self.tr("◀ drawn") if chosen else "")
        self._text(painter, QRectF(bar.right() + 6, row.top(), 120, row.height()), words, bold=chosen)
