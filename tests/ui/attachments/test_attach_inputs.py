"""Attaching in the window without a model: the paperclip, drops, pastes, the chips and the bad inputs.

Every file is a real one made in the test; the platform's file dialog is the
only thing replaced (by what a person would pick in it).
"""

from __future__ import annotations

import os

from PySide6.QtCore import QMimeData, Qt
from PySide6.QtTest import QTest

from tests.ui.attachments.files import code_folder, encrypted_pdf, text_pdf
from tests.ui.attachments.steps import chip_names, click_paperclip, drop, paste, urls_mime, wait_read


def test_the_paperclip_attaches_several_files_as_chips_and_x_removes_one(make_window, qtbot, monkeypatch, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe launch is on Tuesday.\n" * 20)
    report = tmp_path / "report.pdf"
    report.write_bytes(text_pdf(["The first page says hello.", "The second page says goodbye."]))
    window = make_window()
    click_paperclip(qtbot, monkeypatch, window, [notes, report])
    wait_read(qtbot, window)
    names = chip_names(window)
    assert len(names) == 2
    assert names[0].startswith("notes.md · ") and "tokens" in names[0]
    assert names[1].startswith("report.pdf · ") and ("KiB" in names[1] or " B · " in names[1])
    assert window.chat.attachments.isVisible()
    assert not window.chat.banner.isVisible()

    # × takes one off; the other stays for the next message.
    qtbot.mouseClick(window.chat.attachments.chips[0].remove, Qt.MouseButton.LeftButton)
    assert [a.name for a in window.controller.attachments.attachments()] == ["report.pdf"]
    qtbot.waitUntil(lambda: len(window.chat.attachments.chips) == 1)

    # The name opens the extracted text, its pages listed.
    qtbot.mouseClick(window.chat.attachments.chips[0].name, Qt.MouseButton.LeftButton)
    dialog = window.controller.attachments.dialog
    assert dialog is not None and dialog.isVisible()
    assert "second page says goodbye" in dialog.text.toPlainText()
    assert [dialog.sections.item(i).text() for i in range(dialog.sections.count())] == ["p. 1", "p. 2"]
    dialog.close()


def test_the_same_file_twice_is_one_chip(make_window, qtbot, monkeypatch, tmp_path):
    one = tmp_path / "a.txt"
    one.write_text("same words")
    two = tmp_path / "copy-of-a.txt"
    two.write_text("same words")
    window = make_window()
    click_paperclip(qtbot, monkeypatch, window, [one, two])
    wait_read(qtbot, window)
    assert len(chip_names(window)) == 1


def test_the_folder_entry_attaches_a_folder_with_its_gitignore_and_a_symlink_loop(
    make_window, qtbot, monkeypatch, tmp_path
):
    from PySide6.QtWidgets import QFileDialog

    folder = code_folder(tmp_path / "demo")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder)))
    window = make_window()
    window.chat.paperclip.folder_action.trigger()
    wait_read(qtbot, window)
    assert chip_names(window)[0].startswith("demo · ")
    (attachment,) = window.controller.attachments.attachments()
    text = attachment.text
    assert "def greet" in text and "A folder attached" in text
    assert "ignored" not in text  # build/ and *.log are in the .gitignore
    labels = [s.label for s in attachment.sections]
    assert "src/app.py" in labels and "README.md" in labels
    assert not window.chat.banner.isVisible()


def test_dropping_files_on_the_view_and_the_prompt_box_attaches_them(make_window, qtbot, tmp_path):
    first = tmp_path / "first.txt"
    first.write_text("dropped on the conversation")
    second = tmp_path / "second.py"
    second.write_text("print('dropped on the prompt')\n")
    window = make_window()
    window.chat.prompt.setPlainText("keep me")
    assert drop(window.chat.view.viewport(), urls_mime([first]))
    wait_read(qtbot, window)
    assert drop(window.chat.prompt.viewport(), urls_mime([second]))
    wait_read(qtbot, window)
    assert [a.name for a in window.controller.attachments.attachments()] == ["first.txt", "second.py"]
    assert window.chat.prompt.toPlainText() == "keep me"  # the file's path was not typed into the prompt


