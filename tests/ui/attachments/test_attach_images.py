"""Images in the window on the SmolLM2 pair with a SYNTHETIC projector (random weights; no small real one is reachable).

The projector is written beside a copy of the target in a temporary folder
(never into the models folder), so the window's pair finds it as a user's
would. Proved here: an image attached, pasted or dropped becomes a chip, is
sent with the message, its positions (16 for this projector) precede the
reply's prompt text, it is stored and shown as a thumbnail, an edit keeps it,
and a reopened window reads it back; a pair without a projector refuses the
image in the engine's words, before sending, leaving the prompt as it was.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtGui import QImage, QTextDocument
from pytestqt.qtbot import QtBot

from app.core.reply.record import ReplyRecord
from app.ui.chat.attachments.lines import image_resource
from app.ui.chat.controller import Activity
from app.ui.main_window import MainWindow
from tests.fixtures.synthetic_projector import png_bytes, write_projector_for
from tests.ui.attachments.steps import click_paperclip, drop, paste, urls_mime
from tests.ui.helpers import Recorder, click_action, load, pair_choice, send

IMAGE_POSITIONS = 16  # what the synthetic projector gives any picture


@pytest.fixture(scope="module")
def small_pair(small_pair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """The small pair, its target a copy with a synthetic ``mmproj`` beside it (the module's window loads this)."""
    folder = tmp_path_factory.mktemp("vision-pair")
    target = folder / small_pair[0].name
    shutil.copyfile(small_pair[0], target)
    write_projector_for(target, folder / "mmproj-synthetic.gguf")
    yield target, small_pair[1]


def _picture(folder: Path, name: str = "cat.png", seed: int = 3) -> Path:
    path = folder / name
    path.write_bytes(png_bytes(40, 30, seed=seed))
    return path


def _chips(window: MainWindow) -> list[str]:
    return [chip.image.name for chip in window.controller.attachments.images.chips]


def _wait_chips(qtbot: QtBot, window: MainWindow, n: int) -> None:
    qtbot.waitUntil(lambda: len(_chips(window)) == n, timeout=30_000)


def _prompt_tokens(window: MainWindow) -> int:
    reply = window.store.messages(window.controller.conversation_id or 0)[-1]
    tokens = ReplyRecord.from_meta(reply.meta).prompt_tokens
    assert tokens is not None
    return tokens


def test_an_attached_image_is_sent_read_before_the_text_stored_and_shown(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    window.settings_panel.max_tokens.setValue(6)
    recorder = Recorder(window)
    send(qtbot, window, "Describe it.", recorder)
    without = _prompt_tokens(window)
    window.controller.new_conversation()

    click_paperclip(qtbot, monkeypatch, window, [_picture(tmp_path)])
    _wait_chips(qtbot, window, 1)
    assert window.chat.attachments.isVisible() and not window.chat.banner.isVisible()
    send(qtbot, window, "Describe it.", recorder)
    with_image = _prompt_tokens(window)
    assert with_image - without == IMAGE_POSITIONS  # the image's positions came before the text
    assert _chips(window) == []
    # Regenerating the reply reads the stored message again, its image with it.
    with qtbot.waitSignal(recorder.ended, timeout=300_000):
        click_action(window, "regenerate", 1)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=60_000)
    assert len(window.store.siblings(window.store.messages(window.controller.conversation_id or 0)[-1].id)) == 2
    assert _prompt_tokens(window) == with_image

    stored = window.store.messages(window.controller.conversation_id or 0)
    assert [i.name for i in stored[0].images] == ["cat.png"] and stored[0].images[0].data == png_bytes(40, 30, seed=3)
    view = window.chat.view
    assert view.messages[0].images == stored[0].images
    thumbnail = view.document().resource(QTextDocument.ResourceType.ImageResource, image_resource(stored[0].images[0]))
    assert isinstance(thumbnail, QImage) and not thumbnail.isNull()

    # An edit of the message (a new branch) keeps its image; so does the reply to it.
    click_action(window, "edit", 0)
    window.chat.prompt.setPlainText("Describe it briefly.")
    with qtbot.waitSignal(recorder.ended, timeout=300_000):
        qtbot.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(window.store.messages(window.controller.conversation_id or 0)) == 2, timeout=60_000)
    edited = window.store.messages(window.controller.conversation_id or 0)
    assert edited[0].content == "Describe it briefly." and edited[0].images == stored[0].images
    assert _prompt_tokens(window) > IMAGE_POSITIONS


