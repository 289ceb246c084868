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

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.engine.llama.model import LlamaModel, LoadOptions
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
