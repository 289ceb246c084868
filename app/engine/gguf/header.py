"""Read a GGUF file's header (metadata and tensor table) without touching the weights.

Written here rather than taken from ``gguf.GGUFReader`` because the reader
builds a Python object per array element: 3.5 s for SmolLM2's 49k-token
vocabulary and far longer for Qwen's 152k, too slow for listing models in a
GUI. This parser walks the header once with ``struct`` and numpy and takes
tensor sizes from the ``gguf`` package's quantisation table. It also checks
what llama.cpp would only discover late: the magic, the version, and that
every tensor's data lies inside the file (a truncated download).
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.errors import TandemError

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32

_SCALARS: dict[int, tuple[str, int]] = {
    0: ("<B", 1),
    1: ("<b", 1),
    2: ("<H", 2),
    3: ("<h", 2),
    4: ("<I", 4),
    5: ("<i", 4),
    6: ("<f", 4),
    7: ("<?", 1),
    10: ("<Q", 8),
    11: ("<q", 8),
    12: ("<d", 8),
}
_NUMPY_TYPES = {
    0: "<u1",
    1: "<i1",
    2: "<u2",
    3: "<i2",
    4: "<u4",
    5: "<i4",
    6: "<f4",
    7: "?",
    10: "<u8",
    11: "<i8",
    12: "<f8",
}
_STRING, _ARRAY = 8, 9
# Large string arrays nobody reads; parsing them was half the header time.
_SKIPPED_KEYS = frozenset({"tokenizer.ggml.merges"})
# What a header's counts may claim: over 60 times the largest vocabulary or merge list of any model
# (Gemma's 262k tokens), and a single string far past any chat template. A claim beyond these, or beyond
# the bytes left in the file, is a corrupt or hostile file, told at once rather than read up to.
MAX_ARRAY_ELEMENTS = 1 << 24
MAX_STRING_BYTES = 1 << 24
_MIN_KV_BYTES = 8 + 4 + 1  # key length, value type, the smallest value
_MIN_TENSOR_BYTES = 8 + 4 + 4 + 8  # name length, dimensions, type, offset
_MIN_ELEMENT_BYTES = {_STRING: 8, _ARRAY: 12}


class ModelFileError(TandemError):
    """A model file is missing, not GGUF, truncated or otherwise unreadable."""


# A file too short to hold a GGUF header (read from disk or from a remote file's size).
_TOO_SHORT = QT_TRANSLATE_NOOP("ModelFileErrors", "{name} is not a GGUF model file (only {size} bytes)")


class HeaderIncompleteError(ModelFileError):
    """The bytes given are a prefix of the file that ends inside the header: read more and parse again.

    ``needed`` is a lower bound on the prefix length the header needs (the
    parser stops at the first read past the end, so later fields may need more).
    """

    def __init__(self, name: str, have: int, needed: int) -> None:
        super().__init__(f"the first {have:,} bytes of {name} end inside its header (at least {needed:,} needed)")
        self.have = have
        self.needed = needed


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """One tensor's entry in the header."""

    name: str
    shape: tuple[int, ...]
    ggml_type: int
    offset: int  # absolute offset in the file
    n_bytes: int

    @property
    def type_name(self) -> str:
        """The quantisation name, e.g. ``Q4_K`` or ``F16``."""
        try:
            return GGMLQuantizationType(self.ggml_type).name
        except ValueError:
            return f"type{self.ggml_type}"

    @property
    def n_elements(self) -> int:
        """Number of weights."""
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1


@dataclass(slots=True)
class GGUFHeader:
    """Everything in a GGUF file but the tensor data."""

    path: Path
    version: int
    file_size: int
    metadata: dict[str, Any] = field(default_factory=dict)
    tensors: list[TensorInfo] = field(default_factory=list)
    data_offset: int = 0
    header_size: int = 0  # bytes of metadata and tensor table, before the alignment padding

    def get(self, key: str, default: Any = None) -> Any:
        """A metadata value, or ``default``."""
        return self.metadata.get(key, default)

    @property
    def architecture(self) -> str:
        """``general.architecture``, e.g. ``llama`` or ``qwen2``."""
        return str(self.metadata.get("general.architecture", "unknown"))


