"""Installing the translators at start: the language chosen, Tandem's catalogue and Qt's own.

The language is the one saved in Preferences (``view/language``: ``system``,
``en`` or ``de``); ``system`` follows :meth:`QLocale.system`. For a language
other than English two translators go in: Tandem's catalogue
(:mod:`app.ui.i18n.catalog`) and Qt's ``qtbase_<lang>.qm`` (the standard
dialogs' and buttons' words: OK, Cancel, the file dialog), found in Qt's
translations folder, or PySide6's own copy in a bundle. English, and a
language without a translation, get the English catalogue: the plural forms
of the "%n" texts ("1 message", "2 messages"). A missing catalogue leaves
the texts as written with one log line. The chosen locale becomes Qt's
default, so numbers are written its way too (``app/ui/i18n/words.py``). Widgets read their text when
they are made, so a change of language applies at the next start.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from pathlib import Path

import PySide6
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from app.ui.i18n.catalog import TRANSLATED, catalogue_path

LOG = logging.getLogger(__name__)
SETTING = "view/language"


class Language(StrEnum):
    """The choices of the language setting (the saved text)."""

    SYSTEM = "system"
    ENGLISH = "en"
    GERMAN = "de"


def language_of(saved: str) -> Language:
    """The setting's text read back; anything unknown is "system"."""
    try:
        return Language(saved)
    except ValueError:
        return Language.SYSTEM


def locale_for(language: Language, system: QLocale | None = None) -> QLocale:
    """The locale the window uses: the chosen language's, or the system's."""
    if language is Language.SYSTEM:
        return system if system is not None else QLocale.system()
    return QLocale(language.value)


def _qt_translation_folders() -> list[Path]:
    """Where qtbase_<lang>.qm may be: Qt's own path, then PySide6's folder (a bundle's qt.conf may not say)."""
    folders = [Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))]
    folders.append(Path(PySide6.__file__).resolve().parent / "Qt" / "translations")
    return folders


def install_translators(app: QCoreApplication, language: Language, system: QLocale | None = None) -> list[QTranslator]:
    """Install Tandem's and Qt's translators for ``language`` on ``app``; returns them (parented to ``app``).

    A language Tandem has no translation for gets English: its catalogue holds the plural forms of
    the "%n" texts only. A catalogue that cannot be read is logged once and the texts stay as written.
    """
    locale = locale_for(language, system)
    code = QLocale.languageToCode(locale.language())
    if code not in TRANSLATED:
        code = Language.ENGLISH.value
    installed: list[QTranslator] = []
    ours = QTranslator(app)
    path = catalogue_path(code)
    if not ours.load(str(path)):
        LOG.warning("translations: %s missing or unreadable, the window stays in English", path)
        return installed
    app.installTranslator(ours)
    installed.append(ours)
    # Numbers follow the chosen language too ("1,5" in German), wherever the window writes them; only
    # once its catalogue is in, so a window left in English does not write German numbers.
    QLocale.setDefault(locale)
    if code == Language.ENGLISH.value:
        return installed
    qt_own = QTranslator(app)
    for folder in _qt_translation_folders():
        if qt_own.load(locale, "qtbase", "_", str(folder)):
            app.installTranslator(qt_own)
            installed.append(qt_own)
            break
    return installed


def remove_translators(app: QCoreApplication, translators: list[QTranslator]) -> None:
    """Take the translators out again (the tests switch languages within one application)."""
    for translator in translators:
        app.removeTranslator(translator)
    QLocale.setDefault(QLocale.system())
