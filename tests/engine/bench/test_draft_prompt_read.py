"""The benchmark times the draft model's reading of the prompt as prompt processing, as llama-server's timings do."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from app.core.decoding.drafters import DrafterKind
from app.core.decoding.model_port import Outputs
from app.core.decoding.sampling import SamplingParams
from app.engine.bench.documents import prepare
from app.engine.bench.runner import _generate
from app.engine.bench.suite import BenchConfig, BenchPrompt
from app.engine.llama.model import LlamaModel
from app.engine.llama.session import LoadedPair, PairConfig
from tests.engine.bench.smoke import smoke_settings


@pytest.mark.parametrize("drafter", [DrafterKind.MODEL, DrafterKind.HYBRID])
def test_a_drafting_run_has_the_prompt_read_by_the_draft_before_its_reply_is_timed(
    small_pair: tuple[Path, Path], drafter: DrafterKind, monkeypatch: pytest.MonkeyPatch
) -> None:
    target, draft = small_pair
    prompt = BenchPrompt("p", "code-write", "Write a Python function that adds two numbers.")
    with LoadedPair(PairConfig(target, draft, n_ctx=512, n_threads=1)) as pair:
        assert pair.draft is not None
        tokens = prepare(pair, prompt.text, None, (), 16).tokens
        reads: list[int] = []
        decode = LlamaModel.decode

        def counted(model: LlamaModel, batch: Sequence[int], outputs: Outputs) -> npt.NDArray[np.float32]:
            if model is pair.draft:
                reads.append(len(batch))
            return decode(model, batch, outputs)

        monkeypatch.setattr(LlamaModel, "decode", counted)
        config = BenchConfig(f"{drafter} K=4", drafter, 4)
        record = _generate(pair, "q4", prompt, tokens, config, SamplingParams(), 0, smoke_settings(max_tokens=16))
    assert record.tokens and record.prefill_s > 0.0
    # The prompt in one read before the reply; within the reply the draft reads a token or two per step.
    assert reads[0] == len(tokens) - 1
    assert max(reads[1:], default=0) <= 2, reads
