"""The draft model's lazy prefill on the real small pair: same greedy reply, no draft work while drafting is off."""

from __future__ import annotations

from pathlib import Path

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.conversation.chat import Message
from app.core.decoding.decoder import FIRST_STEP_MAX_BACKLOG, GenerationRequest
from app.core.decoding.divergence import first_divergence
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.model_port import sync_cache
from app.core.decoding.sampling import SamplingParams
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig

GREEDY = SamplingParams(temperature=0)
QUESTION = "List the planets of the solar system in order from the sun, one per line, with one fact about each."


def _reply(pair: LoadedPair, kind: DrafterKind, length: int) -> tuple[list[StepEvent], FinishedEvent]:
    prompt = pair.template.render([Message("user", QUESTION)])
    events = list(
        pair.decoder(GREEDY, FixedDraftLength(length, first_token_first=True), drafter=kind).generate(
            GenerationRequest(prompt, 40)
        )
    )
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    return [e for e in events if isinstance(e, StepEvent)], finished


def _ids(steps: list[StepEvent]) -> list[int]:
    return [t.id for s in steps for t in s.tokens]


def test_lazy_prefill_keeps_the_greedy_reply(small_pair: tuple[Path, Path]) -> None:
    target, draft = small_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=512, n_threads=1, drafter=DrafterKind.MODEL)) as pair:
        prompt = pair.template.render([Message("user", QUESTION)])
        assert len(prompt) > FIRST_STEP_MAX_BACKLOG
        assert pair.draft is not None
        alone, _ = _reply(pair, DrafterKind.NONE, 0)
        lazy, finished = _reply(pair, DrafterKind.MODEL, 4)
        # Eager, as before: the draft's cache holds the prompt before the reply starts.
        pair.draft.truncate(0)
        sync_cache(pair.draft, prompt[:-1])
        eager, _ = _reply(pair, DrafterKind.MODEL, 4)
    # The first token comes from the target alone; the draft model reads the prompt on the next step.
    assert lazy[0].drafted == 0 and lazy[0].draft_caught_up == 0
    assert lazy[1].drafted > 0 and lazy[1].draft_caught_up == len(prompt) + len(lazy[0].tokens)
    assert max(s.draft_caught_up for s in lazy[2:]) <= 2
    assert finished.stats.draft_caught_up >= len(prompt)
    assert eager[1].draft_caught_up <= 2  # its cache already held the prompt
    assert first_divergence(_ids(alone), _ids(lazy)) is None
    assert first_divergence(_ids(eager), _ids(lazy)) is None


def test_the_draft_model_reads_nothing_while_drafting_stays_off(small_pair: tuple[Path, Path]) -> None:
    target, draft = small_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=512, n_threads=1)) as pair:
        assert pair.draft is not None
        for kind in (DrafterKind.MODEL, DrafterKind.HYBRID):
            steps, finished = _reply(pair, kind, 0)
            assert steps and all(s.draft_caught_up == 0 for s in steps)
            assert finished.stats.draft_caught_up == 0
            assert list(pair.draft.kv_tokens) == []  # not one prompt token read by the draft model
        figures = finished.stats.prompt_figures
        assert figures is not None and figures.prompt_tokens == finished.stats.prompt_tokens
        # The second reply found the whole prompt (but its last token) in the target's cache.
        assert figures.prompt_reused == figures.prompt_tokens - 1
        json_stats = finished.stats.to_dict()
        for key in ("prompt_tokens", "prompt_reused", "prefill_ms", "time_to_first_token_ms"):
            assert key in json_stats
        assert json_stats["time_to_first_token_ms"] >= json_stats["prefill_ms"] >= 0


def test_loading_times_one_decode_of_each_model_and_leaves_the_caches_empty(small_pair: tuple[Path, Path]) -> None:
    target, draft = small_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=512, n_threads=1)) as pair:
        assert pair.draft is not None
        assert list(pair.target.kv_tokens) == [] and list(pair.draft.kv_tokens) == []
        share = pair.profile.draft_share_prior
        assert share is not None and share > 0
        # Every generation's view carries it to the controller's first catch-up decision.
        assert pair.profile.for_drafter("model", True).draft_share_prior == share
        # The timed decodes left nothing behind: a reply starts from position 0.
        steps, _ = _reply(pair, DrafterKind.NONE, 0)
        assert steps[0].tokens
    with LoadedPair(PairConfig(target, None, n_ctx=512, n_threads=1, drafter=DrafterKind.NONE)) as alone:
        assert alone.profile.draft_share_prior is None and list(alone.target.kv_tokens) == []


def test_a_fresh_pair_does_not_read_a_long_document_mid_reply_only_to_measure_its_draft(
    small_pair: tuple[Path, Path],
) -> None:
    # The small pair's draft decodes in about 0.6 of its target's time: no draft length repays reading
    # a 1,500-token document for a 24-token reply, so the adaptive default leaves the draft model off
    # instead of reading the document into it on the second step (what it did before the load timed it).
    target, draft = small_pair
    document = " ".join(f"Item {i} weighs {i * 7 % 13} kilograms and ships from depot {i % 5}." for i in range(120))
    with LoadedPair(PairConfig(target, draft, n_ctx=2048, n_threads=1, drafter=DrafterKind.MODEL)) as pair:
        assert pair.draft is not None
        prompt = pair.template.render([Message("user", document + "\nWhich depot ships item 7?")])
        assert len(prompt) > 1000
        events = list(pair.decoder(GREEDY, AdaptiveDraftLength()).generate(GenerationRequest(prompt, 24)))
        finished = events[-1]
        assert isinstance(finished, FinishedEvent)
        steps = [e for e in events if isinstance(e, StepEvent)]
        assert len(steps) > 1
        assert finished.stats.draft_caught_up < len(prompt)
        assert len(pair.draft.kv_tokens) < len(prompt)
