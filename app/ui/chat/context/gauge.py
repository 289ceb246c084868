"""The context gauge: tokens used by the open chat against the context size, and what would not fit.

It follows the prompt box as you type (the engine thread counts the rendered
prompt, debounced) and the reply as it streams (prompt plus tokens so far).
When the conversation no longer fits, the oldest turns are dropped before a
reply (:func:`app.core.conversation.chat.fit_conversation`); the gauge names them before
you send, so nothing is left out silently. Attached files are counted too:
the ones that fit go in whole, and a line names each one that does not (its
passages will be retrieved per question instead), or that was asked for
whole and will not fit.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from app.ui.i18n.words import number
from app.ui.layout_fit import ElidedLabel


class ContextGauge(QWidget):
    """A bar with "used / total tokens" and a notice naming the turns that would be dropped."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(2, 0, 2, 0)
        outer.setSpacing(2)
        row = QHBoxLayout()
        row.setSpacing(8)
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(8)
        self.bar.setAccessibleName(self.tr("Context used"))
        self.label = ElidedLabel(
            self.tr("context: no model loaded")
        )  # elided, whole in its tooltip, when the chat is narrow
        self.label.setAccessibleName(self.tr("Context tokens"))
        row.addWidget(QLabel(self.tr("Context")))
        row.addWidget(self.bar, 1)
        row.addWidget(self.label)
        outer.addLayout(row)
        self.notice = QLabel("")
        self.notice.setWordWrap(True)
        self.notice.setAccessibleName(self.tr("Context notice"))
        self.notice.hide()
        outer.addWidget(self.notice)
        self.attachment_notice = QLabel("")
        self.attachment_notice.setWordWrap(True)
        self.attachment_notice.setAccessibleName(self.tr("Attachments notice"))
        self.attachment_notice.hide()
        outer.addWidget(self.attachment_notice)
        self.used = 0
        self.total = 0
        self.dropped = 0

    def set_counts(
        self, used: int, total: int, dropped: int = 0, first_dropped: str = "", streaming: bool = False
    ) -> None:
        """Show ``used`` of ``total`` tokens, and the ``dropped`` oldest turns (the first begins ``first_dropped``)."""
        self.used, self.total, self.dropped = used, total, dropped
        self.bar.setRange(0, max(1, total))
        self.bar.setValue(min(used, total))
        share = f" ({number(used / total, '.0%')})" if total else ""
        self.label.setText(
            self.tr("{used} / {total} tokens").format(used=number(used, ","), total=number(total, ","))
            + share
            + (" · " + self.tr("replying") if streaming else "")
        )
        if dropped:
            start = self.tr(", from “{text}”").format(text=first_dropped) if first_dropped else ""
            if streaming:
                notice = self.tr(
                    "⚠ the %n oldest message(s){start} were left out to fit the {total}-token context", "", dropped
                )
            else:
                notice = self.tr(
                    "⚠ the %n oldest message(s){start} would be left out to fit the {total}-token context", "", dropped
                )
            self.notice.setText(notice.format(start=start, total=number(total, ",")))
            self.notice.show()
        else:
            self.notice.hide()

    def set_attachment_notes(self, lines: list[str]) -> None:
        """Say which attachments will not go in whole (one line each); an empty list hides the notice."""
        self.attachment_notice.setText("\n".join(lines))
        self.attachment_notice.setVisible(bool(lines))

    def clear(self, text: str = "") -> None:
        """No numbers to show (``text`` in their place; by default: no model loaded)."""
        self.used = self.total = self.dropped = 0
        self.bar.setValue(0)
        self.label.setText(text or self.tr("context: no model loaded"))
        self.notice.hide()
        self.attachment_notice.hide()
