"""Images sent with messages, as the store keeps them: each picture's bytes once (by SHA-256), linked to its messages.

A message's images are written with the message, in its transaction
(:meth:`~app.engine.store.tree.MessageTree.add_message` calls
:func:`link_images`): a picture already stored under its hash is linked, not
stored again, and each link keeps the name it was sent under and its
position. :func:`read_images` fills
:attr:`~app.engine.store.tree.StoredMessage.images` on read. The schema's
trigger removes a picture with its last link.

:class:`ImageSummary` is an image without its bytes: what an export and a
listing say of it.
"""

from __future__ import annotations

import sqlite3
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.conversation.images import (
    MAX_IMAGE_BYTES,
    MAX_IMAGES_PER_MESSAGE,
    ImageInput,
    image_dimensions,
    image_mime,
)
from app.engine.store.linked import linked_rows


@dataclass(frozen=True, slots=True)
class ImageSummary:
    """An image as an export or a listing names it: name, type, bytes, pixels and hash, without the bytes."""

    name: str
    mime: str
    size: int
    width: int
    height: int
    sha256: str

    @classmethod
    def of(cls, image: ImageInput) -> ImageSummary:
        """The summary of an image (0 x 0 when its header says no size)."""
        width, height = image_dimensions(image.data) or (0, 0)
        return cls(
            name=image.name, mime=image.mime, size=len(image.data), width=width, height=height, sha256=image.sha256
        )

    def to_json(self) -> dict[str, Any]:
        """``{"name", "mime", "size", "width", "height", "sha256"}``."""
        return {
            "name": self.name,
            "mime": self.mime,
            "size": self.size,
            "width": self.width,
            "height": self.height,
            "sha256": self.sha256,
        }

    def line(self) -> str:
        """How a transcript stands for the picture: ``[image: cat.png, 640×480]``."""
        return f"[image: {self.name}, {self.width}×{self.height}]"


def check_images(images: Sequence[ImageInput]) -> None:
    """ValueError in one line when ``images`` break the store's bounds (count, bytes, PNG or JPEG)."""
    if len(images) > MAX_IMAGES_PER_MESSAGE:
        raise ValueError(f"a message carries at most {MAX_IMAGES_PER_MESSAGE} images, not {len(images)}")
    for image in images:
        if len(image.data) > MAX_IMAGE_BYTES:
            raise ValueError(f"{image.name} is over {MAX_IMAGE_BYTES // (1024 * 1024)} MB")
        if image_mime(image.data) is None:
            raise ValueError(f"{image.name} is not a PNG or JPEG image")


def image_bytes(images: Sequence[ImageInput]) -> int:
    """About how many bytes storing ``images`` needs, for the full-disk message."""
    return sum(len(image.data) + 256 for image in images)


def link_images(db: sqlite3.Connection, message_id: int, images: Sequence[ImageInput]) -> None:
    """Store each picture not yet stored and link them all to the message, in order (inside a transaction)."""
    check_images(images)
    now = time.time()
    for position, image in enumerate(images):
        width, height = image_dimensions(image.data) or (0, 0)
        mime = image_mime(image.data) or image.mime
        db.execute(
            "INSERT INTO images(sha256, mime, size, width, height, data, created) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(sha256) DO NOTHING",
            (image.sha256, mime, len(image.data), width, height, sqlite3.Binary(image.data), now),
        )
        row = db.execute("SELECT id FROM images WHERE sha256=?", (image.sha256,)).fetchone()
        db.execute(
            "INSERT INTO message_images(message_id, position, image_id, name) VALUES (?, ?, ?, ?)",
            (message_id, position, int(row[0]), image.name),
        )


def read_images(db: sqlite3.Connection, message_ids: Iterable[int]) -> dict[int, tuple[ImageInput, ...]]:
    """Each message's images, in the order sent, named as each link names them (messages without: absent).

    A row whose bytes are not a blob (a hand edit) is skipped rather than refused.
    """
    found: dict[int, list[ImageInput]] = defaultdict(list)
    select = "SELECT l.message_id, l.name, i.mime, i.data FROM message_images l JOIN images i ON i.id = l.image_id"
    for message_id, name, mime, data in linked_rows(db, select, message_ids):
        if not isinstance(data, bytes):
            continue
        found[int(message_id)].append(ImageInput(name=str(name), data=data, mime=str(mime)))
    return {message_id: tuple(items) for message_id, items in found.items()}
