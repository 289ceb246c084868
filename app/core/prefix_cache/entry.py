"""One prefix-cache file: its header, its tokens and its payload (the KV state), and the checks made on load.

Layout, all integers little-endian::

    magic  b"TANDEMKV"                8 bytes
    header length                     4 bytes (u32)
    header                            JSON, UTF-8 (EntryHeader)
    tokens                            n_tokens x 4 bytes (i32)
    payload                           payload_size bytes (llama.cpp's sequence state)

The header names the model the state belongs to (``model``: a digest of the
model file's identity and the context options that shape the state), the
token count, the SHA-256 of the tokens and of the payload. A reader checks
every one of them before a byte of the payload reaches llama.cpp: a file
from another model, cut short, or with one byte changed is refused with the
reason (:class:`EntryError`), never loaded.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MAGIC = b"TANDEMKV"
VERSION = 1
_LENGTH = struct.Struct("<I")
# A header is a few hundred bytes; anything much larger is not one of ours.
_MAX_HEADER = 64 * 1024
PREAMBLE_SIZE = len(MAGIC) + _LENGTH.size
# Far beyond any context a model is loaded with (16 MiB of tokens): a larger count is not a state Tandem saved.
MAX_TOKENS = 1 << 22


class EntryError(ValueError):
    """A file that is not a usable entry: the message says why (foreign, damaged, truncated)."""


class NotAnEntryError(EntryError):
    """A file that does not begin as an entry does: not one Tandem wrote, so not one it may remove."""


def model_identity(path: str, size: int, mtime_ns: int, shape: str = "") -> str:
    """The digest that ties an entry to one model file as loaded: its path, size and modification time.

    ``shape`` carries the context options that change the state's layout
    (flash attention stores V differently), so a state is never handed to a
    context that would read it another way.
    """
    text = json.dumps([path, size, mtime_ns, shape])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tokens_digest(tokens: Sequence[int]) -> str:
    """SHA-256 of the tokens as little-endian int32 (the same bytes the file stores)."""
    return hashlib.sha256(_token_bytes(tokens)).hexdigest()


def entry_key(model: str, tokens: Sequence[int]) -> str:
    """An entry's name: one model, one token sequence."""
    return hashlib.sha256(f"{model}:{tokens_digest(tokens)}".encode()).hexdigest()


def _token_bytes(tokens: Sequence[int]) -> bytes:
    return np.asarray(tokens, dtype="<i4").tobytes()


@dataclass(frozen=True, slots=True)
class EntryHeader:
    """What an entry says about itself; :meth:`to_bytes` and :meth:`parse` are its one serialisation."""

    model: str
    n_tokens: int
    tokens_sha256: str
    payload_size: int
    payload_sha256: str
    version: int = VERSION

    def to_json(self) -> dict[str, object]:
        """The header's fields by name."""
        return {
            "version": self.version,
            "model": self.model,
            "n_tokens": self.n_tokens,
            "tokens_sha256": self.tokens_sha256,
            "payload_size": self.payload_size,
            "payload_sha256": self.payload_sha256,
        }

    def to_bytes(self) -> bytes:
        """Magic, length and JSON: everything before the tokens."""
        body = json.dumps(self.to_json(), sort_keys=True).encode("utf-8")
        return MAGIC + _LENGTH.pack(len(body)) + body

    @property
    def tokens_size(self) -> int:
        """Bytes the tokens take after the header."""
        return 4 * self.n_tokens

    @classmethod
    def header_length(cls, preamble: bytes) -> int:
        """The JSON's length from the first :data:`PREAMBLE_SIZE` bytes; refuses what is not an entry."""
        if len(preamble) < PREAMBLE_SIZE or not preamble.startswith(MAGIC):
            raise NotAnEntryError("not a prefix-cache entry (no magic)")
        (length,) = _LENGTH.unpack_from(preamble, len(MAGIC))
        if not 0 < length <= _MAX_HEADER:
            raise EntryError(f"header length {length} out of range")
        return int(length)

    @classmethod
    def parse(cls, body: bytes) -> EntryHeader:
        """The header from its JSON; refuses another version or a malformed field."""
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise EntryError("header is not JSON") from exc
        if not isinstance(data, dict):
            raise EntryError("header is not an object")
        if data.get("version") != VERSION:
            raise EntryError(f"version {data.get('version')!r}, expected {VERSION}")
        ints = ("n_tokens", "payload_size")
        texts = ("model", "tokens_sha256", "payload_sha256")
        if not all(isinstance(data.get(k), int) and data[k] >= 0 for k in ints):
            raise EntryError("header counts missing or negative")
        if data["n_tokens"] > MAX_TOKENS:
            raise EntryError(f"header claims {data['n_tokens']} tokens, more than {MAX_TOKENS}")
        if not all(isinstance(data.get(k), str) for k in texts):
            raise EntryError("header digests missing")
        return cls(data["model"], data["n_tokens"], data["tokens_sha256"], data["payload_size"], data["payload_sha256"])

    def file_size(self) -> int:
        """The whole file's size, as a complete entry with this header has it."""
        return len(self.to_bytes()) + self.tokens_size + self.payload_size


def build_header(model: str, tokens: Sequence[int], payload: bytes | bytearray | memoryview) -> EntryHeader:
    """The header of an entry holding ``payload`` for ``tokens`` of ``model``."""
    return EntryHeader(model, len(tokens), tokens_digest(tokens), len(payload), hashlib.sha256(payload).hexdigest())


def encode_tokens(tokens: Sequence[int]) -> bytes:
    """The tokens as the file stores them."""
    return _token_bytes(tokens)


def decode_tokens(header: EntryHeader, data: bytes) -> tuple[int, ...]:
    """The tokens after the header, checked against its count and digest."""
    if len(data) != header.tokens_size:
        raise EntryError(f"truncated: {len(data)} of {header.tokens_size} token bytes")
    if hashlib.sha256(data).hexdigest() != header.tokens_sha256:
        raise EntryError("token digest does not match")
    return tuple(int(t) for t in np.frombuffer(data, dtype="<i4"))


def check_payload(header: EntryHeader, payload: bytes | bytearray | memoryview) -> None:
    """Refuse a payload cut short, grown or changed since the header was written."""
    if len(payload) != header.payload_size:
        raise EntryError(f"truncated: {len(payload)} of {header.payload_size} payload bytes")
    if hashlib.sha256(payload).hexdigest() != header.payload_sha256:
        raise EntryError("payload digest does not match (the file is damaged)")


def check_model(header: EntryHeader, model: str) -> None:
    """Refuse an entry written for another model (or the same file changed since)."""
    if header.model != model:
        raise EntryError("written for another model")
