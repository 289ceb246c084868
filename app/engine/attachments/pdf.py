"""A PDF's text layer, page by page, with pypdf: one :class:`Section` ("p. N") per page.

A PDF whose pages hold no text (scanned, image-only) is refused: Tandem's
targets read no images, and an empty attachment would only mislead. An
encrypted PDF is read only when it opens without a password (many carry an
owner password alone); otherwise it is refused. Pages without text in an
otherwise readable PDF are named in a note.

The page tree is walked here, one page at a time, rather than flattened
whole by pypdf: a PDF claiming 100,000 pages is read up to
:attr:`~AttachmentLimits.pdf_max_pages` ("read the first N pages of M" in its
notes), a tree nested deeper than :attr:`~AttachmentLimits.pdf_max_tree_depth`
is refused in one line, and the read's deadline is checked between pages and
inside each page's text extraction (at every content-stream operator).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from typing import Any

import pypdf
from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, NameObject

from app.core.attachments.record import Section
from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.engine.attachments.limits import AttachmentLimits, Deadline, ReadTooSlowError

_PAGE_GAP = "\n\n"


# Why a PDF cannot be attached, in the window's language there (``str`` of the error is the English).
_NOT_PDF = QT_TRANSLATE_NOOP("AttachmentRead", "not a PDF: it does not start with %PDF-")
_ENCRYPTED_UNREADABLE = QT_TRANSLATE_NOOP(
    "AttachmentRead", "the PDF is encrypted in a way that cannot be read here ({error})"
)
_NEEDS_PASSWORD = QT_TRANSLATE_NOOP(
    "AttachmentRead", "the PDF is encrypted: it needs a password (save an unencrypted copy to attach it)"
)
_DAMAGED = QT_TRANSLATE_NOOP("AttachmentRead", "a damaged PDF ({error})")
_NO_TEXT_LAYER = QT_TRANSLATE_NOOP(
    "AttachmentRead",
    "the PDF has no text layer (its {pages} hold only images or scans): Tandem reads no images; "
    "run it through OCR first",
)
_NO_PAGES = QT_TRANSLATE_NOOP("AttachmentRead", "the PDF has no pages")
_TOO_DEEP = QT_TRANSLATE_NOOP("AttachmentRead", "a damaged PDF (its page tree is nested deeper than {limit} levels)")
_INHERITED = tuple(NameObject(key) for key in ("/Resources", "/MediaBox", "/CropBox", "/Rotate"))
# Page counts without %n: a count in the window's own plural forms needs QObject.tr.
_ONE_PAGE = QT_TRANSLATE_NOOP("AttachmentRead", "{n} page")
_PAGES = QT_TRANSLATE_NOOP("AttachmentRead", "{n} pages")


class PdfError(ValueError):
    """A PDF that cannot be read; the message is the reason as a user reads it."""


def read_pdf(
    data: bytes, limits: AttachmentLimits, deadline: Deadline
) -> tuple[str, tuple[Section, ...], tuple[str, ...]]:
    """The text of every page, where each page starts, and the notes; :class:`PdfError` when there is none.

    Raises :class:`~app.engine.attachments.limits.ReadTooSlowError` when ``deadline`` passes.
    """
    if not data.lstrip()[:1024].startswith(b"%PDF-"):
        raise PdfError(_NOT_PDF)
    notes: list[str] = []
    # pypdf logs every oddity of a damaged file as a warning; what matters reaches the user as a note or an error.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    parts: list[str] = []
    sections: list[Section] = []
    empty: list[int] = []
    at = 0
    number = 0
    read_all = True

    def tick(*_: Any) -> None:
        deadline.check()

    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except (DependencyError, NotImplementedError) as exc:
                raise PdfError(_ENCRYPTED_UNREADABLE.fill(error=str(exc))) from exc
            if not opened:
                raise PdfError(_NEEDS_PASSWORD)
            notes.append("the PDF is encrypted but opens without a password")
        claimed = _claimed_pages(reader)
        for page in _pages_of(reader, limits, deadline):
            if number >= limits.pdf_max_pages:
                read_all = False
                break
            number += 1
            deadline.check()
            try:
                text = (page.extract_text(visitor_operand_before=tick) or "").strip()
            except (PdfError, ReadTooSlowError):
                raise
            except Exception:  # pypdf raises many kinds for one bad page; the rest still reads
                text = ""
            if not text:
                empty.append(number)
                continue
            if parts:
                at += len(_PAGE_GAP)
            sections.append(Section(f"p. {number}", at))
            parts.append(text)
            at += len(text)
            if at > limits.max_text_chars:
                read_all = False
                break
    except FileNotDecryptedError as exc:
        raise PdfError(_NEEDS_PASSWORD) from exc
    except (PdfError, ReadTooSlowError):
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError, RecursionError) as exc:
        raise PdfError(_DAMAGED.fill(error=str(exc))) from exc
    total = number if read_all else max(claimed, number)
    if not parts:
        raise PdfError(_NO_TEXT_LAYER.fill(pages=_pages_words(total)) if number else _NO_PAGES)
    if empty:
        notes.append(f"{len(empty)} of {_pages(number)} have no text layer: {_page_list(empty)}")
    text = _PAGE_GAP.join(parts)
    if len(text) > limits.max_text_chars:  # the pages after the one that crossed the cap were not read
        text = text[: limits.max_text_chars]
        sections = [s for s in sections if s.start < len(text)]
        notes.append(f"the text is cut at {limits.max_text_chars:,} characters, in {sections[-1].label} of {total}")
    elif not read_all:
        more = f"{total:,}" if total > number else "more"
        notes.append(f"read the first {number:,} pages of {more}: a PDF is read up to {limits.pdf_max_pages:,} pages")
    return text, tuple(sections), tuple(notes)


def _claimed_pages(reader: pypdf.PdfReader) -> int:
    """The page count the PDF's page tree claims (0 when it claims none): said in a note, never trusted for work."""
    count = reader.root_object.get("/Pages", DictionaryObject()).get_object()
    claimed = count.get("/Count", 0) if isinstance(count, DictionaryObject) else 0
    return int(claimed) if isinstance(claimed, int) and claimed > 0 else 0


