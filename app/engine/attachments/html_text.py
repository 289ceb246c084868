"""An HTML page as the text a reader sees, read in one pass with the standard library's tokenizer.

The page is never built into a tree: tags and text are handled as they
come, with a stack of the open elements no deeper than
:attr:`~AttachmentLimits.html_max_depth` (deeper elements add their text
but no structure, and a note says so), so 100,000 nested or unclosed tags cost
time and memory in proportion to the page, not to its square. Scripts,
styles and other parts a browser does not show as text are dropped, block
elements end their line, and blank runs are folded so the text reads as the
page does. Reading stops once the text passes
:attr:`~AttachmentLimits.max_text_chars` or the tags
:attr:`~AttachmentLimits.html_max_tags` (said in a note), and the read's
deadline is checked at every tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from app.engine.attachments.limits import AttachmentLimits, Deadline

# Elements whose content is not text a reader sees.
_HIDDEN = frozenset({"script", "style", "noscript", "template", "svg", "head"})
# Elements a browser lays out as blocks: each ends its line (inline ones, like <b>, run on).
_BLOCKS = frozenset(
    {
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
    }
)
_CELLS = frozenset({"td", "th"})
# Elements that never hold content: no end tag closes them, so they are never on the stack.
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
)
_TITLE_CHARS = 1_000  # a title longer than this is not one: the rest of it is not kept
_BLANK_LINES = re.compile(r"\n[ \t\r\f\v]*(?:\n[ \t\r\f\v]*)+")
_SPACES = re.compile(r"[ \t\r\f\v]+")


@dataclass(frozen=True, slots=True)
class PageText:
    """A page's visible text, its title ("" when it has none), and notes on what was not read."""

    text: str
    title: str
    notes: tuple[str, ...]


class _TextFullError(Exception):
    """The text or the tags passed their cap: the rest of the page is not read."""


class _TextCollector(HTMLParser):
    """Collects visible text from the tokenizer's events, keeping only a bounded stack of open elements."""

    def __init__(self, limits: AttachmentLimits, deadline: Deadline) -> None:
        super().__init__(convert_charrefs=True)
        self._limits = limits
        self._deadline = deadline
        self._open: list[str] = []  # the open elements, outermost first, at most html_max_depth
        self._hidden = 0  # how many open elements hide their content
        self._untracked = 0  # start tags past the depth limit still open (their names are not kept)
        self.too_deep = False
        self._pieces: list[str] = []
        self._length = 0
        self._tags = 0
        self._title: list[str] | None = None  # collecting while inside the first <title>
        self._title_length = 0
        self.title = ""
        self.cut = False
        self.too_many_tags = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._markup()
        if tag == "title" and not self.title and self._title is None:
            self._title = []
        if tag in _VOID:
            if tag in _BLOCKS and not self._hidden:
                self._emit("\n")
            return
        if len(self._open) >= self._limits.html_max_depth:
            self._untracked += 1
            self.too_deep = True
            return
        self._open.append(tag)
        if tag in _HIDDEN:
            self._hidden += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._markup()
        if (tag in _BLOCKS or tag in _CELLS) and not self._hidden:
            self._emit("\n" if tag in _BLOCKS else " ")

    def handle_endtag(self, tag: str) -> None:
        self._markup()
        if tag == "title" and self._title is not None:
            self.end_title()
        if self._untracked:
            self._untracked -= 1
            return
        # The nearest open element of that name closes, with every element opened inside it (as browsers do);
        # an end tag nothing matches is ignored. The stack is bounded, so the search is too.
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index] == tag:
                while len(self._open) > index:
                    self._close(self._open.pop())
                return

    def handle_comment(self, data: str) -> None:
        self._markup()

    def handle_decl(self, decl: str) -> None:
        self._markup()

    def handle_pi(self, data: str) -> None:
        self._markup()

    def unknown_decl(self, data: str) -> None:
        self._markup()

    def handle_data(self, data: str) -> None:
        self._deadline.check()
        if self._title is not None and self._title_length < _TITLE_CHARS:
            self._title.append(data[: _TITLE_CHARS - self._title_length])
            self._title_length += len(self._title[-1])
        if not self._hidden:
            self._emit(data)

    def finish(self) -> None:
        """Close what the page left open, as the end of a document does."""
        if self.open_title:
            self.end_title()
        while self._open:
            self._close(self._open.pop())

    def text(self) -> str:
        return "".join(self._pieces)

    @property
    def open_title(self) -> bool:
        """Whether a <title> is open, its end not yet read."""
        return self._title is not None

    def _markup(self) -> None:
        """Count one tag, comment or declaration against the cap, and look at the clock."""
        self._deadline.check()
        self._tags += 1
        if self._tags > self._limits.html_max_tags:
            self.too_many_tags = True
            raise _TextFullError

    def end_title(self) -> None:
        """Take the title collected so far as the page's title (at its end tag, or where reading stopped)."""
        pieces = self._title or []
        self.title = " ".join(part for part in (piece.strip() for piece in pieces) if part)
        self._title = None

    def _close(self, tag: str) -> None:
        if tag in _HIDDEN:
            self._hidden -= 1
        elif not self._hidden:
            if tag in _BLOCKS:
                self._emit("\n")
            elif tag in _CELLS:
                self._emit(" ")

    def _emit(self, text: str) -> None:
        self._pieces.append(text)
        self._length += len(text)
        if self._length > self._limits.max_text_chars:
            self.cut = True
            raise _TextFullError


def html_to_text(markup: str, limits: AttachmentLimits, deadline: Deadline) -> PageText:
    """The visible text of ``markup``, its title, and notes on what was left unread.

    Raises :class:`~app.engine.attachments.limits.ReadTooSlowError` when ``deadline`` passes.
    """
    collector = _TextCollector(limits, deadline)
    try:
        collector.feed(markup)
        collector.close()
        collector.finish()
    except _TextFullError:
        if collector.open_title:
            collector.end_title()
    text = collector.text()
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    folded = _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
    notes: list[str] = []
    if collector.title:
        notes.append(f"the page's title: {collector.title}")
    if collector.too_deep:
        notes.append(
            f"elements nested deeper than {limits.html_max_depth} levels are read as plain text (their tags ignored)"
        )
    if collector.too_many_tags:
        notes.append(f"the page is read up to its first {limits.html_max_tags:,} tags (the rest was not read)")
    if collector.cut:
        folded = folded[: limits.max_text_chars]
        notes.append(f"the text is cut at {limits.max_text_chars:,} characters (the rest of the page was not read)")
    return PageText(text=folded, title=collector.title, notes=tuple(notes))