class _Cursor:
    """Bounds-checked little-endian reads from a buffer."""

    def __init__(self, buf: mmap.mmap | bytes | bytearray, path: Path, file_size: int) -> None:
        self.buf = buf
        self.pos = 0
        self.depth = 0  # arrays open inside arrays
        self.path = path
        self.file_size = file_size  # larger than len(buf) when buf is only the file's first bytes

    def _need(self, n: int) -> None:
        end = self.pos + n
        if end > len(self.buf):
            if len(self.buf) < self.file_size and end <= self.file_size:
                raise HeaderIncompleteError(self.path.name, len(self.buf), end)
            raise ModelFileError(
                QT_TRANSLATE_NOOP(
                    "ModelFileErrors", "{name} is truncated: its header ends early (at byte {size:,})"
                ).fill(name=self.path.name, size=self.file_size)
            )

    def scalar(self, vtype: int) -> Any:
        fmt, size = _SCALARS[vtype]
        self._need(size)
        value = struct.unpack_from(fmt, self.buf, self.pos)[0]
        self.pos += size
        return value

    def u32(self) -> int:
        return int(self.scalar(4))

    def u64(self) -> int:
        return int(self.scalar(10))

    def plausible(self, count: int, each: int, what: str) -> None:
        """``count`` items of at least ``each`` bytes: a count no model has is corrupt, else it must fit the file."""
        if count > MAX_ARRAY_ELEMENTS:
            raise ModelFileError(
                f"{self.path.name} has an implausible header: it claims {count:,} {what} "
                f"(no model has more than {MAX_ARRAY_ELEMENTS:,}): corrupt file"
            )
        self.fits(count * each, f"{count:,} {what}")

    def fits(self, n_bytes: int, claim: str) -> None:
        """What the header claims (at least ``n_bytes`` more) must fit in what is left of the file."""
        left = self.file_size - self.pos
        if n_bytes > left:
            raise ModelFileError(
                f"{self.path.name} is truncated: its header ends early (it claims {claim}, at least "
                f"{n_bytes:,} bytes, and {left:,} are left in the file)"
            )

    def string(self) -> str:
        length = self.u64()
        if length > MAX_STRING_BYTES or length > self.file_size - self.pos:
            raise ModelFileError(
                f"{self.path.name} has an implausible header: a string of {length:,} bytes at byte {self.pos:,}"
            )
        self._need(length)
        raw = bytes(self.buf[self.pos : self.pos + length])
        self.pos += length
        return raw.decode("utf-8", errors="replace")

    def value(self, vtype: int) -> Any:
        if vtype == _STRING:
            return self.string()
        if vtype == _ARRAY:
            return self.array()
        if vtype not in _SCALARS:
            raise ModelFileError(f"{self.path.name} has an unknown metadata value type {vtype}: the file is corrupt")
        return self.scalar(vtype)

    def skip_string_array(self) -> int:
        """Step over an array of strings without decoding it; returns its length.

        Also the first pass of :meth:`array` over strings: nothing is decoded
        until the whole array is known to lie in the buffer, so a prefix that
        ends inside it costs no Python objects.
        """
        count = self.u64()
        self.plausible(count, 8, "strings")
        for _ in range(count):
            length = self.u64()
            if length > MAX_STRING_BYTES:
                raise ModelFileError(f"{self.path.name} has an implausible header: a string of {length:,} bytes")
            self._need(length)
            self.pos += length
        return count

    def array(self) -> Any:
        etype = self.u32()
        start = self.pos
        count = self.u64()
        what = "strings" if etype == _STRING else "array elements"
        self.plausible(count, _MIN_ELEMENT_BYTES.get(etype, _SCALARS.get(etype, ("", 1))[1]), what)
        if etype in _NUMPY_TYPES:
            itemsize = np.dtype(_NUMPY_TYPES[etype]).itemsize
            self._need(count * itemsize)
            values = np.frombuffer(self.buf, dtype=_NUMPY_TYPES[etype], count=count, offset=self.pos).copy()
            self.pos += count * itemsize
            return values
        if etype == _STRING:
            if len(self.buf) < self.file_size:  # a prefix (a remote header): it may end inside the array
                self.pos = start
                self.skip_string_array()  # first the whole array is known to lie in the buffer, then decoded
                self.pos = start + 8
            return [self.string() for _ in range(count)]
        self.depth += 1  # arrays of arrays: bounded, so a file of nested arrays is an error, not a RecursionError
        if self.depth > 8:
            raise ModelFileError(f"{self.path.name} nests arrays more than 8 deep: corrupt file")
        try:
            return [self.value(etype) for _ in range(count)]
        finally:
            self.depth -= 1


def tensor_nbytes(ggml_type: int, shape: tuple[int, ...]) -> int:
    """Bytes a tensor of this type and shape occupies, from gguf's block table."""
    try:
        block_size, type_size = GGML_QUANT_SIZES[GGMLQuantizationType(ggml_type)]
    except (ValueError, KeyError) as exc:
        raise ModelFileError(f"unknown tensor type {ggml_type}: this llama.cpp may be too old for the file") from exc
    n_elements = int(np.prod(shape, dtype=np.int64)) if shape else 1
    return n_elements * type_size // block_size


