"""The prefix-cache file format: a header that round-trips, and every damaged, foreign or short part refused."""

from __future__ import annotations

import pytest

from app.core.prefix_cache.entry import (
    MAGIC,
    PREAMBLE_SIZE,
    EntryError,
    EntryHeader,
    build_header,
    check_model,
    check_payload,
    decode_tokens,
    encode_tokens,
    entry_key,
    model_identity,
)

TOKENS = list(range(1000, 1600))
PAYLOAD = bytes(range(256)) * 40
MODEL = model_identity("/models/a.gguf", 123, 456)


def _file() -> bytes:
    header = build_header(MODEL, TOKENS, PAYLOAD)
    return header.to_bytes() + encode_tokens(TOKENS) + PAYLOAD


def _read(data: bytes) -> tuple[EntryHeader, tuple[int, ...], bytes]:
    """The reader's steps, in the engine's order, on bytes in memory."""
    length = EntryHeader.header_length(data[:PREAMBLE_SIZE])
    header = EntryHeader.parse(data[PREAMBLE_SIZE : PREAMBLE_SIZE + length])
    start = PREAMBLE_SIZE + length
    tokens = decode_tokens(header, data[start : start + header.tokens_size])
    payload = data[start + header.tokens_size :]
    check_payload(header, payload)
    return header, tokens, payload


def test_an_entry_round_trips() -> None:
    data = _file()
    header, tokens, payload = _read(data)
    assert tokens == tuple(TOKENS) and payload == PAYLOAD
    assert header.model == MODEL and header.n_tokens == len(TOKENS)
    assert header.file_size() == len(data)
    check_model(header, MODEL)


def test_identity_and_key_change_with_the_file_and_the_tokens() -> None:
    assert model_identity("/models/a.gguf", 123, 457) != MODEL
    assert model_identity("/models/a.gguf", 124, 456) != MODEL
    assert model_identity("/models/a.gguf", 123, 456, "flash_attn=True") != MODEL
    assert entry_key(MODEL, TOKENS) != entry_key(MODEL, TOKENS[:-1])
    assert entry_key(MODEL, TOKENS) == entry_key(MODEL, tuple(TOKENS))


@pytest.mark.parametrize("where", ["magic", "header", "tokens", "payload"])
def test_a_flipped_byte_is_refused(where: str) -> None:
    data = bytearray(_file())
    length = EntryHeader.header_length(bytes(data[:PREAMBLE_SIZE]))
    offsets = {
        "magic": 0,
        "header": PREAMBLE_SIZE + length // 2,
        "tokens": PREAMBLE_SIZE + length + 5,
        "payload": len(data) - 7,
    }
    data[offsets[where]] ^= 0x01
    with pytest.raises(EntryError):
        _read(bytes(data))


@pytest.mark.parametrize("cut", [3, PREAMBLE_SIZE + 10, -1, -len(PAYLOAD)])
def test_a_truncated_file_is_refused(cut: int) -> None:
    with pytest.raises(EntryError):
        _read(_file()[:cut])


def test_another_models_entry_is_refused() -> None:
    header, _, _ = _read(_file())
    with pytest.raises(EntryError, match="another model"):
        check_model(header, model_identity("/models/b.gguf", 123, 456))


def test_another_version_and_junk_headers_are_refused() -> None:
    header = build_header(MODEL, TOKENS, PAYLOAD)
    body = header.to_bytes()[PREAMBLE_SIZE:].replace(b'"version": 1', b'"version": 2')
    with pytest.raises(EntryError, match="version"):
        EntryHeader.parse(body)
    with pytest.raises(EntryError):
        EntryHeader.parse(b"[1, 2]")
    with pytest.raises(EntryError):
        EntryHeader.parse(b'{"version": 1, "model": "m", "n_tokens": -1}')
    with pytest.raises(EntryError):
        EntryHeader.header_length(MAGIC + b"\xff\xff\xff\xff")
