"""Making the window fit the screen it is on: elided labels, geometry clamped to the screen, the clipping check.

The pieces used by the window and its panels:

* :class:`ElidedLabel`, a one-line label that shortens its text with "…" to
  the width it is given and shows the whole text as its tooltip, so a narrow
  panel never cuts a word in the middle nor pushes its scroll area sideways;
* :class:`ElidedComboBox`, a combo box whose closed face elides in the middle
  (model file names differ at their end) with the whole name as its tooltip;
* :class:`FlowLayout`, which lays its items out in rows like words in a
  paragraph, so a row of chips and switches wraps rather than sets a wide
  minimum (the chat's legend);
* :func:`fit_to_screen` (the arithmetic in :func:`fitted_geometry`), which
  keeps a restored (or default) window and its frame inside the available
  geometry of the screen it opens on, and :class:`ScreenFit`, which fits it
  again once the window manager has added its title bar: a window saved at
  1.5x scale or on a larger monitor reopens whole on this one;
* :func:`clipped_in`, the check the layout tests and the screenshot script
  share: every visible scroll area that shows a horizontal scroll bar (or
  cuts its content with the bar turned off), every
  label or closed combo box whose text is wider than its room while not
  eliding (labels: nor wrapping), and every button squeezed below its text.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QMargins, QObject, QPoint, QRect, QSize, QTimer
from PySide6.QtGui import QGuiApplication, QPainter, QPaintEvent, QResizeEvent, Qt, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QComboBox,
    QLabel,
    QLayout,
    QLayoutItem,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QStyleOption,
    QStyleOptionComboBox,
    QStylePainter,
    QWidget,
)

# Labels this many pixels short of their text still read whole (font hinting, rounding).
_SLACK_PX = 2
# When to look at a newly shown window's frame again (ms after the show), for frames that come without a move.
_FRAME_CHECKS_MS = (200, 800, 2000)


class ElidedLabel(QLabel):
    """A one-line label that elides its text to fit ("…" where it is cut) and shows it whole as the tooltip.

    Its minimum width is small, so a layout may make it narrow; the text set
    with :meth:`setText` is kept whole in :meth:`full_text`. A label whose text
    is a short form of something longer ("Qwen2.5-Coder 1.5B + 0.5B" for two
    file names) is given the long form with :meth:`set_details`: its tooltip
    then always says it (after the text, when the text is elided).
    """

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
    ) -> None:
        super().__init__(parent)
        self._full = ""
        self._details = ""
        self._mode = mode
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt override
        """Keep ``text`` whole; paint it elided to the width there is."""
        self._full = text
        self._own_tooltip()
        super().setText(text)  # the size hint asks for the whole text; the policy lets it shrink
        self.update()

    def set_details(self, details: str) -> None:
        """The long form of the text, for the tooltip ("": none; the tooltip then says the text only when elided)."""
        self.setToolTip("")  # the old details go with them
        self._details = details
        self._own_tooltip()

    def full_text(self) -> str:
        """The text as set, before eliding."""
        return self._full

    def shown_text(self) -> str:
        """The text as painted at the current width."""
        width = max(0, self.contentsRect().width() - 2 * self.margin())
        return self.fontMetrics().elidedText(self._full, self._mode, width)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """A few characters wide: the rest may be elided."""
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self.fontMetrics().horizontalAdvance("…") * 6), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """The tooltip says the whole text only when some of it is hidden."""
        super().resizeEvent(event)
        self._own_tooltip()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """Draw the elided text where QLabel would draw the whole."""
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_Widget, option, painter, self)  # style sheet backgrounds
        self.drawFrame(painter)
        rect: QRect = self.contentsRect().adjusted(self.margin(), self.margin(), -self.margin(), -self.margin())
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(rect, int(self.alignment()) | int(Qt.TextFlag.TextSingleLine), self.shown_text())

    def _own_tooltip(self) -> None:
        elided = self.shown_text() != self._full
        if self._details:
            self.setToolTip(f"{self._full}\n{self._details}" if elided else self._details)
        elif elided:
            self.setToolTip(self._full)
        elif self.toolTip() == self._full:
            self.setToolTip("")


class ElidedComboBox(QComboBox):
    """A combo box whose closed face elides the current text in the middle ("Qwen2.5…Q4_K_M.gguf").

    Qt clips it at the arrow otherwise, cutting the part that tells files
    apart (the quantisation at the end). The open list elides the same way
    where an item is wider than it, and the box's tooltip says the current
    item's text and its own tooltip.
    """

    def __init__(self, parent: QWidget | None = None, mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle) -> None:
        super().__init__(parent)
        self._mode = mode
        self.view().setTextElideMode(mode)  # the open list too, where the window is narrower than a name
        self.currentIndexChanged.connect(self._own_tooltip)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """Draw the frame and arrow as the style does, then the current text elided to the edit field."""
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        option.currentText = self.fontMetrics().elidedText(option.currentText, self._mode, max(0, field.width() - 4))
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
        self._own_tooltip()  # item tooltips may be set after the item was chosen

    def _own_tooltip(self) -> None:
        tip = self.currentData(Qt.ItemDataRole.ToolTipRole)
        if self.toolTip() != (text := "\n".join(t for t in (self.currentText(), str(tip) if tip else "") if t)):
            self.setToolTip(text)


class FlowLayout(QLayout):
    """Items left to right, wrapping onto a new row when the next one would not fit (height follows width)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 8) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt override
        """Qt's hook for addWidget."""
        self._items.append(item)

    def count(self) -> int:
        """How many items."""
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt override
        """The item at ``index``, if any."""
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt override
        """Remove and return the item at ``index``."""
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt override
        """It never asks for more than its rows need."""
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        """Narrower means more rows."""
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        """The height its rows take at ``width``."""
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt override
        """Place the items in rows inside ``rect``."""
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Everything on one row."""
        margins = self.contentsMargins()
        width = sum(i.sizeHint().width() for i in self._items) + self._spacing * max(0, len(self._items) - 1)
        height = max((i.sizeHint().height() for i in self._items), default=0)
        return QSize(width + margins.left() + margins.right(), height + margins.top() + margins.bottom())

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt override
        """As wide as the widest item: every other item can go to a row of its own."""
        margins = self.contentsMargins()
        width = max((i.minimumSize().width() for i in self._items), default=0)
        height = max((i.minimumSize().height() for i in self._items), default=0)
        return QSize(width + margins.left() + margins.right(), height + margins.top() + margins.bottom())

    def _arrange(self, rect: QRect, move: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, row_height = area.x(), area.y(), 0
        for item in self._items:
            if item.isEmpty():
                continue
            hint = item.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:
                x, y, row_height = area.x(), y + row_height + self._spacing // 2, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), QSize(min(hint.width(), area.width()), hint.height())))
            x += hint.width() + self._spacing
            row_height = max(row_height, hint.height())
        return y + row_height - rect.y() + margins.bottom()


def fitted_geometry(available: QRect, margins: QMargins, size: QSize, frame_top_left: QPoint) -> QRect:
    """Where a window goes so that its frame lies inside ``available``: its client rectangle.

    ``margins`` is what the window manager's frame adds around the client area
    (title bar on top, borders); ``size`` the client size wanted and
    ``frame_top_left`` where the frame is now. The size shrinks only as much as
    the frame needs, and the frame moves onto the screen.
    """
    extra_w = margins.left() + margins.right()
    extra_h = margins.top() + margins.bottom()
    width = max(1, min(size.width(), available.width() - extra_w))
    height = max(1, min(size.height(), available.height() - extra_h))
    frame_w, frame_h = width + extra_w, height + extra_h
    x = max(available.left(), min(frame_top_left.x(), available.right() + 1 - frame_w))
    y = max(available.top(), min(frame_top_left.y(), available.bottom() + 1 - frame_h))
    return QRect(x + margins.left(), y + margins.top(), width, height)


def frame_margins(window: QWidget) -> QMargins:
    """What the frame around ``window`` adds on each side (zero before a window manager decorates it)."""
    frame, inner = window.frameGeometry(), window.geometry()
    return QMargins(
        max(0, inner.left() - frame.left()),
        max(0, inner.top() - frame.top()),
        max(0, frame.right() - inner.right()),
        max(0, frame.bottom() - inner.bottom()),
    )


def fit_to_screen(window: QWidget, default: QSize) -> None:
    """Keep ``window`` and its frame inside the available geometry of its screen (``default`` when it has no size).

    Called after ``restoreGeometry``: a geometry saved on a larger screen or at
    another scale factor is shrunk to this screen and moved onto it.
    """
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return
    wanted = window.size() if window.width() > 0 and window.height() > 0 else default
    margins = frame_margins(window)
    placed = fitted_geometry(screen.availableGeometry(), margins, wanted, window.frameGeometry().topLeft())
    window.resize(placed.size())
    window.move(placed.topLeft() - QPoint(margins.left(), margins.top()))  # a window's position is its frame's


class ScreenFit(QObject):
    """Keeps a top-level window inside its screen once the window manager has framed it.

    A window manager adds its title bar and borders after the window is
    shown (with a later move, or with no event at all for a window placed at
    a position of its own), so a window fitted before that reaches below the
    screen by the title bar's height. This filter fits
    the window again whenever its frame's margins change (the window manager
    framed it, or framed it anew); moving or resizing it by hand leaves the
    margins as they were, so a person's choice is left alone.
    """

    def __init__(self, window: QWidget, default: QSize) -> None:
        super().__init__(window)
        self._window = window
        self._default = default
        self._margins: QMargins | None = None
        window.installEventFilter(self)

    def fit(self) -> None:
        """Fit the window to its screen now, with the frame it has now."""
        fit_to_screen(self._window, self._default)
        self._margins = frame_margins(self._window)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Look again at the frame on the events a window manager's framing brings, and shortly after a show."""
        if watched is self._window:
            kind = event.type()
            if kind in (QEvent.Type.Move, QEvent.Type.Resize, QEvent.Type.ActivationChange):
                self._check()
            elif kind == QEvent.Type.Show:
                self._check()
                # A window placed at a position of its own (a restored geometry) is framed around it without
                # a move or resize to say so: look again once the manager has had time to frame it.
                for delay_ms in _FRAME_CHECKS_MS:
                    QTimer.singleShot(delay_ms, self, self._check)
        return False

    def _check(self) -> None:
        window = self._window
        maximised = window.windowState() & (Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen)
        if window.isVisible() and not maximised and frame_margins(window) != self._margins:
            self.fit()


