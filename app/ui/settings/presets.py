"""The preset box: named chat settings kept in the chat database, applied to the current chat.

A preset is a whole :class:`~app.core.conversation.chat_settings.ChatSettings` under a
name (the store keeps them, so the CLI sees the same ones). The box lists
them; Apply copies one into the current chat; Save as… keeps the current
chat's settings under a name (an existing name is overwritten after asking);
Rename… and Delete change the list; Default marks the preset new chats start
from (the mark is shown as "(default)" in the list).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMessageBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.conversation.chat_settings import ChatSettings
from app.engine.store.conversations import ChatStore
from app.engine.store.database import StoreWriteError
from app.ui.i18n.words import say_error

_DEFAULT_MARK = str(QT_TRANSLATE_NOOP("PresetBox", "(default)"))


class PresetBox(QWidget):
    """Lists the store's presets and creates, renames, deletes, applies and marks them as the default."""

    applied = Signal(object)  # ChatSettings: the preset chosen, for the current chat
    failed = Signal(str)  # a store write failed: what to tell the user

    def __init__(
        self,
        store: Callable[[], ChatStore],
        current: Callable[[], ChatSettings],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._current = current
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.combo = QComboBox()
        self.combo.setAccessibleName(self.tr("Presets"))
        self.combo.setMinimumContentsLength(10)
        self.apply_button = self._button(self.tr("Apply"), self.tr("use this preset's settings in the current chat"))
        row.addWidget(self.combo, 1)
        row.addWidget(self.apply_button)
        layout.addLayout(row)
        buttons = QGridLayout()  # two by two, so the side panel can be narrow
        self.save_button = self._button(self.tr("Save as…"), self.tr("keep the current chat's settings as a preset"))
        self.rename_button = self._button(self.tr("Rename…"), self.tr("rename the preset"))
        self.delete_button = self._button(
            self.tr("Delete"), self.tr("delete the preset (chats that used it keep their settings)")
        )
        self.default_button = self._button(
            self.tr("Default"), self.tr("new chats start from this preset (click again to unset)")
        )
        self.default_button.setCheckable(True)
        row_buttons = (self.save_button, self.rename_button, self.delete_button, self.default_button)
        for number, button in enumerate(row_buttons):
            buttons.addWidget(button, number // 2, number % 2)
        buttons.setColumnStretch(2, 1)
        layout.addLayout(buttons)
        self.empty = QLabel(self.tr("No presets yet: Save as… keeps this chat's settings under a name."))
        self.empty.setWordWrap(True)
        self.empty.setEnabled(False)
        layout.addWidget(self.empty)
        self.apply_button.clicked.connect(lambda: self.apply())
        self.save_button.clicked.connect(lambda: self.save_as())
        self.rename_button.clicked.connect(lambda: self.rename())
        self.delete_button.clicked.connect(lambda: self.delete())
        self.default_button.clicked.connect(lambda on: self.set_default(on))
        self.combo.currentIndexChanged.connect(self._update_buttons)
        self.refresh()

    def _button(self, text: str, tip: str) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAccessibleName(self.tr("Preset: {name}").format(name=text.rstrip("…")))
        return button

    # -- the list -------------------------------------------------------------------------

    def names(self) -> list[str]:
        """The presets' names, as the store sorts them."""
        return list(self._store().presets())

    def selected(self) -> str | None:
        """The preset chosen in the box."""
        name = self.combo.currentData()
        return str(name) if name is not None else None

    def select(self, name: str) -> None:
        """Choose ``name`` in the box."""
        index = self.combo.findData(name)
        if index >= 0:
            self.combo.setCurrentIndex(index)

    def refresh(self, select: str | None = None) -> None:
        """Read the presets again (keeping the choice, or choosing ``select``)."""
        keep = select or self.selected()
        default = self._store().default_preset()
        default_name = default[0] if default is not None else None
        self.combo.blockSignals(True)
        try:
            self.combo.clear()
            for name in self.names():
                self.combo.addItem(name + ("  " + self.tr(_DEFAULT_MARK) if name == default_name else ""), name)
            if keep is not None:
                index = self.combo.findData(keep)
                if index >= 0:
                    self.combo.setCurrentIndex(index)
        finally:
            self.combo.blockSignals(False)
        self._update_buttons()

    def _update_buttons(self) -> None:
        chosen = self.selected() is not None
        writable = not self._store().read_only
        for button in (self.apply_button, self.rename_button, self.delete_button, self.default_button):
            button.setEnabled(chosen and (writable or button is self.apply_button))
        self.save_button.setEnabled(writable)
        default = self._store().default_preset()
        self.default_button.setChecked(chosen and default is not None and default[0] == self.selected())
        self.empty.setVisible(self.combo.count() == 0)

    # -- actions ----------------------------------------------------------------------------

    def apply(self, name: str | None = None) -> bool:
        """Use preset ``name`` (default: the chosen one) in the current chat."""
        name = name or self.selected()
        presets = self._store().presets()
        if name is None or name not in presets:
            return False
        self.applied.emit(ChatSettings.from_dict(presets[name]))
        return True

    def save_as(self, name: str | None = None) -> bool:
        """Keep the current chat's settings as preset ``name`` (asked for when not given)."""
        if name is None:
            name, ok = QInputDialog.getText(
                self, self.tr("Save preset"), self.tr("Name of the preset"), text=self.selected() or ""
            )
            if not ok:
                return False
            if name.strip() in self.names():
                overwrite = QMessageBox.question(
                    self, self.tr("Save preset"), self.tr("Replace the preset '{name}'?").format(name=name.strip())
                )
                if overwrite != QMessageBox.StandardButton.Yes:
                    return False
        name = name.strip()
        if not name:
            self.failed.emit(self.tr("a preset needs a name"))
            return False
        return self._write(lambda: self._store().save_preset(name, self._current().to_dict()), name)

    def rename(self, new: str | None = None) -> bool:
        """Rename the chosen preset to ``new`` (asked for when not given)."""
        old = self.selected()
        if old is None:
            return False
        if new is None:
            new, ok = QInputDialog.getText(self, self.tr("Rename preset"), self.tr("New name"), text=old)
            if not ok:
                return False
        new = new.strip()
        if not new or new == old:
            return False
        if new in self.names():
            self.failed.emit(self.tr("there is already a preset called '{name}'").format(name=new))
            return False
        return self._write(lambda: self._store().rename_preset(old, new), new)

    def delete(self, name: str | None = None) -> bool:
        """Delete a preset (chats that used it keep their own copy of its settings)."""
        name = name or self.selected()
        if name is None:
            return False
        return self._write(lambda: self._store().delete_preset(name), None)

    def set_default(self, on: bool) -> bool:
        """Make the chosen preset the one new chats start from (or no preset, when ``on`` is False)."""
        name = self.selected()
        return self._write(lambda: self._store().set_default_preset(name if on else None), name)

    def _write(self, change: Callable[[], None], select: str | None) -> bool:
        try:
            change()
        except (StoreWriteError, KeyError, ValueError) as exc:
            self.failed.emit(
                say_error(exc) if not isinstance(exc, KeyError) else self.tr("no preset called {name}").format(name=exc)
            )
            self.refresh()
            return False
        self.refresh(select)
        return True
