"""What the core and the engine say, in the window's language: their words rendered here.

The words are :class:`~app.core.display.wording.Words`.

The template is looked up with ``QCoreApplication.translate`` under the
phrase's context, and every number is written by the window's locale
(:func:`number`: "1,5" in German, "1.5" in English), as are the numbers the
window formats itself. A plain string (an error from a library) is shown as
it is.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale

from app.core.display.wording import Phrase, Words, words_of


def number(value: int | float, spec: str = "") -> str:
    """``value`` formatted by Python's ``spec`` (``.2f``, ``,``, ``.0%``), written with the window locale's marks.

    Python does the rounding and the digits, so the English window shows what the CLI prints; the
    locale supplies the decimal point and the group separator ("1.234,5" in German).
    """
    locale = QLocale()
    marks = {ord("."): locale.decimalPoint(), ord(","): locale.groupSeparator()}
    return format(value, spec).translate(marks)


def say(words: Words | Phrase | str) -> str:
    """A sentence from below the window, in the window's language (a plain string as it is)."""
    if isinstance(words, str):
        return words
    return words.render(QCoreApplication.translate, number)


def say_error(error: BaseException) -> str:
    """An exception's message in the window's language, when it was made with Words; else its text."""
    sentence = words_of(error)
    return say(sentence) if sentence is not None else str(error)
