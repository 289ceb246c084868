"""A PDF's text layer, page by page, with pypdf: one :class:`Section` ("p. N") per page.

A PDF whose pages hold no text (scanned, image-only) is refused: Tandem's
targets read no images, and an empty attachment would only mislead. An
encrypted PDF is read only when it opens without a password (many carry an
owner password alone); otherwise it is refused. Pages without text in an
otherwise readable PDF are named in a note.
"""

from __future__ import annotations

import io
import logging

import pypdf
from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError

from app.core.attachments.record import Section
from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.engine.attachments.limits import AttachmentLimits

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
# Page counts without %n: a count in the window's own plural forms needs QObject.tr.
_ONE_PAGE = QT_TRANSLATE_NOOP("AttachmentRead", "{n} page")
_PAGES = QT_TRANSLATE_NOOP("AttachmentRead", "{n} pages")


class PdfError(ValueError):
    """A PDF that cannot be read; the message is the reason as a user reads it."""


def read_pdf(data: bytes, limits: AttachmentLimits) -> tuple[str, tuple[Section, ...], tuple[str, ...]]:
    """The text of every page, where each page starts, and the notes; :class:`PdfError` when there is none."""
    if not data.lstrip()[:1024].startswith(b"%PDF-"):
        raise PdfError(_NOT_PDF)
    notes: list[str] = []
    # pypdf logs every oddity of a damaged file as a warning; what matters reaches the user as a note or an error.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
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
        pages = list(reader.pages)
    except FileNotDecryptedError as exc:
        raise PdfError(_NEEDS_PASSWORD) from exc
    except PdfError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as exc:
        raise PdfError(_DAMAGED.fill(error=str(exc))) from exc
    parts: list[str] = []
    sections: list[Section] = []
    empty: list[int] = []
    at = 0
    for number, page in enumerate(pages, start=1):
        try:
            text = (page.extract_text() or "").strip()
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
            break
    if not parts:
        raise PdfError(_NO_TEXT_LAYER.fill(pages=_pages_words(len(pages))) if pages else _NO_PAGES)
    if empty:
        notes.append(f"{len(empty)} of {_pages(len(pages))} have no text layer: {_page_list(empty)}")
    text = _PAGE_GAP.join(parts)
    if len(text) > limits.max_text_chars:  # the pages after the one that crossed the cap were not read
        text = text[: limits.max_text_chars]
        sections = [s for s in sections if s.start < len(text)]
        notes.append(
            f"the text is cut at {limits.max_text_chars:,} characters, in {sections[-1].label} of {len(pages)}"
        )
    return text, tuple(sections), tuple(notes)


def _page_list(numbers: list[int]) -> str:
    """Page numbers as a short phrase: "p. 2, 5, 9" (the first 10, then how many more)."""
    shown = ", ".join(str(n) for n in numbers[:10])
    more = f" and {len(numbers) - 10} more" if len(numbers) > 10 else ""
    return f"p. {shown}{more}"


def _pages(n: int) -> str:
    return str(_pages_words(n))


def _pages_words(n: int) -> Words:
    return (_ONE_PAGE if n == 1 else _PAGES).fill(n=n)
