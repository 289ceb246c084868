"""Images in a chat through mtmd: read, written into the target's context, then decoded by the normal decoder.

On the SYNTHETIC projector of ``tests/fixtures/synthetic_projector.py`` (random
weights sized for SmolLM2-135M): no small real projector is reachable offline.
What is proved is that an image's embeddings reach the real target's context,
that the reply decoded after them with speculation (a draft model and prompt
lookup) equals the target alone given the same image through mtmd's own
helper, and that bad images are refused in one line; not what a real model
says about a picture.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from pathlib import Path

import llama_cpp
import numpy as np
import pytest
from llama_cpp import mtmd_cpp as mtmd

from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.conversation.images import ImageInput
from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import ModelDrafter
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.lookup_drafters import HybridDrafter, NgramDrafter
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.engine.llama.model import LlamaModel, LoadOptions
from app.engine.llama.vision import (
    MAX_IMAGE_BYTES,
    ImageError,
    PreparedImage,
    Projector,
    build_prompt,
    find_projector,
    prefill_images,
    require_projector,
)
from app.engine.reply import chat_messages
from tests.fixtures.synthetic_projector import png_bytes, write_projector_for

GREEDY = SamplingParams(temperature=0)
BEFORE = "<|im_start|>user\nWhat is in this picture? "
AFTER = "<|im_end|>\n<|im_start|>assistant\n"


@pytest.fixture(scope="module")
def projector_file(tmp_path_factory: pytest.TempPathFactory, small_pair: tuple[Path, Path]) -> Path:
    return write_projector_for(small_pair[0], tmp_path_factory.mktemp("vision") / "mmproj-synthetic.gguf")


@pytest.fixture(scope="module")
def loaded(small_pair: tuple[Path, Path], projector_file: Path) -> Iterator[tuple[LlamaModel, LlamaModel, Projector]]:
    target = LlamaModel(small_pair[0], LoadOptions(n_ctx=512, n_threads=1))
    draft = LlamaModel(small_pair[1], LoadOptions(n_ctx=512, n_threads=1))
    projector = Projector(projector_file, target)
    yield target, draft, projector
    projector.close()
    draft.close()
    target.close()


def _image_prompt(target: LlamaModel, image: PreparedImage) -> list[int]:
    prompt = build_prompt([target.tokenize(BEFORE), target.tokenize(AFTER)], [image])
    return list(prompt.tokens)


def _reference(target_file: Path, projector_file: Path, data: bytes, n: int) -> list[int]:
    """Greedy tokens of the target alone after the same prompt and image, all through mtmd's own helpers."""
    llm = llama_cpp.Llama(
        str(target_file),
        n_ctx=512,
        n_batch=512,
        n_ubatch=512,
        n_threads=1,
        n_threads_batch=1,
        flash_attn=True,
        verbose=False,
    )
    params = mtmd.mtmd_context_params_default()
    params.use_gpu = False
    params.n_threads = 1
    params.warmup = False
    ctx = mtmd.mtmd_init_from_file(str(projector_file).encode(), llm.model, params)
    assert ctx
    try:
        buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        bitmap = mtmd.mtmd_helper_bitmap_init_from_buf(ctx, buffer, len(data), False)
        text = (BEFORE + mtmd.mtmd_default_marker().decode() + AFTER).encode()
        chunks = mtmd.mtmd_input_chunks_init()
        assert chunks is not None
        piece = mtmd.mtmd_input_text(text=text, text_len=len(text), add_special=False, parse_special=True)
        assert mtmd.mtmd_tokenize(ctx, chunks, ctypes.byref(piece), (mtmd.mtmd_bitmap_p_ctypes * 1)(bitmap), 1) == 0
        n_past = llama_cpp.llama_pos(0)
        assert mtmd.mtmd_helper_eval_chunks(ctx, llm.ctx, chunks, 0, 0, 512, True, ctypes.byref(n_past)) == 0
        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        n_vocab = llama_cpp.llama_vocab_n_tokens(vocab)
        out: list[int] = []
        batch = llama_cpp.llama_batch_init(1, 0, 1)
        for _ in range(n):
            logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(n_vocab,))
            token = int(np.argmax(logits))
            out.append(token)
            batch.n_tokens = 1
            batch.token[0] = token
            batch.pos[0] = n_past.value
            batch.n_seq_id[0] = 1
            batch.seq_id[0][0] = 0
            batch.logits[0] = 1
            assert llama_cpp.llama_decode(llm.ctx, batch) == 0
            n_past.value += 1
        llama_cpp.llama_batch_free(batch)
        mtmd.mtmd_bitmap_free(bitmap)
        mtmd.mtmd_input_chunks_free(chunks)
        return out
    finally:
        mtmd.mtmd_free(ctx)
        llm.close()


def _reply(target: LlamaModel, draft: LlamaModel, prompt: list[int], n: int) -> tuple[list[int], FinishedEvent]:
    rng = np.random.default_rng(0)
    drafter = HybridDrafter(ModelDrafter(draft, LogitsWarper(GREEDY, draft.n_vocab), rng), NgramDrafter())
    decoder = SpeculativeDecoder(target, drafter, GREEDY, FixedDraftLength(3), rng)
    events = list(decoder.generate(GenerationRequest(prompt, max_tokens=n)))
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    tokens = [t.id for e in events if isinstance(e, StepEvent) for t in e.tokens]
    return tokens, finished


