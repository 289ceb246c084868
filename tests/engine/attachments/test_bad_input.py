"""Files that cannot be attached, made for real on disk: each refused in one line naming the file and the problem."""

from __future__ import annotations

import os
import random
import tracemalloc

import pytest

from app.engine.attachments import AttachmentError, AttachmentLimits, read_attachment, read_attachment_bytes
from tests.engine.attachments.pdfs import image_pdf, text_pdf


def _refused(path, match: str, limits: AttachmentLimits | None = None) -> str:
    with pytest.raises(AttachmentError) as caught:
        read_attachment(path, limits or AttachmentLimits())
    message = str(caught.value)
    assert "\n" not in message, "one line"
    assert message.startswith(f"cannot attach {path.name}: ")
    assert match in message, message
    return message


def test_a_binary_file_with_nul_bytes_is_refused(tmp_path):
    path = tmp_path / "program.bin"
    path.write_bytes(b"\x7fELF\x02\x01\x01\0\0\0\0\0" + bytes(range(256)) * 4)
    _refused(path, "looks binary: it holds NUL bytes")


def test_bytes_that_are_text_in_no_encoding_are_refused(tmp_path):
    path = tmp_path / "noise.dat"
    noise = random.Random(7).randbytes(4096).replace(b"\0", b"\x01")
    path.write_bytes(noise)
    _refused(path, "not text in any encoding")


def test_a_500_mb_file_is_refused_from_its_size_before_it_is_read(tmp_path):
    path = tmp_path / "huge.txt"
    path.touch()
    os.truncate(path, 500 * 1000 * 1000)  # sparse: no disk used, but 500 MB to read
    tracemalloc.start()
    try:
        _refused(path, "it is 500 MB; files over 50 MB are not attached")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, "refused from its size, not after reading it"


def test_bytes_over_the_cap_are_refused_too():
    with pytest.raises(AttachmentError, match="files over 1 KB are not attached"):
        read_attachment_bytes("paste.txt", b"x" * 1001, AttachmentLimits(max_file_bytes=1000))


def test_an_encrypted_pdf_is_refused_and_one_without_a_user_password_is_read(tmp_path):
    locked = tmp_path / "locked.pdf"
    locked.write_bytes(text_pdf(["top secret"], password="hunter2"))
    _refused(locked, "the PDF is encrypted: it needs a password")
    owner_only = tmp_path / "owner.pdf"
    owner_only.write_bytes(text_pdf(["open to read"], password=""))
    attachment = read_attachment(owner_only)
    assert attachment.text == "open to read"
    assert "the PDF is encrypted but opens without a password" in attachment.notes


def test_an_image_only_pdf_has_no_text_layer_and_is_refused(tmp_path):
    path = tmp_path / "scan.pdf"
    path.write_bytes(image_pdf())
    _refused(path, "the PDF has no text layer (its 1 page hold only images or scans)")


def test_a_pdf_with_only_empty_pages_is_refused(tmp_path):
    path = tmp_path / "blank.pdf"
    path.write_bytes(text_pdf(["", ""]))
    _refused(path, "no text layer")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"Hello, this is a text file saved as .pdf by mistake\n", "not a PDF: it does not start with %PDF-"),
        (b"%PDF-1.7\n" + b"\x93garbage that is no PDF structure " * 50, "a damaged PDF"),
    ],
    ids=["text-named-pdf", "truncated-pdf"],
)
def test_a_pdf_that_is_not_a_pdf_is_refused(tmp_path, data, match):
    path = tmp_path / "report.pdf"
    path.write_bytes(data)
    _refused(path, match)


def test_a_cut_off_pdf_is_refused(tmp_path):
    path = tmp_path / "cut.pdf"
    whole = text_pdf(["page one", "page two"])
    path.write_bytes(whole[: len(whole) // 3])
    with pytest.raises(AttachmentError) as caught:
        read_attachment(path)
    assert "\n" not in str(caught.value) and "cut.pdf" in str(caught.value)


def test_invalid_utf8_in_a_bom_file_is_refused(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"\xef\xbb\xbfok then \xff\xfe broken")
    _refused(path, "not valid utf-8 despite its byte-order mark")


def test_a_symlink_loop_attached_itself_is_refused(tmp_path):
    os.symlink(tmp_path / "b", tmp_path / "a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    _refused(tmp_path / "a", "a loop of symbolic links")


def test_missing_empty_and_special_files_are_refused(tmp_path):
    _refused(tmp_path / "gone.txt", "no such file or folder")
    (tmp_path / "empty.txt").touch()
    _refused(tmp_path / "empty.txt", "the file is empty")
    (tmp_path / "blank.md").write_text("  \n\n\t\n", encoding="utf-8")
    _refused(tmp_path / "blank.md", "it holds no text")
    os.mkfifo(tmp_path / "pipe")
    _refused(tmp_path / "pipe", "not a regular file")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "x.bin").write_bytes(bytes(10))
    _refused(tmp_path / "dir", "the folder has no text files (1 binary files left out)")


def test_a_name_from_a_client_loses_its_directories():
    attachment = read_attachment_bytes("../../etc/C:\\Users\\me\\notes.txt", b"hello")
    assert attachment.name == "notes.txt"