def test_a_pasted_picture_and_a_dropped_file_become_chips_and_x_removes_one(
    window: MainWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    picture = QImage.fromData(png_bytes(20, 10, seed=5))
    mime = QMimeData()
    mime.setImageData(picture)
    window.chat.prompt.setPlainText("kept text")
    paste(window, mime)
    _wait_chips(qtbot, window, 1)
    assert _chips(window) == ["pasted-image.png"]
    assert window.chat.prompt.toPlainText() == "kept text"  # the picture is not pasted as text

    assert drop(window.chat.view.viewport(), urls_mime([_picture(tmp_path, "dog.jpg.png", seed=9)]))
    _wait_chips(qtbot, window, 2)
    chip = window.controller.attachments.images.chips[0]
    assert chip.thumbnail.pixmap() is not None and not chip.thumbnail.pixmap().isNull()
    qtbot.mouseClick(chip.remove, Qt.MouseButton.LeftButton)
    _wait_chips(qtbot, window, 1)
    assert _chips(window) == ["dog.jpg.png"]

    # A picture alone, with no words, is a message too.
    window.settings_panel.max_tokens.setValue(4)
    window.chat.prompt.clear()
    recorder = Recorder(window)
    with qtbot.waitSignal(recorder.ended, timeout=300_000):
        qtbot.mouseClick(window.chat.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.controller.activity is Activity.IDLE, timeout=60_000)
    assert not recorder.errors, recorder.errors
    question = window.store.messages(window.controller.conversation_id or 0)[0]
    assert question.content == "" and [i.name for i in question.images] == ["dog.jpg.png"]
    assert _prompt_tokens(window) > IMAGE_POSITIONS


def test_a_file_that_is_not_an_image_is_refused_in_one_line(window: MainWindow, qtbot: QtBot, tmp_path: Path) -> None:
    fake = tmp_path / "fake.png"
    fake.write_bytes(b"not a picture at all")
    window.chat.prompt.setPlainText("keep me")
    assert drop(window.chat.view.viewport(), urls_mime([fake]))
    qtbot.waitUntil(window.chat.banner.isVisible, timeout=30_000)
    assert window.chat.banner.text.text() == "fake.png is not a PNG or JPEG image"
    assert _chips(window) == [] and window.chat.prompt.toPlainText() == "keep me"


def test_a_restarted_window_shows_the_image_from_the_store(
    make_window: Callable[..., MainWindow],
    small_pair: tuple[Path, Path],
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    window = make_window()
    window.settings_panel.max_tokens.setValue(4)
    load(qtbot, window, pair_choice(small_pair))
    click_paperclip(qtbot, monkeypatch, window, [_picture(tmp_path)])
    _wait_chips(qtbot, window, 1)
    send(qtbot, window, "What is it?", Recorder(window))
    conversation = window.controller.conversation_id
    assert conversation is not None
    window.close()

    reopened = make_window()  # no pair loaded: the chat is read from the database alone
    reopened.conversations.select(conversation)
    qtbot.waitUntil(lambda: reopened.controller.conversation_id == conversation, timeout=10_000)
    shown = reopened.chat.view.messages[0].images
    assert [i.name for i in shown] == ["cat.png"] and shown[0].data == png_bytes(40, 30, seed=3)
    thumbnail = reopened.chat.view.document().resource(
        QTextDocument.ResourceType.ImageResource, image_resource(shown[0])
    )
    assert isinstance(thumbnail, QImage) and not thumbnail.isNull()
    assert "[image: cat.png, 40×30]" in reopened.store.export_markdown(conversation)
