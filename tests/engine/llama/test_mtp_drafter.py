"""The model's own MTP layers draft in-process through the bindings, and the verifier stays exact.

On the SYNTHETIC glm4moe file of ``tests/fixtures/synthetic_drafters.py``
(random weights, SmolLM2's tokenizer, an MTP block built to agree with the
trunk often): no small real model with MTP layers exists. Not the qwen35 one:
its gated-delta-net layers keep a recurrent state that llama.cpp cannot cut
back after a rejected draft, which Tandem's decoder needs of a target. What is proved is
that drafting through llama.cpp's MTP context works behind the draft-model
drafter, that greedy output equals the target alone, and that sampled output
follows the target's distribution (chi-square through the whole decoder);
not how often real MTP layers are accepted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import ModelDrafter
from app.core.decoding.events import FinishedEvent, StepEvent, TokenOrigin
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.engine.llama.model import LlamaModel, LoadOptions
from app.engine.llama.mtp import MtpHead
from tests.fixtures.synthetic_drafters import SMOLLM2_FILE, Tokenizer, write_glm4moe_mtp

GREEDY = SamplingParams(temperature=0)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, models_folder: Path) -> Iterator[tuple[LlamaModel, MtpHead]]:
    folder = tmp_path_factory.mktemp("synthetic")
    path = write_glm4moe_mtp(folder / "synthetic-glm4moe-mtp.gguf", Tokenizer.from_file(models_folder / SMOLLM2_FILE))
    target = LlamaModel(path, LoadOptions(n_ctx=512, n_threads=1))
    head = MtpHead(target)
    yield target, head
    head.close()
    target.close()


def _run(decoder: SpeculativeDecoder, prompt: list[int], max_tokens: int) -> tuple[list[StepEvent], FinishedEvent]:
    events = list(decoder.generate(GenerationRequest(prompt, max_tokens=max_tokens)))
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    return [e for e in events if isinstance(e, StepEvent)], finished


def _mtp_decoder(pair: tuple[LlamaModel, MtpHead], params: SamplingParams, k: int, seed: int) -> SpeculativeDecoder:
    target, head = pair
    rng = np.random.default_rng(seed)
    drafter = ModelDrafter(head, LogitsWarper(params, head.n_vocab), rng)
    return SpeculativeDecoder(target, drafter, params, FixedDraftLength(k), rng)


def test_greedy_output_with_the_mtp_layers_equals_the_target_alone(pair: tuple[LlamaModel, MtpHead]) -> None:
    target, _ = pair
    prompt = target.tokenize("Once upon a time there was a lighthouse keeper who")
    alone_steps, alone = _run(SpeculativeDecoder(target, None, GREEDY), prompt, 40)
    steps, finished = _run(_mtp_decoder(pair, GREEDY, k=3, seed=0), prompt, 40)
    assert [t.id for s in steps for t in s.tokens] == [t.id for s in alone_steps for t in s.tokens]
    assert finished.text == alone.text
    origins = Counter(t.origin for s in steps for t in s.tokens)
    assert finished.stats.drafted > 0 and origins[TokenOrigin.DRAFT] > 0  # the MTP layers' drafts were kept


def test_sampled_output_with_the_mtp_layers_follows_the_target_distribution(pair: tuple[LlamaModel, MtpHead]) -> None:
    """Chi-square on the joint distribution of two sampled tokens (top-3 each: 9 cells), through the whole decoder."""
    target, _ = pair
    params = SamplingParams(temperature=2.0, top_k=3, top_p=1.0, min_p=0.0)
    warper = LogitsWarper(params, target.n_vocab)
    prompt = target.tokenize("The sea was calm and the")
    # The target's own distribution, token by token.
    target.truncate(0)
    first = warper.warp(target.decode(prompt, "last")[-1].copy(), [])
    expected: dict[tuple[int, int], float] = {}
    for a, pa in zip(first.ids.tolist(), first.probs.tolist(), strict=True):
        target.truncate(len(prompt))
        second = warper.warp(target.decode([a], "last")[-1].copy(), [])
        for b, pb in zip(second.ids.tolist(), second.probs.tolist(), strict=True):
            expected[(a, b)] = pa * pb
    decoder = _mtp_decoder(pair, params, k=2, seed=7)
    trials = 1500
    counts: Counter[tuple[int, int]] = Counter()
    drafted = accepted = 0
    for _ in range(trials):
        steps, finished = _run(decoder, prompt, 2)
        ids = [t.id for s in steps for t in s.tokens]
        counts[(ids[0], ids[1])] += 1
        drafted += finished.stats.drafted
        accepted += finished.stats.accepted
    cells = sorted(expected)
    assert set(counts) <= set(cells)
    observed = np.array([counts[c] for c in cells])
    result = stats.chisquare(observed, np.array([expected[c] for c in cells]) * trials)
    assert result.pvalue > 1e-3, result
    assert 0 < accepted < drafted  # the MTP drafts were verified both ways
