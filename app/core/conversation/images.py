"""An image sent with a chat message, and the marker that says where it stands in the message's text."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field

# A character from Unicode's private use area brackets each marker: no chat text, template or tokenizer
# writes one, and the image's digest inside ties the marker to its image.
_BRACKET = "\ue000"
MARKER = re.compile(_BRACKET + r"image ([0-9a-f]{64})" + _BRACKET)


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