def test_pasting_a_file_attaches_it_and_pasting_text_still_pastes_text(make_window, qtbot, tmp_path):
    pasted = tmp_path / "pasted.md"
    pasted.write_text("# Pasted\n")
    window = make_window()
    paste(window, urls_mime([pasted]))
    wait_read(qtbot, window)
    assert [a.name for a in window.controller.attachments.attachments()] == ["pasted.md"]
    assert window.chat.prompt.toPlainText() == ""

    text = QMimeData()
    text.setText("plain words")
    paste(window, text)
    assert window.chat.prompt.toPlainText() == "plain words"
    assert len(window.controller.attachments.attachments()) == 1

    data = QMimeData()  # file data with no path (a browser's copied file)
    data.setData("application/pdf", text_pdf(["clipboard page"]))
    paste(window, data)
    wait_read(qtbot, window)
    assert [a.name for a in window.controller.attachments.attachments()] == ["pasted.md", "pasted.pdf"]


def _refused(window, qtbot, monkeypatch, files) -> str:
    click_paperclip(qtbot, monkeypatch, window, files)
    wait_read(qtbot, window)
    assert window.controller.attachments.attachments() == ()
    assert window.chat.attachments.chips == []
    assert window.chat.banner.isVisible()
    message = window.chat.banner.text.text()
    assert "\n" not in message and message
    window.chat.banner.hide()
    return message


def test_bad_files_are_refused_with_one_line_and_nothing_attached(make_window, qtbot, monkeypatch, tmp_path):
    window = make_window()
    binary = tmp_path / "photo.raw"
    binary.write_bytes(b"\xff\xd8\xff\xe0\0\x10JFIF\0" + os.urandom(2000))
    assert "binary" in _refused(window, qtbot, monkeypatch, [binary])
    # A .jpg goes as an image (for the projector), checked as the engine checks one.
    fake = tmp_path / "photo.jpg"
    fake.write_bytes(b"\x89PNG but not really" + os.urandom(200))
    assert _refused(window, qtbot, monkeypatch, [fake]) == "photo.jpg is not a PNG or JPEG image"

    huge = tmp_path / "huge.log"
    with huge.open("wb") as file:
        file.truncate(500 * 1024 * 1024)  # sparse: 500 MB on paper, nothing on the disk
    assert "huge.log" in _refused(window, qtbot, monkeypatch, [huge])

    locked = encrypted_pdf(tmp_path / "locked.pdf")
    assert "encrypted" in _refused(window, qtbot, monkeypatch, [locked])

    scanned = tmp_path / "scan.pdf"
    scanned.write_bytes(text_pdf([" "]))
    assert "text" in _refused(window, qtbot, monkeypatch, [scanned])

    # One bad file in a batch: none of the batch is attached.
    good = tmp_path / "good.txt"
    good.write_text("fine")
    gone = tmp_path / "gone.txt"
    assert "gone.txt" in _refused(window, qtbot, monkeypatch, [good, gone])

    # The chat is still usable: typing works, a good file attaches.
    QTest.keyClicks(window.chat.prompt, "still here")
    click_paperclip(qtbot, monkeypatch, window, [good])
    wait_read(qtbot, window)
    assert chip_names(window)[0].startswith("good.txt")
    assert window.chat.prompt.toPlainText() == "still here"


def test_a_guessed_encoding_is_noted_in_the_text_dialog_and_ctrl_f_finds(make_window, qtbot, monkeypatch, tmp_path):
    legacy = tmp_path / "legacy.txt"
    legacy.write_bytes(("Café crème, déjà vu, naïve façade. " * 30).encode("cp1252"))
    window = make_window()
    click_paperclip(qtbot, monkeypatch, window, [legacy])
    wait_read(qtbot, window)
    qtbot.mouseClick(window.chat.attachments.chips[0].name, Qt.MouseButton.LeftButton)
    dialog = window.controller.attachments.dialog
    assert dialog is not None
    (attachment,) = window.controller.attachments.attachments()
    assert dialog.text.toPlainText() == attachment.text and "Caf" in attachment.text
    assert attachment.notes and all(note in dialog.notes.text() for note in attachment.notes)  # the guess is said
    assert attachment.encoding and attachment.encoding in dialog.facts.text()
    qtbot.waitUntil(dialog.isActiveWindow)
    QTest.keyClick(dialog.text, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert dialog.search_bar.isVisible()
    QTest.keyClicks(dialog.search, "vu, na")
    QTest.keyClick(dialog.search, Qt.Key.Key_Return)
    assert dialog.text.textCursor().selectedText() == "vu, na"
    first = dialog.text.textCursor().position()
    QTest.keyClick(dialog.search, Qt.Key.Key_Return)
    assert dialog.text.textCursor().position() > first  # Enter again: the next one
    assert not dialog.find_text("not in the text")
    dialog.close()