def test_a_reply_after_an_image_equals_the_target_alone_given_the_same_image(
    loaded: tuple[LlamaModel, LlamaModel, Projector], small_pair: tuple[Path, Path], projector_file: Path
) -> None:
    target, draft, projector = loaded
    data = png_bytes(40, 30, seed=1)
    image = projector.read(data, "photo.png")
    try:
        prompt = build_prompt([target.tokenize(BEFORE), target.tokenize(AFTER)], [image])
        target.truncate(0)
        prefill_images(projector, prompt)
        start, _ = prompt.images[0]
        end = start + len(image.ids)
        # The image's positions are cached under its stand-in ids, so the decoder decodes only the text after.
        assert list(target.kv_tokens) == list(prompt.tokens[:end])
        tokens, finished = _reply(target, draft, list(prompt.tokens), 16)
    finally:
        image.close()
    assert finished.stats.prompt_reused >= end
    assert finished.stats.drafted > 0  # the draft model (and lookup) proposed after the image: speculation ran
    assert tokens == _reference(small_pair[0], projector_file, data, len(tokens))


def test_the_image_reaches_the_target_and_a_cached_image_is_not_read_again(
    loaded: tuple[LlamaModel, LlamaModel, Projector], monkeypatch: pytest.MonkeyPatch
) -> None:
    target, _, projector = loaded
    first = projector.read(png_bytes(32, 32, seed=2), "a.png")
    second = projector.read(png_bytes(32, 32, seed=3), "b.png")
    try:
        target.truncate(0)
        rows = []
        for image in (first, second):
            prompt = build_prompt([target.tokenize(BEFORE), target.tokenize(AFTER)], [image])
            prefill_images(projector, prompt)
            rows.append(np.array(target.decode(prompt.tokens[len(target.kv_tokens) :], "last")[0]))
        # Two pictures, two different next-token distributions after the same text.
        assert not np.allclose(rows[0], rows[1])
        assert first.ids != second.ids
        # The same picture again: its positions are found cached and mtmd is not asked to write them.
        target.truncate(len(target.kv_tokens) - 1)

        def written_again(image: PreparedImage) -> None:
            raise AssertionError(f"{image.name} was written again")

        monkeypatch.setattr(projector, "write", written_again)
        prefill_images(projector, build_prompt([target.tokenize(BEFORE), target.tokenize(AFTER)], [second]))
    finally:
        first.close()
        second.close()


def _huge_png() -> bytes:
    data = png_bytes(8, 8)
    return data[:16] + (60_000).to_bytes(4, "big") * 2 + data[24:]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (png_bytes(8, 8)[:60], "could not be read as an image: it is damaged or truncated"),
        (
            b"\xff\xd8\xff\xc0\x00\x11\x08\x00\x10\x00\x10\x03" + b"\x01" * 40,
            "could not be read as an image: it is damaged or truncated",
        ),
        (_huge_png(), "is too big to read as an image (60000 x 60000 pixels; at most 64 million)"),
        (b"GIF89a" + b"\x00" * 40, "is not a PNG or JPEG image"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * (MAX_IMAGE_BYTES), "is too big to read as an image (32.0 MB"),
    ],
    ids=["truncated-png", "broken-jpeg", "huge-png", "gif", "too-many-bytes"],
)
def test_a_bad_image_is_refused_in_one_line(
    loaded: tuple[LlamaModel, LlamaModel, Projector], data: bytes, words: str
) -> None:
    _, _, projector = loaded
    with pytest.raises(ImageError) as refused:
        projector.read(data, "picture.png")
    message = str(refused.value)
    assert message.startswith("picture.png ")
    assert words in message
    assert "\n" not in message


def test_a_model_without_a_projector_is_refused_in_one_line(
    small_pair: tuple[Path, Path], projector_file: Path
) -> None:
    assert find_projector(small_pair[0]) is None
    with pytest.raises(ImageError, match=r"^SmolLM2.* cannot read images: no projector \(mmproj\*\.gguf\)"):
        require_projector(small_pair[0])
    assert find_projector(projector_file.parent / "model.gguf") == projector_file
    assert require_projector(small_pair[0], projector_file) == projector_file


def test_the_same_image_through_another_projector_never_matches_its_cached_positions(
    loaded: tuple[LlamaModel, LlamaModel, Projector], tmp_path: Path, small_pair: tuple[Path, Path]
) -> None:
    target, _, projector = loaded
    other = Projector(write_projector_for(small_pair[0], tmp_path / "mmproj-other.gguf", seed=55), target)
    data = png_bytes(32, 32, seed=6)
    first, second = projector.read(data, "a.png"), other.read(data, "a.png")
    try:
        # A saved prefix state holding this image's positions from one projector is never reused for the other.
        assert first.digest == second.digest
        assert first.ids != second.ids and len(first.ids) == len(second.ids)
    finally:
        first.close()
        second.close()
        other.close()


def test_a_turn_of_an_image_alone_stays_in_the_chat_messages() -> None:
    turn = Message("user", "", images=(ImageInput(name="photo.png", data=png_bytes(8, 8)),))
    assert chat_messages(ChatSettings(), [turn]) == (turn,)
