"""The prompt's figures: kept in the statistics summary, read back, worded; the draft model's prefill is lazy."""

from __future__ import annotations

import numpy as np

from app.core.decoding.decoder import FIRST_STEP_MAX_BACKLOG, GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import ModelDrafter
from app.core.decoding.events import FinishedEvent, PromptFigures, StepEvent
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.core.decoding.stats import GenerationStats
from app.core.reply.record import ReplyRecord, stats_record
from tests.core.fakes import BigramLM, random_table

GREEDY = SamplingParams(temperature=0)


def test_figures_round_trip_through_the_stored_summary() -> None:
    figures = PromptFigures(prompt_tokens=4000, prompt_reused=900, prefill_ms=1234.5, time_to_first_token_ms=1300.0)
    assert PromptFigures.from_dict(figures.to_dict()) == figures
    assert figures.prompt_read == 3099
    assert figures.words() == "first token 1,300 ms  ·  prompt 2,510 tok/s  ·  900 of 4,000 prompt tokens from cache"
    stats = GenerationStats(steps=1, prompt_tokens=4000, prompt_reused=900, prefill_s=1.2345, time_to_first_token_s=1.3)
    record = ReplyRecord.from_meta({"stats": stats_record(stats)})
    assert record.prompt_figures is not None and record.prompt_figures.prompt_reused == 900


def test_an_older_reply_has_no_figures_and_a_damaged_one_loads() -> None:
    old = {"stats": {"prompt_tokens": 40, "prefill_s": 0.2, "emitted": 5}}  # what Tandem stored before
    assert ReplyRecord.from_meta(old).prompt_figures is None
    damaged = {"stats": {"prompt_tokens": "x", "prompt_reused": -1, "prefill_ms": float("nan")}}
    assert ReplyRecord.from_meta(damaged).prompt_figures is None
    assert PromptFigures.from_dict(None) is None
    # Nothing read (all cached) or no measurable time: no speed, said as a dash.
    cached = PromptFigures(10, 9, 0.0, 3.0)
    assert cached.prompt_tokens_per_second is None and "prompt —" in cached.words()


def test_before_any_step_there_are_no_figures() -> None:
    assert GenerationStats().prompt_figures is None
    assert "time_to_first_token_ms" not in GenerationStats().to_dict()


def _run(prompt: list[int], length: int, first_token_first: bool) -> tuple[BigramLM, list[StepEvent], FinishedEvent]:
    table = random_table(12, seed=3)
    draft_model = BigramLM(table)
    rng = np.random.default_rng(0)
    drafter = ModelDrafter(draft_model, LogitsWarper(GREEDY, 12), rng)
    policy = FixedDraftLength(length, first_token_first=first_token_first)
    decoder = SpeculativeDecoder(BigramLM(table), drafter, GREEDY, policy, rng)
    events = list(decoder.generate(GenerationRequest(prompt, max_tokens=10)))
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    return draft_model, [e for e in events if isinstance(e, StepEvent)], finished


def test_a_long_prompt_gives_its_first_token_before_the_draft_reads_it() -> None:
    prompt = [int(t) for t in np.arange(FIRST_STEP_MAX_BACKLOG + 10) % 11 + 1]
    _, steps, finished = _run(prompt, 3, first_token_first=True)
    assert steps[0].drafted == 0 and steps[0].prompt is not None and steps[1].prompt is None
    assert steps[1].draft_caught_up == len(prompt) + len(steps[0].tokens)  # the lazy prefill, on the first draft
    assert finished.stats.prompt_figures == steps[0].prompt
    # Where the policy drafts every step (the demo), the first step drafts and reads the prompt then.
    _, demo_steps, _ = _run(prompt, 3, first_token_first=False)
    assert demo_steps[0].drafted > 0 and demo_steps[0].draft_caught_up == len(prompt)
    assert [t.id for s in demo_steps for t in s.tokens] == [t.id for s in steps for t in s.tokens]
    # A short prompt is read by the first draft at once: no step is given up.
    _, short_steps, _ = _run(prompt[:FIRST_STEP_MAX_BACKLOG], 3, first_token_first=True)
    assert short_steps[0].drafted > 0


def test_the_draft_model_reads_nothing_when_it_never_drafts() -> None:
    draft_model, steps, finished = _run([t % 11 + 1 for t in range(30)], 0, first_token_first=True)
    assert draft_model.decode_calls == [] and list(draft_model.kv_tokens) == []
    assert steps and all(s.draft_caught_up == 0 for s in steps)
    assert finished.stats.draft_caught_up == 0 and finished.stats.to_dict()["draft_caught_up"] == 0


def test_a_server_that_does_not_say_what_it_had_cached() -> None:
    figures = PromptFigures(prompt_tokens=120, prompt_reused=None, prefill_ms=300.0, time_to_first_token_ms=300.0)
    assert PromptFigures.from_dict(figures.to_dict()) == figures
    assert figures.prompt_tokens_per_second is None  # its prefill may have skipped cached tokens: no speed guessed
    assert figures.words().endswith("120 prompt tokens (the server does not say how many it had cached)")
