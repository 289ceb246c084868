"""Sentences made below the window, kept translatable: an English template, its context and its values.

``app.core`` and ``app.engine`` never import Qt, yet what they say (an error,
a compatibility reason, a verdict, a step told in words) reaches the window,
which shows it in the user's language. So they do not format the sentence
themselves: they name it with :func:`QT_TRANSLATE_NOOP` (the name
``pyside6-lupdate`` reads, so the template lands in ``translations/*.ts``)
and fill its named fields with :meth:`Phrase.fill`. The result, :class:`Words`,
prints as the English sentence (``str``: logs, the CLI, ``serve``), and the
window renders it with its translator and its locale's numbers
(``app/ui/i18n/words.py``). Numbers stay numbers until then, so "1.5" can
become "1,5"; a value may itself be :class:`Words` (rendered the same way).

An exception made with one :class:`Words` argument prints that sentence, and
the window finds it again with :func:`words_of`. Templates use ``str.format``
fields with names (``{name}``, ``{ratio:.2f}``); a literal brace is doubled.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Union

Value = Union[str, int, float, "Words", "Phrase"]
Translate = Callable[[str, str], str]
"""(context, English source) -> the template in the reader's language."""
FormatNumber = Callable[[int | float, str], str]
"""(number, format spec) -> the number as the reader writes it."""


@dataclass(frozen=True)
class Phrase:
    """One translatable template: the context it is filed under and its English source text."""

    context: str
    source: str

    def fill(self, **values: Value) -> Words:
        """The sentence with its named fields' values (numbers kept as numbers)."""
        return Words(self, tuple(values.items()))

    def render(self, translate: Translate, number: FormatNumber) -> str:
        """The template with no fields, in the reader's language."""
        return Words(self, ()).render(translate, number)

    def __str__(self) -> str:
        return self.render(english, python_number)


@dataclass(frozen=True)
class Words:
    """A filled phrase: prints as English, rendered in the window's language by the window."""

    phrase: Phrase
    values: tuple[tuple[str, Value], ...]

    def render(self, translate: Translate, number: FormatNumber) -> str:
        """The sentence with ``translate`` choosing the template and ``number`` writing numbers."""
        template = translate(self.phrase.context, self.phrase.source)
        return _Formatter(translate, number).vformat(template, (), dict(self.values))

    def __str__(self) -> str:
        return self.render(english, python_number)


def QT_TRANSLATE_NOOP(context: str, source: str) -> Phrase:  # noqa: N802 - the name pyside6-lupdate reads
    """Mark ``source`` for the catalogues under ``context``; fill it with :meth:`Phrase.fill`.

    Keep both arguments string literals on the call's first line(s) and the values in ``.fill``:
    lupdate reads two-argument calls only.
    """
    return Phrase(context, source)


def english(_context: str, source: str) -> str:
    """The identity translation: the English source as written."""
    return source


def python_number(value: int | float, spec: str) -> str:
    """A number as Python's ``format`` writes it (the English sentence)."""
    return format(value, spec)


def words_of(error: BaseException) -> Words | Phrase | None:
    """The sentence an exception was made with (its one argument) or gives (its ``words()``), else None.

    An error with its own ``__str__`` (one built from several values) says its sentence by a ``words()``
    method that needs no argument.
    """
    own = getattr(error, "words", None)
    if callable(own):
        sentence = own()
        if isinstance(sentence, Words | Phrase):
            return sentence
    if len(error.args) == 1 and isinstance(error.args[0], Words | Phrase):
        return error.args[0]
    return None


class _Formatter(string.Formatter):
    """str.format with numbers written by the reader's rules and nested sentences rendered alike."""

    def __init__(self, translate: Translate, number: FormatNumber) -> None:
        self._translate = translate
        self._number = number

    def format_field(self, value: object, format_spec: str) -> str:
        if isinstance(value, Words | Phrase):
            return format(value.render(self._translate, self._number), format_spec)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return self._number(value, format_spec)
        return str(super().format_field(value, format_spec))
