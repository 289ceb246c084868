"""Images waiting in the prompt: their chips (a thumbnail, name, size, ×), the checks before one is taken, sending.

An image arrives from the paperclip, a drop or a paste
(:class:`~app.ui.chat.attachments.flow.AttachmentFlow` routes it here). It
is refused, in one line on the chat's banner, when the loaded pair cannot read
images (the engine's own words: no projector), when it is not a PNG or JPEG or
is too big (the engine's words again), or when the message already carries
:data:`~app.core.conversation.images.MAX_IMAGES_PER_MESSAGE`; the prompt's text is never touched.
Send stores the images with the user's message (an edited message keeps its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, Qt, Signal
from PySide6.QtGui import QImage, QImageWriter, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from app.core.conversation.images import MAX_IMAGES_PER_MESSAGE, ImageInput, image_mime
from app.engine.llama.vision import ImageError, check_image
from app.engine.store.conversations import StoredMessage
from app.ui.chat.attachments.bar import AttachmentRow
from app.ui.chat.panel import ChatPanel
from app.ui.i18n.words import say_error

THUMBNAIL_PX = 48  # a chip's thumbnail: the longer side
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def is_image_path(path: Path) -> bool:
    """Whether a picked or dropped file is sent as an image (by its name: the bytes are checked when read)."""
    return path.suffix.lower() in IMAGE_SUFFIXES


def thumbnail(data: bytes, side: int) -> QPixmap:
    """``data`` scaled to fit ``side`` pixels (an empty pixmap when Qt cannot decode it)."""
    image = QImage.fromData(data)
    if image.isNull():
        return QPixmap()
    return QPixmap.fromImage(
        image.scaled(side, side, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
    )


def png_of(image: QImage) -> bytes:
    """A pasted picture as PNG bytes."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    QImageWriter(buffer, QByteArray(b"png")).write(image)
    return bytes(buffer.data().data())


def read_image(path: Path) -> ImageInput:
    """The image at ``path``, checked as the engine checks it; :class:`ImageError` in one line otherwise."""
    data = path.read_bytes()
    check_image(data, path.name)
    return ImageInput(name=path.name, data=data, mime=image_mime(data) or "image/png")


class ImageChip(QFrame):
    """One pending image: a thumbnail, its name and size, and ×."""

    removed = Signal(object)  # the chip

    def __init__(self, image: ImageInput, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image = image
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 1, 2, 1)
        layout.setSpacing(4)
        self.thumbnail = QLabel()
        self.thumbnail.setPixmap(thumbnail(image.data, THUMBNAIL_PX))
        self.label = QLabel(f"{image.name} · {_size(len(image.data))}")
        self.label.setAccessibleName(self.tr("image {name}").format(name=image.name))
        self.remove = QToolButton()
        self.remove.setText("×")
        self.remove.setAutoRaise(True)
        self.remove.setToolTip(self.tr("remove this image"))
        self.remove.setAccessibleName(self.tr("Remove {name}").format(name=image.name))
        self.remove.clicked.connect(lambda: self.removed.emit(self))
        layout.addWidget(self.thumbnail)
        layout.addWidget(self.label)
        layout.addWidget(self.remove)


def _size(n: int) -> str:
    return f"{n / 1024:.0f} KB" if n < 1024 * 1024 else f"{n / (1024 * 1024):.1f} MB"


class PendingImages(QObject):
    """The images the next message carries, shown as chips on the attachments' row."""

    changed = Signal()

    def __init__(self, panel: ChatPanel, row: AttachmentRow) -> None:
        super().__init__(panel)
        self.panel = panel
        self.row = row
        self.chips: list[ImageChip] = []
        # Why the loaded pair cannot read images (one line), or None when it can or cannot be told yet.
        self.refusal: Callable[[], str | None] = lambda: None

    def images(self) -> tuple[ImageInput, ...]:
        """What the next message carries, in the order added."""
        return tuple(chip.image for chip in self.chips)

    def attach_pasted(self, image: QImage) -> None:
        """A picture pasted from the clipboard (sent as PNG)."""
        if self.refused():
            return
        try:
            data = png_of(image)
            check_image(data, self.tr("pasted image"))
        except ImageError as exc:
            self.panel.banner.show_message(say_error(exc))
            return
        self.add([ImageInput(name="pasted-image.png", data=data)])

    def refused(self) -> bool:
        """Whether the loaded pair cannot take images now (the banner then says why)."""
        reason = self.refusal()
        if reason:
            self.panel.banner.show_message(reason)
        return bool(reason)

    def add(self, images: Sequence[ImageInput]) -> None:
        """Chips for ``images`` (read and checked), each picture once, up to the bound."""
        known = {image.sha256 for image in self.images()}
        for image in images:
            if image.sha256 in known:
                continue  # the same picture twice: once is enough
            if len(self.chips) >= MAX_IMAGES_PER_MESSAGE:
                self.panel.banner.show_message(
                    self.tr("A message carries at most {n} images: {name} was not added").format(
                        n=MAX_IMAGES_PER_MESSAGE, name=image.name
                    )
                )
                break
            known.add(image.sha256)
            chip = ImageChip(image)
            chip.removed.connect(self._remove)
            self.chips.append(chip)
            self.row.add_widget(chip)
        self.changed.emit()

    def failed(self, error: Exception) -> None:
        """Say in one line why an image could not be read."""
        if isinstance(error, OSError):
            message = self.tr("could not read the file: {error}").format(error=error.strerror or error)
        else:
            message = say_error(error)
        self.panel.banner.show_message(message)

    def _remove(self, chip: ImageChip) -> None:
        if chip in self.chips:
            self.chips.remove(chip)
        self.row.remove_widget(chip)
        self.changed.emit()

    def for_message(self, editing: StoredMessage | None) -> tuple[ImageInput, ...]:
        """The images of the message being sent: an edited message's own, then the chips' (at most the bound)."""
        kept = editing.images if editing is not None else ()
        digests = {image.sha256 for image in kept}
        return (*kept, *(image for image in self.images() if image.sha256 not in digests))[:MAX_IMAGES_PER_MESSAGE]

    def clear(self) -> None:
        """The message was stored (or the chat reset): the chips go."""
        for chip in list(self.chips):
            self._remove(chip)
