"""Real PDF files for the attachment tests, written with pypdf: pages of text, an image-only page, encryption."""

from __future__ import annotations

import io
import zlib

from pypdf import PdfWriter
from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject, NumberObject, StreamObject


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(pages: list[str], password: str | None = None) -> bytes:
    """A PDF whose pages show ``pages`` in Helvetica (an empty string makes a page with nothing on it)."""
    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    font_ref = writer._add_object(font)
    for text in pages:
        page = writer.add_blank_page(612, 792)
        stream = DecodedStreamObject()
        lines = "".join(f"({_escaped(line)}) Tj 0 -16 Td " for line in text.splitlines())
        stream.set_data(f"BT /F1 12 Tf 72 720 Td {lines}ET".encode("latin-1") if text else b"")
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font_ref})}
        )
    if password is not None:
        writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def image_pdf() -> bytes:
    """A one-page PDF holding only an 8x8 grey image: no text layer at all (a scan)."""
    writer = PdfWriter()
    page = writer.add_blank_page(200, 200)
    image = StreamObject()
    image._data = zlib.compress(bytes(range(0, 256, 4)))
    image.update(
        {
            NameObject("/Type"): NameObject("/XObject"),
            NameObject("/Subtype"): NameObject("/Image"),
            NameObject("/Width"): NumberObject(8),
            NameObject("/Height"): NumberObject(8),
            NameObject("/ColorSpace"): NameObject("/DeviceGray"),
            NameObject("/BitsPerComponent"): NumberObject(8),
            NameObject("/Filter"): ArrayObject([NameObject("/FlateDecode")]),
        }
    )
    contents = DecodedStreamObject()
    contents.set_data(b"q 200 0 0 200 0 0 cm /Im1 Do Q")
    page[NameObject("/Contents")] = writer._add_object(contents)
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/XObject"): DictionaryObject({NameObject("/Im1"): writer._add_object(image)})}
    )
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def written_pdf(objects: list[bytes]) -> bytes:
    """A PDF written by hand from its objects' bodies (object ``n`` is ``objects[n - 1]``; object 1 the catalog).

    pypdf's writer builds every page in memory; the hostile files (100,000
    pages, a page tree hundreds of levels deep) are written directly instead,
    with a correct cross-reference table, so they stay small and quick to make.
    """
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def _text_stream(text: str) -> bytes:
    data = f"BT /F1 12 Tf 72 720 Td ({_escaped(text)}) Tj ET".encode("latin-1")
    return b"<< /Length %d >>\nstream\n%s\nendstream" % (len(data), data)


def many_pages_pdf(pages: int, text: str = "the same words on every page", fan_out: int = 1000) -> bytes:
    """A PDF of ``pages`` pages all showing ``text`` (one shared content stream), in a two-level page tree."""
    # objects: 1 catalog, 2 root /Pages, 3 font, 4 contents, then the middle /Pages nodes, then the pages
    middles = (pages + fan_out - 1) // fan_out
    first_middle, first_page = 5, 5 + middles
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = b" ".join(b"%d 0 R" % (first_middle + m) for m in range(middles))
    # The media box and the font are inherited from the root, as the page tree allows: the pages stay small.
    objects.append(
        b"<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> >>"
        % (kids, pages)
    )
    objects.append(_FONT)
    objects.append(_text_stream(text))
    for m in range(middles):
        numbers = range(first_page + m * fan_out, first_page + min(pages, (m + 1) * fan_out))
        kids = b" ".join(b"%d 0 R" % n for n in numbers)
        objects.append(b"<< /Type /Pages /Parent 2 0 R /Kids [%s] /Count %d >>" % (kids, len(numbers)))
    for p in range(pages):
        parent = first_middle + p // fan_out
        objects.append(b"<< /Type /Page /Parent %d 0 R /Contents 4 0 R >>" % parent)
    return written_pdf(objects)


def deep_tree_pdf(depth: int, text: str = "found at the bottom") -> bytes:
    """A one-page PDF whose page sits under ``depth`` nested /Pages nodes, each with one kid."""
    # objects: 1 catalog, 2 font, 3 contents, 4 .. 3 + depth the /Pages nodes, then the page
    objects = [b"<< /Type /Catalog /Pages 4 0 R >>", _FONT, _text_stream(text)]
    for level in range(depth):
        number = 4 + level
        parent = b" /Parent %d 0 R" % (number - 1) if level else b""
        objects.append(b"<< /Type /Pages%s /Kids [%d 0 R] /Count 1 >>" % (parent, number + 1))
    objects.append(
        b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
        b"/Resources << /Font << /F1 2 0 R >> >> >>" % (3 + depth)
    )
    return written_pdf(objects)
