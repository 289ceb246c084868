"""The window's menus, toolbar and keyboard shortcuts: what a desktop chat app's user expects to find.

File (new, export, close chat), Edit (undo, redo, cut, copy, paste, select
all on the focused text field; find; Preferences, which Qt moves to the
application menu on macOS), Chat (regenerate, copy the reply, edit the last
message), View (origins, rejected drafts, the side panel shown or hidden, the
theme, switched live), Tools and Help (the list of shortcuts, F1 or Ctrl+/,
built from these actions so it cannot drift from them).

:class:`WindowMenus` builds them on a :class:`~app.ui.main_window.MainWindow`
and keeps the actions the window and the tests reach (``new_action``,
``find_action``, ...). The chat's own keys (Enter, Shift+Enter, Esc, Up in an
empty prompt box) live with the prompt box in :mod:`app.ui.chat.panel`.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.engine.llama.model import gpu_offload_supported
from app.ui import theme
from app.ui.chat.view.chat_view import ZOOM_STEP
from app.ui.i18n import QT_TRANSLATE_NOOP
from app.ui.i18n.install import SETTING as LANGUAGE_SETTING
from app.ui.i18n.install import Language, language_of
from app.ui.settings.preferences import Preferences, PreferencesDialog
from app.ui.start import branding

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

ZOOM_SETTING = "view/zoom"

# What the Edit menu's text actions call on the focused widget (QLineEdit, QPlainTextEdit, QTextEdit all have them).
_EDIT_ACTIONS = (
    (QT_TRANSLATE_NOOP("WindowMenus", "Undo"), QKeySequence.StandardKey.Undo, "undo"),
    (QT_TRANSLATE_NOOP("WindowMenus", "Redo"), QKeySequence.StandardKey.Redo, "redo"),
    (None, None, ""),
    (QT_TRANSLATE_NOOP("WindowMenus", "Cut"), QKeySequence.StandardKey.Cut, "cut"),
    (QT_TRANSLATE_NOOP("WindowMenus", "Copy"), QKeySequence.StandardKey.Copy, "copy"),
    (QT_TRANSLATE_NOOP("WindowMenus", "Paste"), QKeySequence.StandardKey.Paste, "paste"),
    (QT_TRANSLATE_NOOP("WindowMenus", "Select All"), QKeySequence.StandardKey.SelectAll, "selectAll"),
)
# Keys the prompt box handles itself (not actions), listed with the actions in the shortcuts list.
PROMPT_KEYS = (
    (
        QT_TRANSLATE_NOOP("WindowMenus", "Send the message"),
        QT_TRANSLATE_NOOP("WindowMenus", "Enter (Ctrl+Enter in both modes)"),
    ),
    (
        QT_TRANSLATE_NOOP("WindowMenus", "New line in the message"),
        QT_TRANSLATE_NOOP("WindowMenus", "Shift+Enter (Enter with “Send with Ctrl+Enter”)"),
    ),
    (
        QT_TRANSLATE_NOOP("WindowMenus", "Edit the last message"),
        QT_TRANSLATE_NOOP("WindowMenus", "Up, in an empty prompt box"),
    ),
    (QT_TRANSLATE_NOOP("WindowMenus", "Stop the reply"), QT_TRANSLATE_NOOP("WindowMenus", "Esc")),
)


def _on_focused(method: str) -> None:
    """Call ``method`` (undo, copy, ...) on the focused widget when it has it."""
    widget = QApplication.focusWidget()
    call = getattr(widget, method, None) if widget is not None else None
    if callable(call):
        call()


class WindowMenus:
    """Builds the window's menus and toolbar, and carries out the actions that belong to none of its parts."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.shortcuts_dialog: QDialog | None = None
        self.preferences_dialog: PreferencesDialog | None = None
        w = window
        menu = w.menuBar()

        file_menu = menu.addMenu(QCoreApplication.translate("WindowMenus", "&File"))
        self.new_action = file_menu.addAction(
            QCoreApplication.translate("WindowMenus", "New chat"), w.controller.new_conversation
        )
        self.new_action.setShortcut(QKeySequence.StandardKey.New)
        file_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Export chat as Markdown…"),
            lambda: w.sidebar.export_current("markdown"),
        )
        file_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Export chat as JSON…"), lambda: w.sidebar.export_current("json")
        )
        file_menu.addSeparator()
        self.close_chat_action = file_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Close chat"), self.close_chat
        )
        self.close_chat_action.setShortcut(QKeySequence("Ctrl+W"))
        self.close_chat_action.setToolTip(
            QCoreApplication.translate("WindowMenus", "leave this chat for a new one (it stays in the list)")
        )
        self.quit_action = quit_action = file_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Quit"), w.quit_app
        )
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)

        edit_menu = menu.addMenu(QCoreApplication.translate("WindowMenus", "&Edit"))
        self.edit_actions: dict[str, QAction] = {}
        for text, key, method in _EDIT_ACTIONS:
            if text is None or key is None:
                edit_menu.addSeparator()
                continue
            action = edit_menu.addAction(
                QCoreApplication.translate("WindowMenus", text), functools.partial(_on_focused, method)
            )
            action.setShortcut(QKeySequence(key))
            self.edit_actions[method] = action
        edit_menu.addSeparator()
        self.find_action = edit_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Find in chats…"), w.conversations.search.focus
        )
        self.find_action.setShortcuts([QKeySequence("Ctrl+K"), QKeySequence(QKeySequence.StandardKey.Find)])
        edit_menu.addSeparator()
        self.preferences_action = edit_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Preferences…"), self.show_preferences
        )
        self.preferences_action.setShortcut(QKeySequence("Ctrl+,"))
        self.preferences_action.setMenuRole(QAction.MenuRole.PreferencesRole)  # macOS: Tandem ▸ Settings…

        chat_menu = menu.addMenu(QCoreApplication.translate("WindowMenus", "&Chat"))
        self.regenerate_action = chat_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Regenerate the last reply"), self.regenerate_last
        )
        self.regenerate_action.setShortcut(QKeySequence("Ctrl+R"))
        self.copy_reply_action = chat_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Copy the last reply"), self.copy_last_reply
        )
        self.copy_reply_action.setShortcut(QKeySequence("Ctrl+Shift+C"))
        self.edit_last_action = chat_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Edit the last message"), self.edit_last_message
        )
        self.edit_last_action.setShortcut(QKeySequence("Ctrl+Shift+E"))
        w.chat.prompt.edit_last_requested.connect(self.edit_last_message)

        view_menu = menu.addMenu(QCoreApplication.translate("WindowMenus", "&View"))
        self.coloured_action = QAction(
            QCoreApplication.translate("WindowMenus", "Colour tokens by origin"), w, checkable=True
        )
        self.coloured_action.toggled.connect(w.chat.legend.coloured.setChecked)
        w.chat.legend.coloured.toggled.connect(self.coloured_action.setChecked)
        self.ghost_action = QAction(
            QCoreApplication.translate("WindowMenus", "Show rejected drafts"), w, checkable=True
        )
        self.ghost_action.toggled.connect(w.chat.legend.ghosts.setChecked)
        w.chat.legend.ghosts.toggled.connect(self.ghost_action.setChecked)
        view_menu.addAction(self.coloured_action)
        view_menu.addAction(self.ghost_action)
        w.steps.add_to(view_menu)  # the step view and slow motion
        self.side_action = QAction(QCoreApplication.translate("WindowMenus", "Side panel"), w, checkable=True)
        self.side_action.setShortcut(QKeySequence("Ctrl+Alt+B"))
        self.side_action.setToolTip(
            QCoreApplication.translate("WindowMenus", "show or hide the Model / Stats / Settings / Discover panel")
        )
        self.side_action.setChecked(w.app_settings.flag("side_panel", True))
        w.side.setVisible(self.side_action.isChecked())
        self.side_action.toggled.connect(self.show_side_panel)
        view_menu.addAction(self.side_action)
        theme_menu = view_menu.addMenu(QCoreApplication.translate("WindowMenus", "Theme"))
        self.theme_actions = self._theme_menu(theme_menu)
        view_menu.addSeparator()
        self.zoom_in_action = view_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Larger text"), lambda: self.zoom_chat(+1)
        )
        # Ctrl+= too: on most layouts "+" needs Shift, so Ctrl++ arrives as Ctrl+=.
        self.zoom_in_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.ZoomIn), QKeySequence("Ctrl+=")])
        self.zoom_out_action = view_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Smaller text"), lambda: self.zoom_chat(-1)
        )
        self.zoom_out_action.setShortcut(QKeySequence(QKeySequence.StandardKey.ZoomOut))
        self.zoom_reset_action = view_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Normal text size"), lambda: self.zoom_chat(None)
        )
        self.zoom_reset_action.setShortcut(QKeySequence("Ctrl+0"))
        saved = self.window.app_settings.text(ZOOM_SETTING, "0")
        if saved.lstrip("-").isdigit() and int(saved) != 0:
            w.chat.view.set_zoom(int(saved))

        tools = menu.addMenu(QCoreApplication.translate("WindowMenus", "&Tools"))
        tools.addActions(list(w.tools.actions))
        tools.addSeparator()
        tools.addAction(
            QCoreApplication.translate("WindowMenus", "Get models…"), lambda: w.stack.setCurrentWidget(w.welcome)
        )

        help_menu = menu.addMenu(QCoreApplication.translate("WindowMenus", "&Help"))
        self.shortcuts_action = help_menu.addAction(
            QCoreApplication.translate("WindowMenus", "Keyboard shortcuts"), self.show_shortcuts
        )
        help_keys = [QKeySequence(QKeySequence.StandardKey.HelpContents), QKeySequence("Ctrl+/")]
        self.shortcuts_action.setShortcuts(help_keys)
        help_menu.addAction(QCoreApplication.translate("WindowMenus", "About Tandem"), lambda: branding.show_about(w))

        toolbar = w.addToolBar(QCoreApplication.translate("WindowMenus", "Main"))
        toolbar.setObjectName("main-toolbar")
        toolbar.setMovable(False)
        toolbar.addAction(self.new_action)
        self.stop_action = toolbar.addAction(QCoreApplication.translate("WindowMenus", "Stop"), w.controller.stop)
        self.stop_action.setToolTip(QCoreApplication.translate("WindowMenus", "stop the reply (Esc)"))
        toolbar.addSeparator()
        for action, short in zip(
            w.tools.actions,
            (
                QCoreApplication.translate("WindowMenus", "A/B"),
                QCoreApplication.translate("WindowMenus", "Sweep"),
                QCoreApplication.translate("WindowMenus", "Pre-flight"),
            ),
            strict=True,
        ):
            toolbar.addAction(action)
            action.setIconText(short)

    # -- theme and side panel --------------------------------------------------------------

    def _theme_menu(self, menu: QMenu) -> dict[str, QAction]:
        group = QActionGroup(menu)
        actions: dict[str, QAction] = {}
        current = self.window.app_settings.text("view/theme", "system")
        for name in theme.THEMES:
            action = menu.addAction(theme.label(name), functools.partial(self.set_theme, name))
            action.setCheckable(True)
            action.setChecked(current == name)
            group.addAction(action)
            actions[name] = action
        return actions

    def set_theme(self, name: str) -> None:
        """Switch the theme now and keep it for the next start."""
        self.window.app_settings.set_text("view/theme", name)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            theme.apply_theme(app, name)
        if name in self.theme_actions:
            self.theme_actions[name].setChecked(True)

    def zoom_chat(self, step: int | None) -> int:
        """Make the conversation's text one step larger (+1) or smaller (-1), or normal (None); remembered."""
        view = self.window.chat.view
        zoom = view.set_zoom(0 if step is None else view.zoom + step)
        self.window.app_settings.set_text(ZOOM_SETTING, str(zoom))
        percent = round(100 * (1 + ZOOM_STEP * zoom))
        self.window.statusBar().showMessage(
            QCoreApplication.translate("WindowMenus", "text size {percent} %").format(percent=percent), 3000
        )
        return zoom

    def show_side_panel(self, shown: bool) -> None:
        """Show or hide the side panel (remembered); the splitter gives its room to the chat."""
        self.window.side.setVisible(shown)
        self.window.app_settings.set_flag("side_panel", shown)
        if self.side_action.isChecked() != shown:
            self.side_action.setChecked(shown)

    # -- chat actions ------------------------------------------------------------------------

    def close_chat(self) -> None:
        """Leave the open chat for a new, empty one (the chat stays in the list)."""
        self.window.controller.new_conversation()

    def _last(self, role: str) -> int | None:
        path = self.window.controller.path
        return next((m.id for m in reversed(path) if m.role == role), None)

    def regenerate_last(self) -> bool:
        """A new reply in place of the last one (its sibling; the old one is kept)."""
        reply = self._last("assistant")
        return reply is not None and self.window.controller.tree.regenerate(reply)

    def copy_last_reply(self) -> bool:
        """The last reply's Markdown on the clipboard."""
        path = self.window.controller.path
        reply = next((m for m in reversed(path) if m.role == "assistant"), None)
        if reply is None:
            return False
        QApplication.clipboard().setText(reply.content)
        self.window.statusBar().showMessage(QCoreApplication.translate("WindowMenus", "reply copied"), 3000)
        return True

    def edit_last_message(self) -> bool:
        """Put the last message the user sent in the prompt box to edit (sending makes a new branch)."""
        message = self._last("user")
        if message is None:
            return False
        self.window.controller.tree.start_edit(message)
        return self.window.controller.tree.editing == message

    # -- dialogs -----------------------------------------------------------------------------

    def show_preferences(self) -> PreferencesDialog:
        """Open Preferences; OK applies the theme, the send key and the loading settings, and keeps the language."""
        w = self.window
        current = Preferences(
            theme=w.app_settings.text("view/theme", "system"),
            send_with_ctrl_enter=w.chat.prompt.send_with_ctrl_enter,
            generation=w.settings_panel.settings(),
            language=language_of(w.app_settings.text(LANGUAGE_SETTING, Language.SYSTEM.value)),
        )
        dialog = PreferencesDialog(current, gpu_offload_supported(), w)
        dialog.accepted.connect(lambda: self.apply_preferences(dialog.preferences()))
        dialog.open()
        self.preferences_dialog = dialog
        return dialog

    def apply_preferences(self, chosen: Preferences) -> None:
        """Apply and keep what Preferences says."""
        w = self.window
        self.set_theme(chosen.theme)
        w.chat.set_send_with_ctrl_enter(chosen.send_with_ctrl_enter)
        w.app_settings.set_flag("send_with_ctrl_enter", chosen.send_with_ctrl_enter)
        w.app_settings.set_text(LANGUAGE_SETTING, chosen.language.value)  # read at the next start
        w.settings_panel.set_settings(chosen.generation, emit=True)  # the Settings tab follows; the window saves it

    def actions_with_shortcuts(self) -> list[QAction]:
        """Every action of the window that has a key, in menu order (the shortcuts list is made of these)."""
        seen: list[QAction] = []

        def walk(actions: list[QAction]) -> None:
            for action in actions:
                submenu = action.menu()
                if isinstance(submenu, QMenu):
                    walk(submenu.actions())
                elif action.shortcuts() and action not in seen:
                    seen.append(action)

        walk(self.window.menuBar().actions())
        return seen

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """(what, keys) for the list: the actions' own shortcuts, then the prompt box's keys."""
        rows = [
            (
                action.text().replace("&", "").rstrip("…"),
                ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()),
            )
            for action in self.actions_with_shortcuts()
        ]
        keys = [
            (QCoreApplication.translate("WindowMenus", what), QCoreApplication.translate("WindowMenus", how))
            for what, how in PROMPT_KEYS
        ]
        return rows + keys

    def show_shortcuts(self) -> QDialog:
        """The list of keyboard shortcuts, built from the actions."""
        dialog = QDialog(self.window)
        dialog.setWindowTitle(QCoreApplication.translate("WindowMenus", "Keyboard shortcuts"))
        layout = QVBoxLayout(dialog)
        rows = self.shortcut_rows()
        table = QTableWidget(len(rows), 2, dialog)
        table.setObjectName("shortcuts")
        table.setHorizontalHeaderLabels(
            [QCoreApplication.translate("WindowMenus", "Action"), QCoreApplication.translate("WindowMenus", "Keys")]
        )
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, (what, keys) in enumerate(rows):
            table.setItem(row, 0, QTableWidgetItem(what))
            table.setItem(row, 1, QTableWidgetItem(keys))
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(dialog.reject)
        layout.addWidget(buttons)
        dialog.resize(520, 480)
        dialog.open()
        self.shortcuts_dialog = dialog
        return dialog
