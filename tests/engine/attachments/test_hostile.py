"""Hostile attachments made on the spot: each read ends, bounded in time and memory, with a note or one line.

Every read runs in a thread joined with a generous bound, so a hang fails the
test instead of holding the run.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from app.core.attachments.record import Attachment
from app.engine.attachments import AttachmentError, AttachmentLimits, read_attachment, read_attachment_bytes
from tests.engine.attachments.pdfs import deep_tree_pdf, many_pages_pdf

posix_only = pytest.mark.skipif(os.name == "nt", reason="FIFOs, sockets and device nodes")


def _within_a_minute(read: object) -> Attachment | BaseException:
    """What ``read()`` returns or raises, failing the test if it has not ended within 60 s."""
    result: list[Attachment | BaseException] = []

    def run() -> None:
        try:
            result.append(read())  # type: ignore[operator]
        except BaseException as exc:
            result.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "the read did not end"
    return result[0]


def _attached(read: object) -> Attachment:
    outcome = _within_a_minute(read)
    assert isinstance(outcome, Attachment), outcome
    return outcome


def _refusal(read: object) -> str:
    outcome = _within_a_minute(read)
    assert isinstance(outcome, AttachmentError), outcome
    message = str(outcome)
    assert "\n" not in message
    return message


# -- PDFs --------------------------------------------------------------------------------


def test_a_pdf_of_100000_pages_is_read_up_to_the_page_limit_and_says_so() -> None:
    data = many_pages_pdf(100_000, "a page of the long report")
    assert len(data) < 12_000_000
    attachment = _attached(lambda: read_attachment_bytes("report.pdf", data))
    assert len(attachment.sections) == 2_000 and attachment.sections[-1].label == "p. 2000"
    assert attachment.text.startswith("a page of the long report\n\na page")
    assert "read the first 2,000 pages of 100,000: a PDF is read up to 2,000 pages" in attachment.notes


def test_the_page_limit_is_a_knob_and_inherited_page_attributes_still_give_the_text() -> None:
    data = many_pages_pdf(30, "inherited font", fan_out=7)
    attachment = _attached(lambda: read_attachment_bytes("r.pdf", data, AttachmentLimits(pdf_max_pages=10)))
    assert [s.label for s in attachment.sections] == [f"p. {n}" for n in range(1, 11)]
    assert "read the first 10 pages of 30: a PDF is read up to 10 pages" in attachment.notes
    whole = _attached(lambda: read_attachment_bytes("r.pdf", data))
    assert len(whole.sections) == 30 and not any("read the first" in note for note in whole.notes)


@pytest.mark.parametrize("depth", [150, 5_000])
def test_a_page_tree_nested_past_the_limit_is_refused_in_one_line(depth: int) -> None:
    message = _refusal(lambda: read_attachment_bytes("deep.pdf", deep_tree_pdf(depth)))
    assert message == "cannot attach deep.pdf: a damaged PDF (its page tree is nested deeper than 64 levels)"


def test_a_page_tree_within_the_limit_is_read() -> None:
    assert _attached(lambda: read_attachment_bytes("d.pdf", deep_tree_pdf(40))).text == "found at the bottom"


def test_a_read_past_its_deadline_or_called_off_ends_in_one_line() -> None:
    data = many_pages_pdf(500)
    late = _refusal(lambda: read_attachment_bytes("slow.pdf", data, AttachmentLimits(read_seconds=0.0)))
    assert late == "cannot attach slow.pdf: reading it was stopped: it took longer than 0 s (or was called off)"
    asked = 0

    def cancelled() -> bool:
        nonlocal asked
        asked += 1
        return asked > 100  # the client went away during the read

    message = _refusal(lambda: read_attachment_bytes("slow.pdf", data, cancelled=cancelled))
    assert "reading it was stopped" in message and asked > 100


# -- HTML --------------------------------------------------------------------------------


def test_html_nested_100000_deep_is_read_in_one_pass_and_says_its_structure_was_flattened() -> None:
    page = ("<div>" * 100_000 + "bottom" + "</div>" * 100_000).encode()
    attachment = _attached(lambda: read_attachment_bytes("deep.html", page))
    assert attachment.text == "bottom"
    assert "elements nested deeper than 256 levels are read as plain text (their tags ignored)" in attachment.notes


def test_megabytes_of_unclosed_tags_stop_at_the_tag_cap_with_a_note() -> None:
    page = ("<p><b>x" * 700_000).encode()  # 4.9 MB, 1.4 million tags never closed
    attachment = _attached(lambda: read_attachment_bytes("tags.html", page))
    assert "the page is read up to its first 500,000 tags (the rest was not read)" in attachment.notes
    assert set(attachment.text) <= {"x", "\n"} and attachment.text.count("x") == 250_000


def test_self_closed_tags_and_comments_count_against_the_cap_and_an_endless_title_is_cut() -> None:
    page = ("<title>" + "t" * 50_000 + "<br/><!-- c -->" * 300_000).encode()
    attachment = _attached(lambda: read_attachment_bytes("t.html", page))
    assert "the page is read up to its first 500,000 tags (the rest was not read)" in attachment.notes
    (title,) = [note for note in attachment.notes if note.startswith("the page's title: ")]
    assert title == "the page's title: " + "t" * 1_000


def test_html_text_past_the_cap_stops_the_read_with_one_note() -> None:
    page = ("<p>" + "word " * 2_000 + "</p>").encode()
    attachment = _attached(lambda: read_attachment_bytes("w.html", page, AttachmentLimits(max_text_chars=1_000)))
    assert len(attachment.text) == 1_000
    cuts = [note for note in attachment.notes if "cut" in note]
    assert cuts == ["the text is cut at 1,000 characters (the rest of the page was not read)"]


def test_the_one_pass_reader_keeps_what_a_tree_gave_for_unclosed_and_hidden_parts() -> None:
    page = b"<title> The  page </title><div><p>one<p>two</div>three<noscript>never shown"
    attachment = _attached(lambda: read_attachment_bytes("p.html", page))
    assert attachment.text == "The page onetwo\n\nthree"  # the unclosed <p>s end where their <div> does
    assert attachment.notes == ("the page's title: The  page",)
    table = b"<head><title>T</title></head><table><tr><td>a</td><td>b</td></tr></table><p>x<br>y</p><b>q</b><p>z"
    assert read_attachment_bytes("t.html", table).text == "a b\n\nx\ny\nqz"


# -- files that are not files, and deep folders --------------------------------------------


@posix_only
def test_a_fifo_a_socket_and_a_link_to_a_device_in_a_folder_are_left_out_unopened(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "main.py").write_text("print('hi')\n", encoding="utf-8")
    os.mkfifo(root / "a-pipe.txt")  # opened for reading, a FIFO waits for a writer for ever
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "s.sock"))
    (root / "zero.txt").symlink_to("/dev/zero")  # read, it never ends
    try:
        attachment = _attached(lambda: read_attachment(root))
    finally:
        server.close()
    assert [s.label for s in attachment.sections] == ["main.py"]
    assert "2 FIFOs, devices or sockets left out (not regular files: never opened)" in attachment.notes
    assert any(note.startswith("1 symbolic links not followed") for note in attachment.notes)


@posix_only
def test_a_link_to_a_device_inside_the_folder_is_still_never_opened(tmp_path: Path) -> None:
    root = tmp_path / "dev"
    root.mkdir()
    (root / "ok.md").write_text("fine\n", encoding="utf-8")
    os.mkfifo(root / "pipe")
    (root / "to-pipe.txt").symlink_to(root / "pipe")  # a link inside the folder, to a FIFO
    attachment = _attached(lambda: read_attachment(root))
    assert [s.label for s in attachment.sections] == ["ok.md"]
    assert "2 FIFOs, devices or sockets left out (not regular files: never opened)" in attachment.notes


@posix_only
def test_a_device_node_inside_a_folder_is_left_out_unopened(tmp_path: Path) -> None:
    root = tmp_path / "dev"
    root.mkdir()
    (root / "ok.md").write_text("fine\n", encoding="utf-8")
    try:  # a copy of /dev/zero's node: read, it never ends (before, 5.3 GB and a MemoryError)
        os.mknod(root / "zero.txt", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except (OSError, AttributeError):
        pytest.skip("making a device node needs CAP_MKNOD")
    attachment = _attached(lambda: read_attachment(root))
    assert [s.label for s in attachment.sections] == ["ok.md"]
    assert "1 FIFOs, devices or sockets left out (not regular files: never opened)" in attachment.notes


@posix_only
@pytest.mark.parametrize("special", ["fifo", "device-link"])
def test_a_fifo_or_a_device_attached_itself_is_refused_without_waiting(tmp_path: Path, special: str) -> None:
    path = tmp_path / "thing.txt"
    if special == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    message = _refusal(lambda: read_attachment(path))
    assert message == "cannot attach thing.txt: not a regular file (a device, socket or pipe)"


def test_a_folder_1500_levels_deep_is_walked_to_the_depth_limit_and_says_so(tmp_path: Path) -> None:
    root = tmp_path / "deep"
    root.mkdir()
    (root / "top.txt").write_text("top\n", encoding="utf-8")
    # Made one level at a time through folder descriptors (pathlib's mkdir recurses once per level).
    here = os.open(root, os.O_RDONLY)
    for _ in range(1_500):
        os.mkdir("d", dir_fd=here)
        deeper = os.open("d", os.O_RDONLY, dir_fd=here)
        os.close(here)
        here = deeper
    bottom = os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=here)
    os.write(bottom, b"bottom\n")
    os.close(bottom)
    os.close(here)
    try:
        attachment = _attached(lambda: read_attachment(root))
        shallow = _attached(lambda: read_attachment(root, AttachmentLimits(folder_max_depth=3)))
    finally:
        _remove_nested(root)
    assert [s.label for s in attachment.sections] == ["top.txt"]
    assert "1 folders left out: nested deeper than 64 levels are not entered" in attachment.notes
    assert "1 folders left out: nested deeper than 3 levels are not entered" in shallow.notes


def _remove_nested(root: Path) -> None:
    """Remove the chain of ``d`` folders under ``root`` level by level (``shutil.rmtree`` recurses once per level)."""
    while (root / "d").exists():
        if (root / "d" / "d").exists():
            os.rename(root / "d" / "d", root / "next")
        for leftover in (root / "d").iterdir():
            leftover.unlink()
        (root / "d").rmdir()
        if (root / "next").exists():
            os.rename(root / "next", root / "d")
