"""A target with a recurrent state is cut back after a rejected draft as exactly as a KV cache is.

On the SYNTHETIC qwen35 file of ``tests/fixtures/synthetic_drafters.py`` (random
weights, SmolLM2's tokenizer; gated delta-net layers beside attention ones): no
small real model of that kind is in reach. llama.cpp refuses to cut such a
state partway; :mod:`app.engine.llama.rollback` restores the state saved
before the last decode and reads the kept tokens again. What is proved is that
the logits after a cut equal those of a fresh context that read the same
tokens, whether the cut falls inside the last decode or before it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import llama_cpp
import numpy as np
import pytest

from app.engine.llama.model import DecodeError, LlamaModel, LoadOptions
from tests.fixtures.synthetic_drafters import SMOLLM2_FILE, Tokenizer, write_qwen35_mtp

TOKENS = [5, 9, 12, 7, 30, 41, 3, 22, 17, 8, 50, 11]


@pytest.fixture(scope="module")
def qwen35(tmp_path_factory: pytest.TempPathFactory, models_folder: Path) -> Path:
    tokenizer = Tokenizer.from_file(models_folder / SMOLLM2_FILE)
    return write_qwen35_mtp(tmp_path_factory.mktemp("synthetic") / "synthetic-qwen35.gguf", tokenizer)


@pytest.fixture
def models(qwen35: Path) -> Iterator[tuple[LlamaModel, LlamaModel]]:
    model = LlamaModel(qwen35, LoadOptions(n_ctx=128, n_threads=1))
    fresh = LlamaModel(qwen35, LoadOptions(n_ctx=128, n_threads=1))
    yield model, fresh
    model.close()
    fresh.close()


def test_logits_after_a_cut_equal_a_fresh_read_of_the_same_tokens(models: tuple[LlamaModel, LlamaModel]) -> None:
    model, fresh = models
    want = fresh.decode(TOKENS, "all").copy()
    model.decode(TOKENS[:5], "last")
    model.decode(TOKENS[5:9], "all")  # a verify step: four tokens, of which two are kept
    model.truncate(7)
    assert list(model.kv_tokens) == TOKENS[:7]
    np.testing.assert_array_equal(model.decode(TOKENS[7:], "all"), want[7:])
    model.truncate(3)  # back past the state saved before the last decode
    assert list(model.kv_tokens) == TOKENS[:3]
    np.testing.assert_array_equal(model.decode(TOKENS[3:], "all"), want[3:])


def test_a_state_saved_after_a_cut_holds_the_kept_tokens(models: tuple[LlamaModel, LlamaModel]) -> None:
    """The prefix cache saves what the context holds: the tokens kept by a cut are read before it is saved."""
    model, fresh = models
    model.decode(TOKENS[:5], "last")
    model.decode(TOKENS[5:9], "all")
    model.truncate(7)
    state = model.state_bytes()
    assert fresh.load_state(state, TOKENS[:7])
    np.testing.assert_array_equal(fresh.decode(TOKENS[7:], "all"), model.decode(TOKENS[7:], "all"))


def _writer(ids: list[int]) -> Callable[[llama_cpp.llama_context_p, int], int]:
    """Fills positions from outside the model's own batch, as mtmd writes an image (here: plain tokens)."""

    def write(ctx: llama_cpp.llama_context_p, n_past: int) -> int:
        batch = llama_cpp.llama_batch_init(len(ids), 0, 1)
        try:
            for i, token in enumerate(ids):
                batch.token[i] = token
                batch.pos[i] = n_past + i
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = 0
                batch.logits[i] = 0
            batch.n_tokens = len(ids)
            return int(llama_cpp.llama_decode(ctx, batch))
        finally:
            llama_cpp.llama_batch_free(batch)

    return write


def test_a_cut_that_would_read_an_image_again_says_so_and_leaves_the_cache_before_it(
    models: tuple[LlamaModel, LlamaModel],
) -> None:
    """An image's positions hold stand-in ids: read again as text they would be wrong, so the model refuses."""
    model, fresh = models
    want = fresh.decode(TOKENS, "all").copy()
    model.decode(TOKENS[:3], "none")
    model.append_written([900, 901], _writer(TOKENS[3:5]))  # "the image": its ids are stand-ins
    model.decode(TOKENS[5:9], "all")
    model.truncate(7)  # inside the last decode: the image stays, nothing is read again
    np.testing.assert_array_equal(model.decode(TOKENS[7:], "all"), want[7:])
    model.truncate(6)  # back past the state saved before the last decode: the image would be read again
    with pytest.raises(DecodeError, match="an image earlier in the chat cannot be read into it again"):
        model.decode(TOKENS[6:], "all")
    assert list(model.kv_tokens) == TOKENS[:3]  # the cache holds what it can stand behind
    np.testing.assert_array_equal(model.decode(TOKENS[3:], "all"), want[3:])
