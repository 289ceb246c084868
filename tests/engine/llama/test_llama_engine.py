"""The llama.cpp adapter and the decoder on the real SmolLM2 pair."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.core.conversation.chat import Message
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.divergence import NEAR_TIE_LOGIT_GAP, first_divergence, top_two_gap
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent, TokenOrigin
from app.core.decoding.sampling import SamplingParams
from app.core.errors import IncompatiblePairError
from app.engine.gguf.header import ModelFileError
from app.engine.llama.model import LlamaModel, LoadOptions
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from tests.engine.llama.logits import fresh_next_logits

GREEDY = SamplingParams(temperature=0)
PROMPTS = [
    "Write a python function that reverses a string.",
    "What is the capital of France? Explain its history briefly.",
    "List five fruits and their colours.",
    "Write a short story about a robot learning to paint.",
    "Explain recursion to a child.",
    "Give three tips for writing clean code.",
]


@pytest.fixture(scope="module")
def pair(small_pair: tuple[Path, Path]) -> Iterator[LoadedPair]:
    target, draft = small_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=1024, n_threads=2)) as loaded:
        yield loaded


def generate(pair: LoadedPair, prompt: list[int], kind: DrafterKind, max_tokens: int = 64, **kw: object):
    decoder = pair.decoder(kw.pop("params", GREEDY), FixedDraftLength(4), drafter=kind)  # type: ignore[arg-type]
    steps: list[StepEvent] = []
    finished = None
    for event in decoder.generate(GenerationRequest(prompt, max_tokens=max_tokens, **kw)):  # type: ignore[arg-type]
        if isinstance(event, StepEvent):
            steps.append(event)
        else:
            finished = event
    assert isinstance(finished, FinishedEvent)
    return [t.id for s in steps for t in s.tokens], steps, finished


def test_kv_cache_after_each_step_equals_a_fresh_evaluation(pair: LoadedPair) -> None:
    prompt = pair.template.render([Message("user", PROMPTS[0])])
    decoder = pair.decoder(GREEDY, FixedDraftLength(5), drafter=DrafterKind.MODEL)
    committed = list(prompt)
    checked = 0
    target = pair.target
    for event in decoder.generate(GenerationRequest(prompt, max_tokens=24)):
        if not isinstance(event, StepEvent):
            continue
        committed += [t.id for t in event.tokens]
        assert list(target.kv_tokens) == committed[:-1]
        # Logits from the rolled-back cache, then the cache is put back as it was.
        rolled_back = target.decode([committed[-1]], "last")[0].copy()
        target.truncate(len(committed) - 1)
        scale = float(np.std(rolled_back))
        with_fresh = _fresh_with_restore(target, committed)
        assert np.max(np.abs(rolled_back - with_fresh)) < 0.05 * scale
        checked += 1
    assert checked >= 4


def _fresh_with_restore(model: LlamaModel, committed: list[int]) -> np.ndarray:
    logits = fresh_next_logits(model, committed)
    model.truncate(len(committed) - 1)
    return logits


def test_a_stale_cache_would_be_detected(pair: LoadedPair) -> None:
    """The tolerance above is meaningful: skipping the rollback changes the logits far beyond it."""
    prompt = pair.template.render([Message("user", PROMPTS[1])])
    target = pair.target
    good = fresh_next_logits(target, prompt)
    target.truncate(0)
    target.decode(prompt[:-1], "none")
    target.decode([17, 42, 99], "none")  # rejected drafts that were never rolled back
    stale = target.decode([prompt[-1]], "last")[0].copy()
    assert np.max(np.abs(stale - good)) > 0.05 * float(np.std(good))


def test_greedy_speculative_matches_target_only_up_to_near_ties(pair: LoadedPair) -> None:
    """Report the match rate; every divergence must sit at a near-tie of the target."""
    matched = total = 0
    report = []
    for text in PROMPTS:
        prompt = pair.template.render([Message("user", text)])
        # 40 tokens a reply: every prompt is still compared three ways, and the six prompts' decoding stays short.
        baseline, _, _ = generate(pair, prompt, DrafterKind.NONE, 40)
        for kind in (DrafterKind.MODEL, DrafterKind.NGRAM):
            candidate, _, _ = generate(pair, prompt, kind, 40)
            at = first_divergence(baseline, candidate)
            matched += len(baseline) if at is None else min(at, len(baseline))
            total += len(baseline)
            if at is not None:
                gap = top_two_gap(fresh_next_logits(pair.target, prompt + baseline[:at]))
                report.append((text[:30], kind.value, at, round(gap, 4)))
                assert gap < NEAR_TIE_LOGIT_GAP, f"divergence at a clear argmax: {report[-1]}"
    print(f"\ngreedy match rate {matched}/{total} = {matched / total:.3f}; divergences: {report}")
    assert matched / total > 0.5


def test_a_logit_bias_holds_speculation_to_the_biased_target(pair: LoadedPair) -> None:
    """Greedy with a bias drafts as before and equals the target alone with the same bias, up to near ties."""
    prompt = pair.template.render([Message("user", PROMPTS[2])])
    plain, _, _ = generate(pair, prompt, DrafterKind.NONE, 24)
    banned = plain[0]
    params = SamplingParams(temperature=0, logit_bias=((banned, -100.0),))
    alone, _, _ = generate(pair, prompt, DrafterKind.NONE, 24, params=params)
    assert banned not in alone and alone != plain
    for kind in (DrafterKind.MODEL, DrafterKind.NGRAM):
        candidate, steps, _ = generate(pair, prompt, kind, 24, params=params)
        at = first_divergence(alone, candidate)
        if at is not None:
            logits = fresh_next_logits(pair.target, prompt + alone[:at])
            logits[banned] -= 100.0
            assert top_two_gap(logits) < NEAR_TIE_LOGIT_GAP, f"{kind.value} diverged at a clear argmax ({at})"
        assert banned not in candidate
        if kind is DrafterKind.MODEL:
            assert sum(s.accepted for s in steps) > 0


def test_origins_and_probabilities_are_consistent(pair: LoadedPair) -> None:
    prompt = pair.template.render([Message("user", PROMPTS[2])])
    params = SamplingParams(temperature=0.8, seed=3)
    _, steps, finished = generate(pair, prompt, DrafterKind.MODEL, 48, params=params)
    assert finished.stats.drafted > 0
    for step in steps:
        for i, token in enumerate(step.tokens):
            assert 0.0 < token.p_target <= 1.0
            if i < step.accepted:
                assert token.origin is TokenOrigin.DRAFT and token.q_draft is not None and token.q_draft > 0
        if step.accepted < step.drafted:  # the target turned a proposal down
            if step.accepted >= len(step.tokens):
                # End-of-generation came in this step (an accepted draft token or the correction): it is not
                # emitted, and the reply ends here.
                assert step is steps[-1] and finished.reason is FinishReason.EOG
            else:
                corrected = step.tokens[step.accepted]
                assert corrected.origin is TokenOrigin.CORRECTED and corrected.rejected is not None
                q = corrected.rejected.q_draft
                assert q is not None and q > 0  # it was drawn from q_draft
        # Only the corrected token carries a rejected proposal.
        assert [t.rejected is not None for t in step.tokens] == [t.origin is TokenOrigin.CORRECTED for t in step.tokens]


def test_seeded_sampling_is_reproducible(pair: LoadedPair) -> None:
    prompt = pair.template.render([Message("user", PROMPTS[3])])
    params = SamplingParams(temperature=1.0, seed=11)
    first, _, _ = generate(pair, prompt, DrafterKind.MODEL, 32, params=params)
    second, _, _ = generate(pair, prompt, DrafterKind.MODEL, 32, params=params)
    assert first == second


def test_detokenisation_keeps_multibyte_characters(pair: LoadedPair) -> None:
    text = "Café 🚀 naïve — ok"
    tokens = pair.target.tokenize(text)
    from app.core.decoding.text import IncrementalDetokenizer

    detok = IncrementalDetokenizer(pair.target.token_bytes)
    assert "".join(detok.piece(t) for t in tokens) + detok.flush() == text


def test_chat_template_uses_special_tokens(pair: LoadedPair) -> None:
    tokens = pair.template.render([Message("user", "Hi")])
    im_start = pair.target.tokenize("<|im_start|>")
    assert len(im_start) == 1 and tokens.count(im_start[0]) >= 2
    assert pair.target.token_text(tokens[-1]) in ("\n", "Ċ")


def test_context_full_ends_generation(small_pair: tuple[Path, Path]) -> None:
    target, draft = small_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=64, n_threads=2)) as small_ctx:
        prompt = small_ctx.template.render([Message("user", "Count from one to one hundred in words.")])
        ids, _, finished = generate(small_ctx, prompt, DrafterKind.MODEL, 500)
        assert finished.reason.value in ("context", "eog")
        assert len(prompt) + len(ids) <= 64 + 1


def test_truncated_and_foreign_files_are_refused(tmp_path: Path, small_pair: tuple[Path, Path]) -> None:
    target, _ = small_pair
    truncated = tmp_path / "cut.gguf"
    with target.open("rb") as source:
        truncated.write_bytes(source.read(5_000_000))
    with pytest.raises(ModelFileError, match="truncated"):
        LlamaModel(truncated, LoadOptions(n_ctx=256))
    text = tmp_path / "notes.gguf"
    text.write_text("hello, I am not a model")
    with pytest.raises(ModelFileError, match="not a GGUF"):
        LlamaModel(text, LoadOptions(n_ctx=256))
    with pytest.raises(ModelFileError, match="not found"):
        LlamaModel(tmp_path / "missing.gguf")


def test_pair_with_different_vocabularies_is_refused(
    small_pair: tuple[Path, Path], demo_pair: tuple[Path, Path]
) -> None:
    with pytest.raises(IncompatiblePairError, match="token"):
        LoadedPair(PairConfig(small_pair[0], demo_pair[1], n_ctx=256))