def _rich(label: QLabel) -> bool:
    fmt = label.textFormat()
    return fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText and Qt.mightBeRichText(label.text()))


def _plain(label: QLabel) -> str:
    text = label.text()
    if _rich(label):
        document = QTextDocument()
        document.setHtml(text)
        return document.toPlainText()
    return text


def _text_width(label: QLabel) -> int:
    """The width the label's text needs on one line, as drawn (rich text measured as a document)."""
    text = label.text()
    if _rich(label):
        document = QTextDocument()
        document.setDefaultFont(label.font())
        document.setDocumentMargin(0)
        document.setHtml(text)
        return int(document.idealWidth() + 0.999)
    metrics = label.fontMetrics()
    return max((metrics.horizontalAdvance(line) for line in text.split("\n")), default=0)


def _visible(widget: QWidget, root: QWidget) -> bool:
    return widget.isVisibleTo(root) and widget.isVisible()


def clipped_in(root: QWidget) -> list[str]:
    """What in ``root`` is cut or scrolled sideways: scroll areas, labels and buttons.

    A scroll area counts when it shows a horizontal bar or, with that bar
    turned off, holds content wider than itself. Only what is shown counts
    (the current tab of a tab widget). A label that wraps or is an
    :class:`ElidedLabel` fits by construction.
    """
    problems: list[str] = []
    for area in root.findChildren(QAbstractScrollArea):
        if not _visible(area, root):
            continue
        inner = area.widget() if isinstance(area, QScrollArea) else None
        if inner is not None and area.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff:
            need = inner.minimumSizeHint().width()
            if need > area.viewport().width() + _SLACK_PX:  # no bar to show it: its right side is cut off
                name = area.objectName() or area.accessibleName() or type(inner).__name__
                problems.append(f"content of {name} cut ({need} px in a viewport of {area.viewport().width()} px)")
            continue
        bar = area.horizontalScrollBar()
        if bar.isVisible() and bar.maximum() > 0:
            name = area.objectName() or area.accessibleName() or type(area).__name__
            inner = area.widget() if isinstance(area, QScrollArea) else None
            what = f"; its content needs {inner.minimumSizeHint().width()} px" if inner is not None else ""
            problems.append(
                f"horizontal scroll bar in {name} ({bar.maximum()} px, viewport {area.viewport().width()} px{what})"
            )
    for label in root.findChildren(QLabel):
        if not _visible(label, root) or isinstance(label, ElidedLabel) or label.wordWrap() or not label.text():
            continue
        if label.pixmap() is not None and not label.pixmap().isNull():
            continue
        room = label.contentsRect().width() - 2 * label.margin() - max(0, label.indent())
        need = _text_width(label)
        if need > room + _SLACK_PX:
            problems.append(f"label {_plain(label)!r} cut ({need} px of text in {room} px)")
    for combo in root.findChildren(QComboBox):
        if not _visible(combo, root) or isinstance(combo, ElidedComboBox) or combo.isEditable():
            continue
        option = QStyleOptionComboBox()
        combo.initStyleOption(option)
        field = combo.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, combo
        )
        need = combo.fontMetrics().horizontalAdvance(combo.currentText())
        if need > field.width() + _SLACK_PX:
            problems.append(f"combo box {combo.currentText()!r} cut ({need} px of text in {field.width()} px)")
    for button in root.findChildren(QAbstractButton):
        if not _visible(button, root) or not button.text():
            continue
        hint = button.minimumSizeHint().width()
        if button.width() + _SLACK_PX < min(hint, button.sizeHint().width()):
            problems.append(f"button {button.text()!r} squeezed ({button.width()} px of {hint})")
    return problems
