"""The step records the decoder builds with trace=True: coins, residual and bonus from hand-built rows."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import Draft, ModelDrafter
from app.core.decoding.events import FinishedEvent, StepEvent, StepTimings
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.core.decoding.step_trace import record_step, top_entries
from app.core.decoding.verification import verify_draft
from tests.core.fakes import BigramLM, random_table


def _text(token: int) -> bytes:
    return f"<{token}>".encode()


def _dense(*probs: float) -> TokenDistribution:
    return TokenDistribution.from_dense(probs)


def test_verify_returns_the_coins_it_drew_in_the_same_order() -> None:
    q = [_dense(0.1, 0.6, 0.3), _dense(0.5, 0.25, 0.25)]
    p = [_dense(0.2, 0.2, 0.6), _dense(0.3, 0.3, 0.4), _dense(1.0, 0.0, 0.0)]
    verdict = verify_draft([1, 0], q, p, np.random.default_rng(7))
    replay = np.random.default_rng(7)
    expected = [float(replay.random()) for _ in verdict.coins]
    assert list(verdict.coins) == expected
    accept = [min(1.0, p[i].prob_of(t) / q[i].prob_of(t)) for i, t in enumerate([1, 0])]
    for i, coin in enumerate(verdict.coins):
        assert (coin < accept[i]) == (i < verdict.n_accepted)


def test_a_rejection_keeps_the_residuals_largest_entries_and_the_correction() -> None:
    # Token 1 drafted with q = 0.6 against p = 0.1: accepted with probability 1/6.
    q = [_dense(0.1, 0.6, 0.2, 0.1)]
    p = [_dense(0.3, 0.1, 0.5, 0.1), _dense(0.25, 0.25, 0.25, 0.25)]
    for seed in range(40):
        verdict = verify_draft([1], q, p, np.random.default_rng(seed))
        if verdict.rejected_token is not None:
            break
    else:
        pytest.fail("no seed rejected a token kept with probability 1/6")
    draft = Draft([1], q)
    record = record_step(
        index=3, first_token=10, n_emitted=1, draft=draft, draft_length=4, reason="fixed at 4", greedy=False,
        p_target=p, verdict=verdict, timings=StepTimings(0.002, 0.040, 0.05), token_bytes=_text,
    )  # fmt: skip
    (drafted,) = record.drafted
    assert not drafted.accepted and drafted.coin == verdict.coins[0]
    assert drafted.coin is not None and drafted.coin >= drafted.accept_probability == pytest.approx(0.1 / 0.6)
    # max(0, p - q) = (0.2, 0, 0.3, 0) -> (0.4, 0.6) over tokens 0 and 2.
    assert [(e.text, round(e.p, 6)) for e in record.residual_top] == [("<2>", 0.6), ("<0>", 0.4)]
    assert record.correction is not None and record.correction.text == f"<{verdict.next_token}>"
    assert record.correction.p == pytest.approx({0: 0.4, 2: 0.6}[verdict.next_token])
    assert record.bonus is None and record.bonus_top == ()
    assert (record.draft_ms, record.verify_ms) == (pytest.approx(2.0), pytest.approx(40.0))
    assert (record.index, record.first_token, record.reason) == (3, 10, "fixed at 4")


def test_a_full_draft_keeps_the_bonus_rows_top_entries() -> None:
    q = [TokenDistribution.one_hot(2)]
    p = [_dense(0.0, 0.0, 1.0), _dense(*[0.05] * 6, 0.7)]
    verdict = verify_draft([2], q, p, np.random.default_rng(0))
    record = record_step(
        index=0, first_token=0, n_emitted=2, draft=Draft([2], q, source="lookup", match_length=5), draft_length=1,
        reason="r", greedy=False, p_target=p, verdict=verdict, timings=StepTimings(0, 0, 0), token_bytes=_text,
    )  # fmt: skip
    assert record.drafted[0].accepted and record.rejected_at is None
    assert record.drafter == "lookup" and record.lookup_match == 5
    assert record.bonus_top[0].text == "<6>" and len(record.bonus_top) == 5
    assert [e.p for e in record.bonus_top] == sorted((e.p for e in record.bonus_top), reverse=True)
    assert record.bonus is not None and record.bonus.text == f"<{verdict.next_token}>"


def test_top_entries_are_the_largest_sorted() -> None:
    dist = _dense(0.05, 0.3, 0.1, 0.2, 0.15, 0.12, 0.08)
    assert [e.text for e in top_entries(dist, str, 3)] == ["1", "3", "4"]


def _generate(params: SamplingParams, trace: bool, seed: int = 0) -> list[StepEvent | FinishedEvent]:
    table = random_table(16, seed=3)
    rng = np.random.default_rng(seed)
    drafter = ModelDrafter(BigramLM(random_table(16, seed=4)), LogitsWarper(params, 16), rng)
    decoder = SpeculativeDecoder(BigramLM(table), drafter, params, FixedDraftLength(3), rng, trace=trace)
    return list(decoder.generate(GenerationRequest([1, 2, 3], max_tokens=40, first_step=2, first_token=7)))


@pytest.mark.parametrize("temperature", [0.0, 0.8])
def test_tracing_changes_no_token_and_the_records_tile_the_reply(temperature: float) -> None:
    params = SamplingParams(temperature=temperature, seed=0)
    plain = _generate(params, trace=False)
    traced = _generate(params, trace=True)
    assert [e.tokens for e in plain if isinstance(e, StepEvent)] == [
        e.tokens for e in traced if isinstance(e, StepEvent)
    ]
    assert all(e.record is None for e in plain if isinstance(e, StepEvent))
    steps = [e for e in traced if isinstance(e, StepEvent)]
    at = 7
    for n, event in enumerate(steps):
        record = event.record
        assert record is not None
        assert (record.index, record.first_token, record.n_emitted) == (n + 2, at, len(event.tokens))
        assert record.greedy == (temperature == 0.0) and record.reason.startswith("fixed at 3")
        assert len(record.drafted) == event.drafted and record.n_accepted == event.accepted
        at += record.n_emitted
        for token in record.drafted[: event.accepted + 1]:
            if record.greedy:
                assert token.coin is None
            elif token.coin is not None:
                assert (token.coin < token.accept_probability) == token.accepted
        if record.greedy and record.rejected_at is not None:
            assert record.drafted[record.rejected_at].target_top == record.correction.text  # type: ignore[union-attr]
    finished = traced[-1]
    assert isinstance(finished, FinishedEvent) and at - 7 == finished.stats.emitted


def test_a_stop_string_clips_the_steps_record() -> None:
    params = SamplingParams(temperature=0.0)
    table = random_table(16, seed=3)
    rng = np.random.default_rng(0)
    drafter = ModelDrafter(BigramLM(table), LogitsWarper(params, 16), rng)  # the target's own table: all kept
    free = SpeculativeDecoder(BigramLM(table), drafter, params, FixedDraftLength(3), rng, trace=True)
    events = list(free.generate(GenerationRequest([1, 2, 3], max_tokens=30)))
    steps = [e for e in events if isinstance(e, StepEvent) and len(e.tokens) >= 2]
    assert steps, "the fake pair kept no draft token in 30 tokens"
    stop = steps[0].tokens[1].text  # cut inside a step, after its first token
    rng = np.random.default_rng(0)
    drafter = ModelDrafter(BigramLM(table), LogitsWarper(params, 16), rng)
    cut = SpeculativeDecoder(BigramLM(table), drafter, params, FixedDraftLength(3), rng, trace=True)
    traced = list(cut.generate(GenerationRequest([1, 2, 3], max_tokens=30, stop_strings=(stop,))))
    last = [e for e in traced if isinstance(e, StepEvent)][-1]
    assert last.record is not None and last.record.n_emitted == len(last.tokens) < len(last.record.drafted) + 1
