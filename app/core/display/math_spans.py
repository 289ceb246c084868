"""Where a reply writes LaTeX math: the spans the chat view sets as formulas.

Chat models write inline math as ``$...$`` or ``\\(...\\)`` and display math as
``$$...$$`` or ``\\[...\\]`` (a display formula may run over several lines).
A ``$`` is also money: the usual rule of Markdown math (pandoc's) tells them
apart: the opening ``$`` is not followed by a space, the closing one is not
preceded by a space nor followed by a digit, and an escaped ``\\$`` is never a
delimiter; so "costs $5 and $10" stays text. A span still open (no closing
delimiter yet, as while a reply streams) is no span: it stays text until it
closes.

Only what is cheap and certain is judged here: the delimiters, the length
bound and balanced braces. Whether the renderer knows every command is the
renderer's to say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A longer formula stays raw text: the renderer's time grows with it, and a
# reply that is mostly one huge "formula" is more likely broken than maths.
MAX_LATEX_CHARS = 400
# Deeper groups stay raw too: the renderer's time doubles with each level of
# nested fractions (nine levels take seconds), and real formulas nest far less.
MAX_GROUP_DEPTH = 5

_SPAN = re.compile(
    r"""
    (?<!\\)\$\$(?P<dollars_display>[^$]+?)\$\$
  | (?<!\\)\\\[(?P<bracket_display>.+?)\\\]
  | (?<!\\)\\\((?P<paren_inline>[^\n]+?)\\\)
  | (?<![\\$])\$(?P<dollar_inline>[^\s$](?:[^$\n]*?[^\s$\\])?)\$(?![\d$])
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class MathSpan:
    """One formula: ``start:end`` of the text (delimiters included), its LaTeX and whether it is display math."""

    start: int
    end: int
    latex: str
    display: bool


def find_math(text: str) -> list[MathSpan]:
    """Every complete, well-formed formula of ``text`` (a paragraph's source), in order."""
    spans: list[MathSpan] = []
    for match in _SPAN.finditer(text):
        kind = match.lastgroup or ""
        latex = match.group(kind).strip()
        if not latex or len(latex) > MAX_LATEX_CHARS or not _balanced(latex):
            continue
        spans.append(MathSpan(start=match.start(), end=match.end(), latex=latex, display=kind.endswith("_display")))
    return spans


def _balanced(latex: str) -> bool:
    """Whether the braces of ``latex`` pair up, no deeper than :data:`MAX_GROUP_DEPTH` (``\\{`` is a character)."""
    depth = 0
    escaped = False
    for char in latex:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
            if depth > MAX_GROUP_DEPTH:
                return False
        elif char == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0
