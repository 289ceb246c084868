"""The window in the user's language: Qt translators installed at start, catalogues built from translations/."""

from collections.abc import Callable
from typing import cast

from PySide6 import QtCore

# Marks a text for pyside6-lupdate (it reads the name) and returns it unchanged; typed here because
# PySide6's stub says it returns ``object``. Show the text through QCoreApplication.translate(context, text).
QT_TRANSLATE_NOOP = cast(Callable[[str, str], str], QtCore.QT_TRANSLATE_NOOP)
