"""An image sent with a chat message, and the marker that says where it stands in the message's text."""

from __future__ import annotations

import base64
import hashlib
import re
import struct
from dataclasses import dataclass, field

# A character from Unicode's private use area brackets each marker: no chat text, template or tokenizer
# writes one, and the image's digest inside ties the marker to its image.
_BRACKET = "\ue000"
MARKER = re.compile(_BRACKET + r"image ([0-9a-f]{64})" + _BRACKET)

# The engine refuses bigger files before decoding them; the store and the window hold the same bound.
MAX_IMAGE_BYTES = 32 * 1024 * 1024
# Images one message may carry (each takes a projector's worth of positions in the context).
MAX_IMAGES_PER_MESSAGE = 8


@dataclass(frozen=True, slots=True)
class ImageInput:
    """An image's bytes as sent (PNG or JPEG, not yet checked) and the name it is called by in messages."""

    name: str
    data: bytes = field(repr=False)
    mime: str = "image/png"

    @property
    def sha256(self) -> str:
        """The digest of the bytes: the same picture sent twice is one image."""
        return hashlib.sha256(self.data).hexdigest()

    @property
    def marker(self) -> str:
        """The text that stands for this image inside a rendered prompt (the engine swaps in its positions)."""
        return f"{_BRACKET}image {self.sha256}{_BRACKET}"

    def data_url(self) -> str:
        """The bytes as a ``data:`` URL, as OpenAI's ``image_url`` parts carry them."""
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"


def image_mime(data: bytes) -> str | None:
    """``image/png`` or ``image/jpeg`` from the bytes' signature, or None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    return None


def image_dimensions(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from a PNG's or JPEG's header, or None when ``data`` is neither."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24 and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data.startswith(b"\xff\xd8"):
        return _jpeg_dimensions(data)
    return None


def _jpeg_dimensions(data: bytes) -> tuple[int, int] | None:
    """A JPEG's size from its first start-of-frame marker (SOF0-SOF15 but DHT, JPG and DAC)."""
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 9 > len(data):
                return None
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(width), int(height)
        i += 2 + length
    return None
