"""An HTML page as the text a reader sees, with Beautiful Soup over the standard library's parser.

Beautiful Soup (with ``html.parser``, so no compiled parser is needed)
copes with the broken markup real pages have; scripts, styles and other
parts a browser does not show as text are dropped, and blank runs are folded
so the text reads as the page does.
"""

from __future__ import annotations

import re
import warnings

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning

# Elements whose content is not text a reader sees.
_HIDDEN = ("script", "style", "noscript", "template", "svg", "head")
# Elements a browser lays out as blocks: each ends its line (inline ones, like <b>, run on).
_BLOCKS = (
    "p",
    "div",
    "br",
    "li",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "blockquote",
    "section",
    "article",
    "header",
    "footer",
    "nav",
    "aside",
    "main",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "table",
    "hr",
    "figure",
    "figcaption",
    "form",
    "address",
)
_CELLS = ("td", "th")
_BLANK_LINES = re.compile(r"\n[ \t\r\f\v]*(?:\n[ \t\r\f\v]*)+")
_SPACES = re.compile(r"[ \t\r\f\v]+")


def html_to_text(markup: str) -> tuple[str, str]:
    """The visible text of ``markup`` and the page's title ("" when it has none)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)  # a page that is only a URL is still text
        soup = BeautifulSoup(markup, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for element in soup.find_all(_HIDDEN):
        element.decompose()
    for element in soup.find_all(_BLOCKS):
        element.insert_after("\n")
    for element in soup.find_all(_CELLS):
        element.insert_after(" ")
    text = soup.get_text()
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    folded = _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
    return folded, title
