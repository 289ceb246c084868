"""The language choice in Preferences: System, English, Deutsch (kept in the settings file for the next start)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QWidget

from app.ui.i18n.install import Language, language_of

# Each language is named in itself, so a user who cannot read the current one still finds theirs.
_NAMES = ((Language.ENGLISH, "English"), (Language.GERMAN, "Deutsch"))


class LanguageBox(QComboBox):
    """A combo box of the languages, showing ``current``; :meth:`chosen` reads the selection back."""

    def __init__(self, current: Language, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.addItem(self.tr("System"), Language.SYSTEM.value)
        for language, name in _NAMES:
            self.addItem(name, language.value)
        self.setCurrentIndex(max(0, self.findData(current.value)))
        self.setToolTip(self.tr("applies when Tandem starts again; System follows the desktop's language"))

    def title(self) -> str:
        """The row's label beside the box."""
        return self.tr("Language")

    def chosen(self) -> Language:
        """The language selected."""
        return language_of(str(self.currentData()))