def read_header(path: str | Path, keep_merges: bool = False) -> GGUFHeader:
    """Parse ``path``'s header; raise :class:`ModelFileError` with a clear reason.

    The BPE merges are only counted unless ``keep_merges`` asks for them.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise ModelFileError(QT_TRANSLATE_NOOP("ModelFileErrors", "model file not found: {path}").fill(path=str(path)))
    if not path.is_file():
        raise ModelFileError(QT_TRANSLATE_NOOP("ModelFileErrors", "not a file: {path}").fill(path=str(path)))
    size = path.stat().st_size
    if size < 24:
        raise ModelFileError(_TOO_SHORT.fill(name=path.name, size=size))
    try:
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            return _parse(buf, path, size, frozenset() if keep_merges else _SKIPPED_KEYS)
    except OSError as exc:
        raise ModelFileError(
            QT_TRANSLATE_NOOP("ModelFileErrors", "cannot read {path}: {error}").fill(
                path=str(path), error=str(exc.strerror or exc)
            )
        ) from exc


def parse_header_bytes(data: bytes | bytearray, name: str, file_size: int, keep_merges: bool = False) -> GGUFHeader:
    """Parse a header from ``data``, the first bytes of a file of ``file_size`` bytes (a remote file's prefix).

    Raises :class:`HeaderIncompleteError` when ``data`` ends inside the header
    (fetch more and call again), and :class:`ModelFileError` when the file
    itself is not a GGUF model or its header runs past ``file_size``. The
    header's ``path`` is ``name``, which need not exist on this computer.
    """
    path = Path(name)
    if file_size < 24:
        raise ModelFileError(_TOO_SHORT.fill(name=path.name, size=file_size))
    if len(data) < min(24, file_size):
        raise HeaderIncompleteError(path.name, len(data), 24)
    return _parse(data, path, file_size, frozenset() if keep_merges else _SKIPPED_KEYS)


def _parse(buf: mmap.mmap | bytes | bytearray, path: Path, size: int, skipped: frozenset[str]) -> GGUFHeader:
    magic = bytes(buf[:4])
    if magic != GGUF_MAGIC:
        raise ModelFileError(
            QT_TRANSLATE_NOOP(
                "ModelFileErrors", "{name} is not a GGUF model file (it starts with {magic}, not b'GGUF')"
            ).fill(name=path.name, magic=repr(magic))
        )
    cursor = _Cursor(buf, path, size)
    cursor.pos = 4
    version = cursor.u32()
    if version not in SUPPORTED_VERSIONS:
        raise ModelFileError(
            QT_TRANSLATE_NOOP(
                "ModelFileErrors", "{name} is GGUF version {version}; Tandem reads versions 2 and 3"
            ).fill(name=path.name, version=version)
        )
    n_tensors = cursor.u64()
    n_kv = cursor.u64()
    if n_tensors > 1_000_000 or n_kv > 1_000_000:
        raise ModelFileError(f"{path.name} has an implausible header ({n_tensors} tensors, {n_kv} keys): corrupt file")
    cursor.fits(n_kv * _MIN_KV_BYTES + n_tensors * _MIN_TENSOR_BYTES, f"{n_kv:,} keys and {n_tensors:,} tensors")
    header = GGUFHeader(path, version, size)
    for _ in range(n_kv):
        key = cursor.string()
        vtype = cursor.u32()
        if key in skipped and vtype == _ARRAY:
            element_type = cursor.u32()
            if element_type == _STRING:
                # Only the count is kept: nothing in Tandem reads the BPE merges.
                header.metadata[key] = cursor.skip_string_array()
                continue
            cursor.pos -= 4
        header.metadata[key] = cursor.value(vtype)
    raw_tensors = []
    for _ in range(n_tensors):
        name = cursor.string()
        n_dims = cursor.u32()
        if n_dims > 8:
            raise ModelFileError(f"{path.name}: tensor {name!r} claims {n_dims} dimensions: corrupt file")
        shape = tuple(cursor.u64() for _ in range(n_dims))
        raw_tensors.append((name, shape, cursor.u32(), cursor.u64()))
    alignment = int(header.metadata.get("general.alignment", DEFAULT_ALIGNMENT)) or DEFAULT_ALIGNMENT
    header.header_size = cursor.pos
    header.data_offset = -(-cursor.pos // alignment) * alignment
    for name, shape, ggml_type, offset in raw_tensors:
        info = TensorInfo(name, shape, ggml_type, header.data_offset + offset, tensor_nbytes(ggml_type, shape))
        header.tensors.append(info)
    end = max((t.offset + t.n_bytes for t in header.tensors), default=header.data_offset)
    if end > size:
        missing = end - size
        raise ModelFileError(
            f"{path.name} is truncated: its tensors need {end:,} bytes but the file has {size:,} "
            f"({missing:,} missing); download it again"
        )
    return header
