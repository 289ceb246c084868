"""A desktop chat app's habits, driven as a person would: keys, menus, the wheel, Preferences, the shortcuts list.

The reply-producing checks use the real SmolLM2 pair: Enter sends, the reply
is copied, regenerated and its question edited by shortcut, and a question
whose reply was deleted offers Generate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QAction, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QScrollArea,
    QScrollBar,
    QSlider,
    QTableWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.engine.llama.session import DrafterKind
from app.ui import theme
from app.ui.main_window import MainWindow
from app.ui.settings.store import AppSettings
from tests.ui.helpers import Recorder, click_action, load, pair_choice, wait_reply

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(make_window: Callable[..., MainWindow]) -> Iterator[MainWindow]:
    """A window made active, so its shortcuts reach it; the platform look back afterwards."""
    made = make_window()
    made.activateWindow()
    QTest.qWaitForWindowActive(made)
    yield made
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply_theme(app, "system")


def _submissions(window: MainWindow) -> list[int]:
    sent: list[int] = []
    window.chat.prompt.submitted.connect(lambda: sent.append(1))
    return sent


def test_enter_sends_and_shift_enter_adds_a_line(window: MainWindow) -> None:
    prompt = window.chat.prompt
    sent = _submissions(window)
    prompt.setFocus()
    QTest.keyClicks(prompt, "first")
    QTest.keyClick(prompt, Qt.Key.Key_Return, SHIFT)
    QTest.keyClicks(prompt, "second")
    assert prompt.toPlainText() == "first\nsecond" and not sent
    QTest.keyClick(prompt, Qt.Key.Key_Return)
    assert len(sent) == 1
    QTest.keyClick(prompt, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert len(sent) == 2
    QTest.keyClick(prompt, Qt.Key.Key_Return, CTRL)  # Ctrl+Enter keeps sending
    assert len(sent) == 3 and prompt.toPlainText() == "first\nsecond"


def test_send_with_ctrl_enter_preference_restores_the_old_keys(window: MainWindow) -> None:
    dialog = window.menus.show_preferences()
    assert window.menus.preferences_action.menuRole() == QAction.MenuRole.PreferencesRole
    assert window.menus.preferences_action.shortcut().toString() == "Ctrl+,"
    dialog.ctrl_enter.setChecked(True)
    dialog.accept()
    prompt = window.chat.prompt
    sent = _submissions(window)
    prompt.setFocus()
    QTest.keyClicks(prompt, "a")
    QTest.keyClick(prompt, Qt.Key.Key_Return)
    QTest.keyClicks(prompt, "b")
    assert prompt.toPlainText() == "a\nb" and not sent
    QTest.keyClick(prompt, Qt.Key.Key_Return, CTRL)
    assert len(sent) == 1
    assert AppSettings().flag("send_with_ctrl_enter", False)
    assert "Ctrl+Enter to send" in prompt.placeholderText()


def test_preferences_switch_the_theme_live_and_set_the_machine_settings(window: MainWindow, qtbot: QtBot) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    dialog = window.menus.show_preferences()
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    dialog.n_threads.setValue(3)
    dialog.n_ctx.setValue(2048)
    dialog.accept()
    assert theme.is_dark(app.palette()), "the dark theme applies without a restart"
    qtbot.waitUntil(lambda: theme.is_dark(window.chat.view.palette()), timeout=5_000)
    assert window.settings_panel.n_threads.value() == 3 and window.settings_panel.n_ctx.value() == 2048
    stored = AppSettings()
    assert stored.generation().n_threads == 3 and stored.text("view/theme") == "dark"
    window.menus.theme_actions["light"].trigger()
    assert not theme.is_dark(app.palette()) and AppSettings().text("view/theme") == "light"


def _wheel(target: QWidget) -> None:
    """One notch of the wheel over ``target``'s centre, delivered as Qt delivers it (through the application)."""
    centre = QPointF(target.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(target.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(target, event)


def test_the_wheel_never_changes_an_unfocused_field(window: MainWindow, qtbot: QtBot) -> None:
    window.side.setCurrentWidget(window.side.widget(2))  # Settings
    spin = window.settings_panel.max_tokens
    combo = window.settings_panel.drafter
    before, drafter = spin.value(), combo.currentIndex()
    window.chat.prompt.setFocus()
    _wheel(spin)
    _wheel(combo)
    assert spin.value() == before and combo.currentIndex() == drafter
    assert not spin.hasFocus(), "the wheel must not give the field focus either"
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=5_000)
    _wheel(spin)
    assert spin.value() != before, "a focused field still takes the wheel (the guard is what stopped it above)"


def _fields(page: QWidget) -> list[QWidget]:
    """Every combo box, spin box and slider shown on ``page`` (a scroll area's own bars left out)."""
    found: list[QWidget] = [*page.findChildren(QComboBox), *page.findChildren(QAbstractSpinBox)]
    found += [s for s in page.findChildren(QSlider) if not isinstance(s, QScrollBar)]
    return [f for f in found if f.isVisible()]


def _value(field: QWidget) -> object:
    if isinstance(field, QComboBox):
        return field.currentIndex()
    if isinstance(field, QAbstractSpinBox):
        return field.text()
    assert isinstance(field, QSlider)
    return field.value()


def _wheel_through_window(field: QWidget, notch: int) -> None:
    """One notch of the wheel at ``field``'s centre, given to its window as the platform gives it."""
    top = field.window()
    handle = top.windowHandle()
    assert handle is not None
    at = field.mapTo(top, field.rect().center())
    under = top.childAt(at)
    assert under is field or field.isAncestorOf(under), f"{field!r} is covered by {under!r} at its centre"
    event = QWheelEvent(
        QPointF(at),
        QPointF(top.mapToGlobal(at)),
        QPoint(0, 0),
        QPoint(0, notch),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(handle, event)


def test_the_wheel_over_every_page_changes_no_field(window: MainWindow, qtbot: QtBot) -> None:
    pages: list[tuple[str, Callable[[], QWidget]]] = [
        ("welcome", lambda: (window.stack.setCurrentWidget(window.welcome), window.welcome)[1]),
        ("chat", lambda: (window.stack.setCurrentWidget(window.chat), window.chat)[1]),
    ]
    for index in range(window.side.count()):
        pages.append((window.side.tabText(index), lambda i=index: (window.side.setCurrentIndex(i), window.side)[1]))
    pages.append(("the step view", lambda: (window.steps.view.show(), window.steps.view)[1]))  # its speed box
    checked = 0
    for name, show in pages:
        page = show()
        qtbot.waitUntil(page.isVisible)
        fields = _fields(page)
        if name == "welcome":
            assert window.welcome.catalog in fields  # the curated-pair combo the issue saw change
        for field in fields:
            for area in _areas_around(field):
                area.ensureWidgetVisible(field)
            field.clearFocus()
            before = _value(field)
            _wheel_through_window(field, 120)
            _wheel_through_window(field, -120)
            _wheel_through_window(field, -120)
            what = f"{type(field).__name__} {field.accessibleName()!r} on {name}"
            assert _value(field) == before, f"the wheel changed {what}"
            assert not field.hasFocus(), f"the wheel gave {what} focus"
            checked += 1
    assert checked >= 10  # the walk found the panels' fields, not an empty tree
    window.steps.view.close()


def _areas_around(widget: QWidget) -> list[QScrollArea]:
    areas: list[QScrollArea] = []
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            areas.append(parent)
        parent = parent.parentWidget()
    return areas


def test_edit_menu_acts_on_the_focused_text_field(window: MainWindow, qtbot: QtBot) -> None:
    prompt = window.chat.prompt
    prompt.setFocus()
    QTest.keyClicks(prompt, "hello there")
    actions = window.menus.edit_actions
    actions["selectAll"].trigger()
    actions["cut"].trigger()
    assert prompt.toPlainText() == "" and QApplication.clipboard().text() == "hello there"
    actions["paste"].trigger()
    assert prompt.toPlainText() == "hello there"
    actions["undo"].trigger()
    assert prompt.toPlainText() == ""
    actions["redo"].trigger()
    assert prompt.toPlainText() == "hello there"
    edit_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    texts = [a.text() for a in edit_menu.actions() if a.text()]
    assert texts[:6] == ["Undo", "Redo", "Cut", "Copy", "Paste", "Select All"]
    assert window.find_action in edit_menu.actions()
    QTest.keyClick(window, Qt.Key.Key_K, CTRL)
    qtbot.waitUntil(lambda: window.conversations.search.box.hasFocus(), timeout=5_000)


def _open_dialog(window: MainWindow) -> QDialog:
    dialog = window.menus.shortcuts_dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


def test_zoom_keys_scale_the_whole_conversation_and_are_remembered(
    window: MainWindow, make_window: Callable[..., MainWindow]
) -> None:
    view = window.chat.view
    base = view.font().pointSizeF()
    code = view._painter.mono.pointSizeF()
    QTest.keyClick(window, Qt.Key.Key_Equal, CTRL)  # Ctrl++ on a keyboard where + needs Shift
    QTest.keyClick(window, Qt.Key.Key_Plus, CTRL)
    assert view.zoom == 2 and view.font().pointSizeF() == pytest.approx(base * 1.2)
    assert view.document().defaultFont().pointSizeF() == pytest.approx(base * 1.2)  # the text itself
    assert view._painter.mono.pointSizeF() == pytest.approx(code * 1.2)  # code blocks follow
    assert "120 %" in window.statusBar().currentMessage()
    for _ in range(3):
        QTest.keyClick(window, Qt.Key.Key_Minus, CTRL)
    assert view.zoom == -1 and view.font().pointSizeF() == pytest.approx(base * 0.9)
    for _ in range(10):
        QTest.keyClick(window, Qt.Key.Key_Minus, CTRL)
    assert view.zoom == -4  # 60 %: still readable
    QTest.keyClick(window, Qt.Key.Key_0, CTRL)
    assert view.zoom == 0 and view.font().pointSizeF() == pytest.approx(base)
    QTest.keyClick(window, Qt.Key.Key_Plus, CTRL)
    window.app_settings.sync()
    again = make_window()  # the next start keeps the size
    assert again.chat.view.zoom == 1 and again.chat.view.font().pointSizeF() == pytest.approx(base * 1.1)


def test_shortcuts_list_opens_with_f1_and_ctrl_slash_and_lists_every_action(window: MainWindow) -> None:
    QTest.keyClick(window, Qt.Key.Key_F1)
    dialog = _open_dialog(window)
    table = dialog.findChild(QTableWidget, "shortcuts")
    assert table is not None
    listed = {table.item(row, 0).text() for row in range(table.rowCount())}
    keys = " ".join(table.item(row, 1).text() for row in range(table.rowCount()))
    for action in window.menus.actions_with_shortcuts():
        assert action.text().replace("&", "").rstrip("…") in listed
    for key in ("Ctrl+R", "Ctrl+Shift+C", "Ctrl+Shift+E", "Ctrl+W", "Ctrl+,", "Ctrl+Alt+B", "Ctrl+/"):
        assert key in keys, key
    dialog.close()
    QTest.keyClick(window, Qt.Key.Key_Slash, CTRL)
    _open_dialog(window).close()


def test_chat_shortcuts_and_generate_on_an_unanswered_question(
    window: MainWindow, small_pair: tuple[Path, Path], qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, pair_choice(small_pair, DrafterKind.MODEL))
    recorder = Recorder(window)
    announced: list[QAccessibleAnnouncementEvent] = []
    monkeypatch.setattr(QAccessible, "updateAccessibility", staticmethod(announced.append))
    prompt = window.chat.prompt
    prompt.setFocus()
    QTest.keyClicks(prompt, "Name a colour.")
    QTest.keyClick(prompt, Qt.Key.Key_Return)  # Enter sends
    assert prompt.toPlainText() == ""
    wait_reply(qtbot, window, recorder, 0)
    path = window.controller.path
    assert [m.role for m in path] == ["user", "assistant"]

    QTest.keyClick(window, Qt.Key.Key_C, CTRL | SHIFT)
    assert QApplication.clipboard().text() == path[1].content

    # A screen reader is told the reply ended (here at the 16-token limit), without the focus moving.
    assert announced and announced[-1].message().startswith(("the reply is finished", "the reply ended after 16"))
    assert announced[-1].politeness() == QAccessible.AnnouncementPoliteness.Polite

    QTest.keyClick(window, Qt.Key.Key_R, CTRL)
    wait_reply(qtbot, window, recorder, 1)
    assert len(window.controller.store.siblings(window.controller.path[1].id)) == 2

    prompt.setFocus()
    QTest.keyClick(prompt, Qt.Key.Key_Up)  # Up in the empty box edits the last message
    assert window.controller.tree.editing == path[0].id and prompt.toPlainText() == "Name a colour."
    window.controller.tree.cancel_edit()
    QTest.keyClick(window, Qt.Key.Key_E, CTRL | SHIFT)
    assert window.controller.tree.editing == path[0].id
    window.controller.tree.cancel_edit()

    while len(window.controller.path) > 1:  # both replies (the regenerated one and its sibling)
        assert window.controller.tree.delete_message(window.controller.path[1].id)
    assert [m.role for m in window.controller.path] == ["user"]
    click_action(window, "generate", 0)
    wait_reply(qtbot, window, recorder, 2)
    assert [m.role for m in window.controller.path] == ["user", "assistant"]

    conversation = window.controller.conversation_id
    QTest.keyClick(window, Qt.Key.Key_W, CTRL)
    assert window.controller.conversation_id is None and conversation is not None
