"""Images into a target's context through llama.cpp's ``mtmd``, with the model's projector (an ``mmproj`` GGUF).

A :class:`Projector` is loaded beside a :class:`~app.engine.llama.model.LlamaModel`.
It reads an image's bytes (PNG or JPEG, decoded by mtmd's own stb_image) into a
:class:`PreparedImage`: mtmd's chunks for it and the *stand-in* ids the prompt's
token list carries where the image's positions are. :func:`prefill_images`
writes the images (and the text before each) into the target's KV, so the
reply then decodes with the normal decoder: the decoder finds the image's
positions already cached under their stand-ins and decodes only the text after.

The stand-ins are ordinary token ids drawn from the image's digest and the
projector's identity, so a different image (or the same one through another
projector) never matches a cached one. A draft model cannot see an image:
it reads the stand-ins as text and drafts the text after them; prompt lookup
works on the text as always. The target verifies every proposal, so output is
exactly the target's either way; only acceptance after an image drops.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import llama_cpp
import numpy as np
from llama_cpp import mtmd_cpp as mtmd

from app.core.conversation.chat import Message
from app.core.conversation.images import MAX_IMAGE_BYTES as MAX_IMAGE_BYTES
from app.core.conversation.images import ImageInput
from app.core.conversation.images import image_dimensions as image_dimensions
from app.core.decoding.model_port import common_prefix_length, sync_cache
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.errors import TandemError
from app.engine.llama.model import LOAD_LOCK, LlamaModel

# Files over MAX_IMAGE_BYTES are refused before they are decoded; so are pictures of more pixels (a small PNG can
# claim 50,000 x 50,000, which stb_image would try to allocate). The projector resizes every image
# to its own few hundred pixels, so nothing a person sends is near these.
MAX_IMAGE_PIXELS = 64_000_000

_NO_PROJECTOR = QT_TRANSLATE_NOOP(
    "Vision", "{model} cannot read images: no projector (mmproj*.gguf) is beside it or chosen"
)
_NOT_PROJECTOR = QT_TRANSLATE_NOOP("Vision", "llama.cpp could not load {name} as a projector for {model}")
_MROPE = QT_TRANSLATE_NOOP("Vision", "{name} places images on a 2-D grid (M-RoPE), which Tandem does not read yet")
_NO_VISION = QT_TRANSLATE_NOOP("Vision", "{name} is a projector for sound, not images")
_NOT_IMAGE = QT_TRANSLATE_NOOP("Vision", "{name} is not a PNG or JPEG image")
_UNREADABLE = QT_TRANSLATE_NOOP("Vision", "{name} could not be read as an image: it is damaged or truncated")
_TOO_BIG = QT_TRANSLATE_NOOP("Vision", "{name} is too big to read as an image ({size}; at most {limit})")
_TOO_MANY_PIXELS = QT_TRANSLATE_NOOP(
    "Vision", "{name} is too big to read as an image ({width} x {height} pixels; at most {limit} million)"
)


@llama_cpp.llama_log_callback
def _quiet(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
    """mtmd's progress lines ("encoding image slice...") go nowhere; its failures reach the user as ImageError."""


def _silence_mtmd() -> None:
    mtmd.mtmd_log_set(_quiet, ctypes.c_void_p())
    mtmd.mtmd_helper_log_set(_quiet, ctypes.c_void_p())


def _still_images_only() -> mtmd.mtmd_helper_init_opt:
    """Decoding options that never start a program: mtmd tries ffprobe on bytes stb_image cannot read,
    and a folder that cannot hold one (``os.devnull`` is a file) leaves nothing to launch."""
    opt = mtmd.mtmd_helper_init_opt_default()
    opt.video_params.ffmpeg_bin_dir = os.devnull.encode()
    return opt


class ImageError(TandemError):
    """An image or a projector that cannot be read; the message is one line for the user."""


def find_projector(model: Path) -> Path | None:
    """The projector beside ``model``: the first ``mmproj*.gguf`` in its folder by name, or None."""
    folder = model.expanduser().parent
    if not folder.is_dir():
        return None
    found = sorted(
        p
        for p in folder.iterdir()
        if p.is_file() and p.name.lower().startswith("mmproj") and p.suffix.lower() == ".gguf"
    )
    return found[0] if found else None


