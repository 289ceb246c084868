"""Hybrid drafting on the real small pair: the default with a draft model, tokens tagged by the drafter behind them."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.conversation.chat import Message
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.divergence import first_divergence
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import LOOKUP_SOURCE, MODEL_SOURCE
from app.core.decoding.events import FinishedEvent, StepEvent, TokenOrigin
from app.core.decoding.lookup_drafters import HybridDrafter, NgramDrafter
from app.core.decoding.sampling import SamplingParams
from app.core.errors import TandemError
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig

GREEDY = SamplingParams(temperature=0)
# The small target copies this edit back almost verbatim (measured: 20 tokens, 16 of them looked up).
EDIT = "Rename x to y and return the code:\n\ndef f(x):\n    return x + 1\n\ndef g(x):\n    return x * 2"


def _run(pair: LoadedPair, kind: DrafterKind | None) -> tuple[list[StepEvent], FinishedEvent]:
    """A reply that copies its input; at a fixed length, so what is drafted does not depend on measured costs."""
    prompt = pair.template.render([Message("user", EDIT)])
    decoder = pair.decoder(GREEDY, FixedDraftLength(4), drafter=kind)
    events = list(decoder.generate(GenerationRequest(prompt, max_tokens=48)))
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    return [e for e in events if isinstance(e, StepEvent)], finished


def test_hybrid_is_the_default_and_tags_every_draft_token(small_pair: tuple[Path, Path]) -> None:
    target, draft = small_pair
    config = PairConfig(target, draft, n_ctx=512, n_threads=1)
    assert config.drafter is DrafterKind.HYBRID
    with LoadedPair(config) as pair:
        assert isinstance(pair.decoder(GREEDY, AdaptiveDraftLength()).drafter, HybridDrafter)
        assert isinstance(pair.decoder(GREEDY, AdaptiveDraftLength(), drafter=DrafterKind.NGRAM).drafter, NgramDrafter)
        steps, finished = _run(pair, None)
        baseline, _ = _run(pair, DrafterKind.NONE)
    tokens = [t for s in steps for t in s.tokens]
    for token in tokens:
        if token.origin is TokenOrigin.DRAFT:
            assert token.source in (LOOKUP_SOURCE, MODEL_SOURCE)
        else:
            assert token.source is None
    stats = finished.stats
    assert sum(d for d, _ in stats.by_source.values()) == stats.drafted
    assert sum(a for _, a in stats.by_source.values()) == stats.accepted
    assert stats.to_dict()["by_source"].keys() == stats.by_source.keys()
    # The reply repeats its input, so the lookup drafts some of it and the model the rest.
    assert stats.by_source[LOOKUP_SOURCE][1] > 0 and stats.by_source[MODEL_SOURCE][0] > 0
    # Greedy: the same reply as target-only (this pair's batched numerics agree on this prompt).
    ids = [t.id for t in tokens]
    assert first_divergence([t.id for s in baseline for t in s.tokens], ids) is None


def test_model_and_hybrid_need_a_draft_model(small_pair: tuple[Path, Path]) -> None:
    with pytest.raises(TandemError, match="hybrid drafting"):
        PairConfig(small_pair[0], None, DrafterKind.HYBRID)
    assert DrafterKind.HYBRID.uses_draft_model and not DrafterKind.NGRAM.uses_draft_model
