"""Reading real files into attachments: each kind, encodings detected rather than assumed, folders and their caps."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.attachments.record import AttachmentKind
from app.engine.attachments import AttachmentLimits, read_attachment, read_attachment_bytes
from app.engine.attachments.folder import header
from tests.engine.attachments.pdfs import text_pdf


def test_plain_text_markdown_and_code_are_read_as_utf8_without_notes(tmp_path):
    (tmp_path / "notes.txt").write_text("plain words\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# Title\n\nsome *markdown* ✓\n", encoding="utf-8")
    (tmp_path / "app.py").write_text("def f():\n    return 'héllo'\n", encoding="utf-8")
    kinds = {name: read_attachment(tmp_path / name) for name in ("notes.txt", "README.md", "app.py")}
    assert kinds["notes.txt"].kind is AttachmentKind.TEXT
    assert kinds["README.md"].kind is AttachmentKind.MARKDOWN
    assert kinds["app.py"].kind is AttachmentKind.CODE
    assert kinds["README.md"].text == "# Title\n\nsome *markdown* ✓\n"
    for attachment in kinds.values():
        assert attachment.encoding == "utf-8" and attachment.notes == ()
        assert attachment.size == (tmp_path / attachment.name).stat().st_size
    import hashlib

    assert kinds["app.py"].sha256 == hashlib.sha256((tmp_path / "app.py").read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("text", "encoding", "sure"),
    [
        ("Привет, как дела? Это проверка кодировки файла.", "cp1251", "как дела? Это проверка кодировки файла."),
        # Latin-1 and Central European code pages share these letters; ï is where they differ, so it may be wrong.
        ("Grüße aus Köln, café, naïve façade.", "latin-1", "Grüße aus Köln, café,"),
    ],
)
def test_a_non_utf8_file_is_decoded_as_detected_and_the_guess_is_said(tmp_path, text, encoding, sure):
    path = tmp_path / "legacy.txt"
    path.write_bytes(((text + "\n") * 5).encode(encoding))
    attachment = read_attachment(path)
    assert attachment.text.count(sure) == 5 and attachment.text.count("\n") == 5
    assert attachment.encoding not in (None, "utf-8")
    assert any("detected" in note and attachment.encoding in note for note in attachment.notes)


def test_utf16_with_a_byte_order_mark_is_certain_not_binary(tmp_path):
    path = tmp_path / "win.txt"
    path.write_bytes("hello wörld\r\n".encode("utf-16"))
    attachment = read_attachment(path)
    assert attachment.text == "hello wörld\r\n"
    assert attachment.encoding == "utf-16" and attachment.notes == ()


def test_a_pdf_gives_its_text_layer_with_a_section_per_page_and_names_empty_pages(tmp_path):
    path = tmp_path / "report.pdf"
    path.write_bytes(text_pdf(["Quarterly report\nrevenue grew", "", "Appendix: figures"]))
    attachment = read_attachment(path)
    assert attachment.kind is AttachmentKind.PDF
    assert [s.label for s in attachment.sections] == ["p. 1", "p. 3"]
    assert "Quarterly report" in attachment.text and "Appendix: figures" in attachment.text
    assert attachment.cite(attachment.text.index("Appendix")) == "report.pdf, p. 3"
    assert attachment.cite(0) == "report.pdf, p. 1"
    assert attachment.notes == ("1 of 3 pages have no text layer: p. 2",)


def test_a_pdf_sent_as_bytes_without_its_suffix_is_still_a_pdf():
    attachment = read_attachment_bytes("upload", text_pdf(["from a client"]))
    assert attachment.kind is AttachmentKind.PDF and attachment.text == "from a client"


def test_html_is_read_as_the_text_a_reader_sees():
    page = (
        "<!DOCTYPE html><html><head><title>Docs</title><style>p{color:red}</style></head><body>"
        "<h1>Install</h1><p>Run <code>pip install</code> now.</p><script>alert(1)</script>"
        "<ul><li>one</li><li>two</li></ul></body></html>"
    )
    attachment = read_attachment_bytes("page.html", page.encode("utf-8"))
    assert attachment.kind is AttachmentKind.HTML
    assert attachment.text == "Install\nRun pip install now.\none\ntwo"
    assert "alert" not in attachment.text and "color" not in attachment.text
    assert "the page's title: Docs" in attachment.notes


def test_text_over_the_cap_is_cut_and_the_cut_is_said(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("word " * 1000, encoding="utf-8")
    attachment = read_attachment(path, AttachmentLimits(max_text_chars=100))
    assert len(attachment.text) == 100
    assert attachment.notes == ("the text is cut at 100 characters (of 5,000)",)
    assert attachment.size == 5000  # the original's size, not the text's


def _repo(root: Path) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "build").mkdir()
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    (root / "src" / ".gitignore").write_text("secret.py\n", encoding="utf-8")
    (root / "README.md").write_text("# demo\n", encoding="utf-8")
    (root / "src" / "main.py").write_text("print('main')\n", encoding="utf-8")
    (root / "src" / "pkg" / "util.py").write_text("X = 1", encoding="utf-8")
    (root / "src" / "secret.py").write_text("KEY = 'no'\n", encoding="utf-8")
    (root / "build" / "out.py").write_text("generated\n", encoding="utf-8")
    (root / "debug.log").write_text("noise\n", encoding="utf-8")
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(64))


def test_a_folder_keeps_its_text_files_respects_gitignore_and_says_what_it_left_out(tmp_path):
    root = tmp_path / "demo"
    root.mkdir()
    _repo(root)
    attachment = read_attachment(root)
    assert attachment.kind is AttachmentKind.FOLDER and attachment.name == "demo"
    labels = [s.label for s in attachment.sections]
    assert labels == [".gitignore", "README.md", "src/.gitignore", "src/main.py", "src/pkg/util.py"]
    for section in attachment.sections:
        assert attachment.text.startswith(header(section.label), section.start)
    assert "KEY" not in attachment.text and "generated" not in attachment.text and "refs/heads" not in attachment.text
    assert attachment.cite(attachment.text.index("print('main')")) == "demo/src/main.py"
    assert "1 binary files left out" in attachment.notes
    assert "3 files or folders left out by .gitignore" in attachment.notes
    assert attachment.encoding == "utf-8"


def test_a_folder_over_its_caps_leaves_files_out_and_says_so(tmp_path):
    root = tmp_path / "big"
    root.mkdir()
    for i in range(12):
        (root / f"f{i:02}.py").write_text("x" * 100 + "\n", encoding="utf-8")
    by_count = read_attachment(root, AttachmentLimits(folder_max_files=5))
    assert len(by_count.sections) == 5
    assert "7 files left out: a folder is capped at 5 files" in by_count.notes
    by_size = read_attachment(root, AttachmentLimits(folder_max_bytes=1000))
    assert len(by_size.sections) == 9  # 9 x 101 bytes fit in 1,000
    assert "3 files left out: the folder's text is capped at 1 KB" in by_size.notes
    assert by_size.size == 9 * 101


def test_a_folder_with_a_symlink_loop_is_walked_once_and_the_links_are_said(tmp_path):
    root = tmp_path / "loop"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "code.py").write_text("pass\n", encoding="utf-8")
    os.symlink(root, root / "sub" / "back")  # a folder link back up: following it would never end
    os.symlink(root / "a", root / "b")
    os.symlink(root / "b", root / "a")  # two file links pointing at each other
    (root / "inside.py").symlink_to(root / "sub" / "code.py")
    attachment = read_attachment(root)
    assert [s.label for s in attachment.sections] == ["inside.py", "sub/code.py"]
    assert any(note.startswith("3 symbolic links not followed") for note in attachment.notes)


def test_the_same_folder_hashes_the_same_and_a_changed_file_changes_the_hash(tmp_path):
    root = tmp_path / "h"
    root.mkdir()
    (root / "a.py").write_text("a\n", encoding="utf-8")
    first = read_attachment(root).sha256
    assert read_attachment(root).sha256 == first
    (root / "a.py").write_text("b\n", encoding="utf-8")
    assert read_attachment(root).sha256 != first
