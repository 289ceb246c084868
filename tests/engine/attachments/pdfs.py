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