def _pages_of(reader: pypdf.PdfReader, limits: AttachmentLimits, deadline: Deadline) -> Iterator[pypdf.PageObject]:
    """The PDF's pages in order, each made only when asked for, walking the tree with a stack of bounded depth.

    Every node entered deepens the stack, so a cycle in the tree ends at the
    depth limit (a :class:`PdfError`) rather than going round for ever.
    """
    root = reader.root_object.get("/Pages")
    root = root.get_object() if root is not None else None
    if not isinstance(root, DictionaryObject):
        raise PdfError(_DAMAGED.fill(error="it has no page tree"))
    # Each frame: the kids still to visit under one /Pages node, and what its pages inherit.
    stack: list[tuple[Iterator[Any], dict[NameObject, Any]]] = [(iter([root]), {})]
    while stack:
        deadline.check()
        kids, inherited = stack[-1]
        kid = next(kids, None)
        if kid is None:
            stack.pop()
            continue
        node = kid.get_object()
        if not isinstance(node, DictionaryObject) or not node:
            continue  # a damaged entry: skipped, as pypdf skips it
        if node.get("/Type") == "/Pages" or ("/Kids" in node and node.get("/Type") != "/Page"):
            if len(stack) > limits.pdf_max_tree_depth:
                raise PdfError(_TOO_DEEP.fill(limit=limits.pdf_max_tree_depth))
            children = node.get("/Kids", ArrayObject())
            children = children.get_object() if children is not None else ArrayObject()
            if not isinstance(children, ArrayObject):
                raise PdfError(_DAMAGED.fill(error="a page tree node's /Kids is not a list"))
            passed = dict(inherited)
            passed.update((key, node[key]) for key in _INHERITED if key in node)
            stack.append((iter(children), passed))
            continue
        page = pypdf.PageObject(reader, kid if isinstance(kid, IndirectObject) else None)
        page.update(node)
        for key, value in inherited.items():
            if key not in page:
                page[key] = value
        yield page


def _page_list(numbers: list[int]) -> str:
    """Page numbers as a short phrase: "p. 2, 5, 9" (the first 10, then how many more)."""
    shown = ", ".join(str(n) for n in numbers[:10])
    more = f" and {len(numbers) - 10} more" if len(numbers) > 10 else ""
    return f"p. {shown}{more}"


def _pages(n: int) -> str:
    return str(_pages_words(n))


def _pages_words(n: int) -> Words:
    return (_ONE_PAGE if n == 1 else _PAGES).fill(n=n)
