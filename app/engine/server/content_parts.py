"""A chat message's content parts, as OpenAI's chat API sends them: text, and documents as base64 ``file`` parts.

``{"type": "text", "text": ...}`` parts are joined into the message's text;
``{"type": "file", "file": {"file_data": ..., "filename": ...}}`` parts are
decoded (a ``data:<type>;base64,`` URL or bare base64) and read with
:func:`~app.engine.attachments.read_attachment_bytes`, the extraction the window
and ``chat --attach`` use, into the message's attachments. The base64 is
bounded by the request body's own limit, which is checked before any JSON is
parsed. An ``image_url`` part carries an image as a ``data:`` URL; it becomes one
of the message's images, read later by the target's projector (a target without
one refuses it then). An ``http(s):`` URL is refused: the server fetches nothing.
Each refusal is a 400 naming the part (``messages[0].content[1]``) and what is wrong.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.core.attachments.record import Attachment
from app.core.conversation.images import ImageInput
from app.engine.attachments import AttachmentError, read_attachment_bytes

_DATA_URL = re.compile(r"data:[^,;]*(?:;[^,;]*)*;base64,", re.IGNORECASE)
_IMAGE_DATA_URL = re.compile(r"data:(image/[a-z0-9.+-]+)(?:;[^,;]*)*;base64,", re.IGNORECASE)


class PartError(ValueError):
    """A content part the server refuses: ``where`` names it, the message says why."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where
        self.message = message


@dataclass(frozen=True, slots=True)
class MessageParts:
    """A message's content parts read: its text, its documents as attachments, its images (each in order)."""

    text: str
    attachments: tuple[Attachment, ...] = ()
    images: tuple[ImageInput, ...] = ()


def read_parts(parts: list[Any], where: str, role: str, cancelled: Callable[[], bool] | None = None) -> MessageParts:
    """The text of ``parts`` joined, the documents among them read as attachments, the images taken as sent.

    ``cancelled`` is handed to each document's reader, which ends early once it is true.
    """
    texts: list[str] = []
    attachments: list[Attachment] = []
    images: list[ImageInput] = []
    for index, part in enumerate(parts):
        at = f"{where}.content[{index}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "file":
            if role != "user":
                raise PartError(at, f"{at}: files may only be attached to a user message, not a {role} message")
            attachments.append(_file(part.get("file"), at, cancelled))
        elif kind == "image_url":
            if role != "user":
                raise PartError(at, f"{at}: images may only be sent in a user message, not a {role} message")
            images.append(_image(part.get("image_url"), at, len(images)))
        elif kind in ("input_image", "image"):
            raise PartError(at, f"{at}: send an image as an 'image_url' part with a data: URL")
        else:
            raise PartError(at, f"{at} must be a text, file or image_url part, not {kind!r}")
    return MessageParts("".join(texts), tuple(attachments), tuple(images))


def _image(raw: object, at: str, index: int) -> ImageInput:
    """One ``image_url`` part's image, from its ``data:`` URL; nothing is fetched from anywhere."""
    url = raw.get("url") if isinstance(raw, dict) else raw if isinstance(raw, str) else None
    if not isinstance(url, str) or not url:
        raise PartError(at, f"{at}.image_url must be an object with a 'url'")
    found = _IMAGE_DATA_URL.match(url)
    if found is None:
        if url.lower().startswith(("http:", "https:")):
            raise PartError(at, f"{at}.image_url: this server fetches nothing; send the image as a data: URL")
        raise PartError(at, f"{at}.image_url.url must be a data:image/...;base64, URL")
    try:
        data = base64.b64decode(url[found.end() :], validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PartError(at, f"{at}.image_url.url is not valid base64 ({exc})") from exc
    mime = found.group(1).lower()
    return ImageInput(name=f"image {index + 1}", data=data, mime=mime)


def _file(raw: object, at: str, cancelled: Callable[[], bool] | None) -> Attachment:
    """One ``file`` part read as an attachment; :class:`PartError` for anything that is not one."""
    if not isinstance(raw, dict):
        raise PartError(at, f"{at}.file must be an object with 'file_data' and 'filename'")
    if raw.get("file_data") is None and raw.get("file_id") is not None:
        raise PartError(at, f"{at}.file: this server keeps no uploaded files; send the file's bytes as 'file_data'")
    data, name = raw.get("file_data"), raw.get("filename")
    if not isinstance(data, str) or not data:
        raise PartError(at, f"{at}.file.file_data must be the file's bytes in base64")
    if name is not None and not isinstance(name, str):
        raise PartError(at, f"{at}.file.filename must be a string")
    prefix = _DATA_URL.match(data)
    encoded = data[prefix.end() :] if prefix else data
    try:
        content = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PartError(at, f"{at}.file.file_data is not valid base64 ({exc})") from exc
    try:
        return read_attachment_bytes(name or "attachment", content, cancelled=cancelled)
    except AttachmentError as exc:
        raise PartError(at, f"{at}: {exc}") from exc
