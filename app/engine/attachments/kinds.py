"""What kind of file an attachment is (by its name and its first bytes), and its bytes as text.

Text is decoded by what it is, not assumed to be UTF-8: a byte-order mark
or valid UTF-8 is certain; anything else is detected with charset-normalizer
and the guess is said in a note. NUL bytes (outside UTF-16/32 with a BOM) or
bytes no encoding reads as text make it binary, which is refused.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

import charset_normalizer

from app.core.attachments.record import AttachmentKind
from app.core.display.wording import QT_TRANSLATE_NOOP

_MARKDOWN = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mdx"})
_PLAIN = frozenset({".txt", ".text", ".log", ".rst", ".csv", ".tsv", ""})
_HTML = frozenset({".html", ".htm", ".xhtml"})
# Byte-order marks, longest first (UTF-32's LE mark begins with UTF-16's).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_SNIFF = 8192  # bytes looked at for NUL bytes and a PDF's or HTML's start


# Why bytes are not text, in the window's language there (``str`` of the error is the English).
_NOT_VALID = QT_TRANSLATE_NOOP("AttachmentRead", "not valid {encoding} despite its byte-order mark")
_NUL_BYTES = QT_TRANSLATE_NOOP("AttachmentRead", "looks binary: it holds NUL bytes")
_NO_ENCODING = QT_TRANSLATE_NOOP("AttachmentRead", "looks binary: its bytes are not text in any encoding")
_NUL_CHARACTERS = QT_TRANSLATE_NOOP("AttachmentRead", "looks binary: it holds NUL characters")


class NotTextError(ValueError):
    """Bytes that are not text; the message is the reason as a user reads it ("looks binary: NUL bytes")."""


@dataclass(frozen=True, slots=True)
class DecodedText:
    """Bytes read as text: the text, the encoding used, and whether that encoding was a guess."""

    text: str
    encoding: str
    guessed: bool

    def notes(self) -> tuple[str, ...]:
        """The note a guessed encoding owes the user."""
        if not self.guessed:
            return ()
        return (f"the encoding was detected as {self.encoding} (not UTF-8); some characters may be wrong",)


def suffix_of(name: str) -> str:
    """The lower-case extension of a file name, with its dot ("" for none)."""
    base = name.rsplit("/", 1)[-1]
    return "." + base.rsplit(".", 1)[1].lower() if "." in base.lstrip(".") else ""


def kind_of(name: str, head: bytes) -> AttachmentKind:
    """The kind a file's name and first bytes make it: PDF and HTML by either, Markdown and text by name, else code."""
    suffix = suffix_of(name)
    start = head[:1024].lstrip()
    if suffix == ".pdf" or start.startswith(b"%PDF-"):
        return AttachmentKind.PDF
    if suffix in _HTML or start[:15].lower().startswith((b"<!doctype html", b"<html")):
        return AttachmentKind.HTML
    if suffix in _MARKDOWN:
        return AttachmentKind.MARKDOWN
    if suffix in _PLAIN:
        return AttachmentKind.TEXT
    return AttachmentKind.CODE


def decode(data: bytes) -> DecodedText:
    """``data`` as text, by its BOM, as UTF-8, or as charset-normalizer detects it; :class:`NotTextError` otherwise."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return DecodedText(data.decode(encoding), encoding.removesuffix("-sig"), guessed=False)
            except UnicodeDecodeError as exc:
                raise NotTextError(_NOT_VALID.fill(encoding=encoding.removesuffix("-sig"))) from exc
    if b"\0" in data[:_SNIFF]:
        raise NotTextError(_NUL_BYTES)
    try:
        return DecodedText(data.decode("utf-8"), "utf-8", guessed=False)
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(data).best()
    if best is None:
        raise NotTextError(_NO_ENCODING)
    text = str(best)
    if "\0" in text:
        raise NotTextError(_NUL_CHARACTERS)
    return DecodedText(text, best.encoding, guessed=True)