def require_projector(model: Path, chosen: Path | None = None) -> Path:
    """The projector to read images with: ``chosen``, else the one beside ``model``; :class:`ImageError` if none."""
    found = chosen or find_projector(model)
    if found is None:
        raise ImageError(_NO_PROJECTOR.fill(model=model.name))
    return found


def check_image(data: bytes, name: str) -> tuple[int, int]:
    """``data``'s ``(width, height)`` when it is a PNG or JPEG within the bounds; :class:`ImageError` otherwise."""
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(_TOO_BIG.fill(name=name, size=_size_words(len(data)), limit=_size_words(MAX_IMAGE_BYTES)))
    size = image_dimensions(data)
    if size is None:
        raise ImageError(_NOT_IMAGE.fill(name=name))
    width, height = size
    if width * height > MAX_IMAGE_PIXELS:
        raise ImageError(
            _TOO_MANY_PIXELS.fill(name=name, width=width, height=height, limit=MAX_IMAGE_PIXELS // 1_000_000)
        )
    return size


def _size_words(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def _stand_in(digest: bytes, n: int, n_vocab: int) -> tuple[int, ...]:
    """``n`` token ids drawn from the image's digest: the same image, the same ids."""
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    return tuple(int(t) for t in rng.integers(0, n_vocab, size=n))


@dataclass(frozen=True, slots=True)
class ImagePiece:
    """One of mtmd's chunks for an image: real text tokens, or an image's positions under stand-in ids."""

    ids: tuple[int, ...]
    is_image: bool


class PreparedImage:
    """An image read by a projector: mtmd's chunks (owned here) and the ids its positions carry in a prompt."""

    def __init__(
        self, name: str, digest: bytes, chunks: mtmd.mtmd_input_chunks_p, pieces: Sequence[ImagePiece]
    ) -> None:
        self.name = name
        self.digest = digest
        self._chunks: mtmd.mtmd_input_chunks_p | None = chunks
        self.pieces = tuple(pieces)

    @property
    def ids(self) -> tuple[int, ...]:
        """What the prompt's token list holds for this image, its projector's own text tokens included."""
        return tuple(t for piece in self.pieces for t in piece.ids)

    def chunk(self, index: int) -> mtmd.mtmd_input_chunk_p:
        if self._chunks is None:
            raise ImageError(f"{self.name} was already released")
        found = mtmd.mtmd_input_chunks_get(self._chunks, index)
        if found is None:
            raise ImageError(f"{self.name} has no chunk {index}")
        return found

    def close(self) -> None:
        """Free mtmd's chunks (idempotent)."""
        if self._chunks is not None:
            mtmd.mtmd_input_chunks_free(self._chunks)
            self._chunks = None


class Projector:
    """A projector loaded for one target; it reads images and writes them into that target's context."""

    def __init__(self, path: Path, target: LlamaModel, n_threads: int | None = None) -> None:
        self.path = path.expanduser()
        # Which projector made an image's embeddings goes into its stand-in ids: a saved prefix state
        # (app.engine.llama.prefix_cache) holding one projector's image never serves another's.
        stat = self.path.stat()
        self.identity = hashlib.sha256(f"{self.path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).digest()
        self.target = target
        _silence_mtmd()
        params = mtmd.mtmd_context_params_default()
        params.use_gpu = target.options.n_gpu_layers != 0
        params.n_threads = n_threads or target.threads
        params.print_timings = False
        params.warmup = False
        with LOAD_LOCK:
            ctx = mtmd.mtmd_init_from_file(str(self.path).encode(), target.llama.model, params)
        if not ctx:
            raise ImageError(_NOT_PROJECTOR.fill(name=self.path.name, model=target.name))
        self._ctx: mtmd.mtmd_context_p | None = ctx
        if not mtmd.mtmd_support_vision(ctx):
            self.close()
            raise ImageError(_NO_VISION.fill(name=self.path.name))
        if mtmd.mtmd_decode_use_mrope(ctx):
            # The target's token list counts one position per id; M-RoPE images take fewer positions than ids.
            self.close()
            raise ImageError(_MROPE.fill(name=self.path.name))
        marker = mtmd.mtmd_get_marker(ctx) or mtmd.mtmd_default_marker()
        self.marker = marker.decode("utf-8")

    def _context(self) -> mtmd.mtmd_context_p:
        if self._ctx is None:
            raise ImageError(f"the projector {self.path.name} is closed")
        return self._ctx

    def read(self, data: bytes, name: str) -> PreparedImage:
        """Decode ``data`` (PNG or JPEG) and cut it into mtmd's chunks; :class:`ImageError` in one line otherwise."""
        check_image(data, name)
        ctx = self._context()
        buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        bitmap = mtmd.mtmd_helper_bitmap_init_from_buf(ctx, buffer, len(data), False, _still_images_only())
        if not bitmap:
            raise ImageError(_UNREADABLE.fill(name=name))
        digest = hashlib.sha256(data).digest()
        chunks = mtmd.mtmd_input_chunks_init()
        try:
            mtmd.mtmd_bitmap_set_id(bitmap, digest.hex().encode())
            text = mtmd.mtmd_input_text(
                text=self.marker.encode(), text_len=len(self.marker.encode()), add_special=False, parse_special=True
            )
            bitmaps = (mtmd.mtmd_bitmap_p_ctypes * 1)(bitmap)
            if chunks is None or mtmd.mtmd_tokenize(ctx, chunks, ctypes.byref(text), bitmaps, 1) != 0:
                raise ImageError(_UNREADABLE.fill(name=name))
            pieces = self._pieces(chunks, digest)
        except BaseException:
            if chunks is not None:
                mtmd.mtmd_input_chunks_free(chunks)
            raise
        finally:
            mtmd.mtmd_bitmap_free(bitmap)
        return PreparedImage(name, digest, chunks, pieces)

    def _pieces(self, chunks: mtmd.mtmd_input_chunks_p, digest: bytes) -> list[ImagePiece]:
        pieces = []
        for index in range(mtmd.mtmd_input_chunks_size(chunks)):
            chunk = mtmd.mtmd_input_chunks_get(chunks, index)
            kind = mtmd.mtmd_input_chunk_get_type(chunk)
            if kind == mtmd.MTMD_INPUT_CHUNK_TYPE_TEXT:
                n = ctypes.c_size_t(0)
                tokens = mtmd.mtmd_input_chunk_get_tokens_text(chunk, ctypes.byref(n))
                pieces.append(ImagePiece(ids=tuple(int(tokens[i]) for i in range(n.value)), is_image=False))
            elif kind == mtmd.MTMD_INPUT_CHUNK_TYPE_IMAGE:
                n_pos = int(mtmd.mtmd_input_chunk_get_n_pos(chunk))
                part = self.identity + digest + index.to_bytes(4, "little")
                pieces.append(
                    ImagePiece(ids=_stand_in(hashlib.sha256(part).digest(), n_pos, self.target.n_vocab), is_image=True)
                )
            else:
                raise ImageError("the projector cut an image into a chunk that is not an image")
        return pieces

    def write(self, image: PreparedImage) -> None:
        """Append ``image`` to the target's context after what it holds now."""
        ctx = self._context()
        n_batch = self.target.options.n_batch
        for index, piece in enumerate(image.pieces):
            if not piece.is_image:
                self.target.decode(piece.ids, "none")
                continue
            chunk = image.chunk(index)

            def evaluate(lctx: llama_cpp.llama_context_p, n_past: int, chunk: mtmd.mtmd_input_chunk_p = chunk) -> int:
                new_n_past = llama_cpp.llama_pos(0)
                return int(
                    mtmd.mtmd_helper_eval_chunk_single(
                        ctx, lctx, chunk, n_past, 0, n_batch, False, ctypes.byref(new_n_past)
                    )
                )

            self.target.append_written(piece.ids, evaluate)

    def close(self) -> None:
        """Free mtmd's context (idempotent)."""
        if self._ctx is not None:
            mtmd.mtmd_free(self._ctx)
            self._ctx = None


@dataclass(frozen=True, slots=True)
class ImagePrompt:
    """A prompt's token list with images in it: where each image's ids start."""

    tokens: tuple[int, ...]
    images: tuple[tuple[int, PreparedImage], ...]


def build_prompt(text_parts: Sequence[Sequence[int]], images: Sequence[PreparedImage]) -> ImagePrompt:
    """Text tokens and images interleaved: ``text_parts[0]``, ``images[0]``, ``text_parts[1]``, ...

    There is one more text part than there are images (the text around each marker).
    """
    if len(text_parts) != len(images) + 1:
        raise ValueError(f"{len(images)} images need {len(images) + 1} text parts, not {len(text_parts)}")
    tokens: list[int] = list(text_parts[0])
    placed = []
    for image, after in zip(images, text_parts[1:], strict=True):
        placed.append((len(tokens), image))
        tokens.extend(image.ids)
        tokens.extend(after)
    return ImagePrompt(tokens=tuple(tokens), images=tuple(placed))


def prefill_images(projector: Projector, prompt: ImagePrompt) -> None:
    """Make the target's context hold ``prompt`` up to the end of its last image, reusing what is cached.

    The decoder then finds those positions cached and decodes only the text after.
    """
    target = projector.target
    for start, image in prompt.images:
        end = start + len(image.ids)
        if common_prefix_length(target.kv_tokens, prompt.tokens[:end]) >= end:
            continue
        sync_cache(target, prompt.tokens[:start])
        projector.write(image)


def locate_images(tokens: Sequence[int], images: Sequence[PreparedImage]) -> ImagePrompt:
    """Where each of ``images`` stands in ``tokens`` (found by its ids; an image left out of the prompt is skipped)."""
    placed: list[tuple[int, PreparedImage]] = []
    for image in images:
        ids = list(image.ids)
        n = len(ids)
        first = ids[0] if ids else None
        for start in range(len(tokens) - n + 1):
            if tokens[start] == first and list(tokens[start : start + n]) == ids:
                placed.append((start, image))
    placed.sort(key=lambda found: found[0])
    return ImagePrompt(tokens=tuple(tokens), images=tuple(placed))


class PairImages:
    """The images a loaded pair's prompts hold: the projector loaded on first need, each image read once.

    ``projector`` is the one chosen; None looks for ``mmproj*.gguf`` beside
    the target when the first image comes.
    """

    # Images kept read (by digest) so a conversation's earlier pictures are not decoded again each reply.
    KEEP = 32

    def __init__(self, target: LlamaModel, projector: Path | None = None) -> None:
        self.target = target
        self.chosen = projector
        self._projector: Projector | None = None
        self._read: dict[str, PreparedImage] = {}

    def projector(self) -> Projector:
        """The loaded projector; :class:`ImageError` when the target has none."""
        if self._projector is None:
            self._projector = Projector(require_projector(self.target.path, self.chosen), self.target)
        return self._projector

    def ids(self, messages: Sequence[Message]) -> dict[str, tuple[int, ...]]:
        """Each message image's ids by its digest, reading the images not read yet (empty: no images)."""
        found: dict[str, tuple[int, ...]] = {}
        for message in messages:
            for image in message.images:
                found[image.sha256] = self._prepared(image).ids
        return found

    def _prepared(self, image: ImageInput) -> PreparedImage:
        key = image.sha256
        prepared = self._read.pop(key, None)
        if prepared is None:
            prepared = self.projector().read(image.data, image.name)
        self._read[key] = prepared  # kept last: the most recently used
        while len(self._read) > self.KEEP:
            oldest = next(iter(self._read))
            self._read.pop(oldest).close()
        return prepared

    def write(self, tokens: Sequence[int]) -> None:
        """Write the images ``tokens`` holds into the target's context (a no-op without images)."""
        if self._projector is None or not self._read:
            return
        prompt = locate_images(tokens, list(self._read.values()))
        if prompt.images:
            prefill_images(self._projector, prompt)

    def close(self) -> None:
        """Free every read image and the projector (idempotent)."""
        for prepared in self._read.values():
            prepared.close()
        self._read.clear()
        if self._projector is not None:
            self._projector.close()
            self._projector = None
