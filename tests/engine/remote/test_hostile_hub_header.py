"""A hostile GGUF header on the Hub: its claims are checked against its own counts and the file, at once.

The stand-in Hub (tests/engine/hub_server.py) serves hand-built headers and
may lie about the file's size; the reader is the real
:func:`~app.engine.hub.remote.read_remote_header` through huggingface_hub.
"""

from __future__ import annotations

import struct
import time
import tracemalloc
from collections.abc import Iterator

import pytest

from app.engine.gguf.header import HeaderIncompleteError, ModelFileError, parse_header_bytes
from app.engine.hub.remote import read_remote_header
from tests.engine.hub_server import FakeHub, running_hub

REPO, NAME = "evil/Header-GGUF", "evil.gguf"


def gguf_string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def hostile_header(count: int, strings: int, n_kv: int = 1, n_tensors: int = 1) -> bytes:
    """A GGUF v3 header whose vocabulary array claims ``count`` strings and holds ``strings`` empty ones."""
    head = b"GGUF" + struct.pack("<IQQ", 3, n_tensors, n_kv)
    key = gguf_string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, count)
    return head + key + struct.pack("<Q", 0) * strings


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with running_hub() as state:
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        yield state


@pytest.mark.parametrize("announced", [8 << 20, 10**12])  # the file's real size, or a lie of a terabyte
def test_a_header_claiming_a_billion_strings_is_refused_after_the_first_read(hub: FakeHub, announced: int) -> None:
    data = hostile_header(10**9, (8 << 20) // 8 - 8)
    hub.add(REPO, NAME, data)
    hub.announced_sizes[(REPO, NAME)] = announced
    tracemalloc.start()
    started = time.perf_counter()
    with pytest.raises(ModelFileError, match="implausible header: it claims 1,000,000,000 strings"):
        read_remote_header(REPO, NAME)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert hub.sent[(REPO, NAME)] <= 1 << 20  # the first 1 MiB only (before: up to 512 MiB, over 1 GB held)
    assert peak < 16 << 20 and seconds < 10


def test_counts_of_keys_and_tensors_must_fit_in_the_file() -> None:
    data = hostile_header(1, 1, n_kv=900_000, n_tensors=900_000)
    with pytest.raises(
        ModelFileError, match=r"truncated: .* claims 900,000 keys and 900,000 tensors, at least 33,300,000"
    ):
        parse_header_bytes(data, NAME, 1 << 20)


def test_a_string_longer_than_the_file_is_refused_not_fetched() -> None:
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 1) + struct.pack("<Q", 1 << 40)
    with pytest.raises(ModelFileError, match="a string of 1,099,511,627,776 bytes"):
        parse_header_bytes(head + b"x" * 100, NAME, 10**13)


def test_an_incomplete_string_array_allocates_no_strings_while_it_waits_for_more() -> None:
    # 200,000 empty strings of a claimed 400,000, in a 1.6 MB prefix of a large file: the reader asks for
    # more bytes without building a Python object per string first (at 512 MiB that was over 1 GB).
    strings = 200_000
    data = hostile_header(2 * strings, strings)
    tracemalloc.start()
    with pytest.raises(HeaderIncompleteError):
        parse_header_bytes(data, NAME, 1 << 36)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20  # the strings alone would be 10 MB


def test_arrays_nested_without_end_are_an_error_not_a_recursion_crash() -> None:
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gguf_string("deep") + struct.pack("<I", 9)
    nested = struct.pack("<IQ", 9, 1) * 5000
    with pytest.raises(ModelFileError, match="nests arrays more than 8 deep"):
        parse_header_bytes(head + nested + b"\0" * 64, NAME, 1 << 20)
