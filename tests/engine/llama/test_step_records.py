"""Step records on the real SmolLM2 pair, drafting forced on (a fixed length of 4), at T = 0 and T = 0.8.

The records must agree with the reply they describe: the steps' tokens spell
the reply, every tested draft token's coin lies below min(1, p/q) exactly
when it was kept, the residual's entries are max(0, p - q) renormalised
(recomputed here from fresh target and draft rows), greedy steps keep a
draft token exactly when it is the target's argmax, the steps tile the reply's
tokens, and the records come back unchanged from the store and from an
export read back in. Models run with one thread (other tests share the cores).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.core.conversation.chat import Message
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.model_port import CausalLM, sync_cache
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.core.decoding.step_trace import top_entries
from app.core.decoding.text import standalone_text
from app.core.decoding.verification import residual_distribution
from app.core.reply.step_record import StepRecord
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.store.conversations import ChatStore
from app.engine.store.steps import encode_step

QUESTION = [
    Message("system", "You are brief."),
    Message("user", "Name three rivers of Europe and say where they flow."),
]
# A near-tie between batched and single-token kernels moves a probability by far less than this.
_ROW_TOLERANCE = 0.03


@pytest.fixture(scope="module")
def pair(small_pair: tuple[Path, Path]) -> Iterator[LoadedPair]:
    target, draft = small_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=1024, n_threads=1)) as loaded:
        yield loaded


Run = tuple[list[int], list[StepEvent], FinishedEvent]


def _run(pair: LoadedPair, params: SamplingParams, max_tokens: int = 48) -> Run:
    prompt = pair.prompt_tokens(QUESTION, reserve=max_tokens).tokens
    decoder = pair.decoder(params, FixedDraftLength(4), drafter=DrafterKind.MODEL, trace=True)
    steps: list[StepEvent] = []
    finished = None
    for event in decoder.generate(GenerationRequest(prompt, max_tokens=max_tokens)):
        if isinstance(event, StepEvent):
            steps.append(event)
        else:
            finished = event
    assert isinstance(finished, FinishedEvent)
    return prompt, steps, finished


@pytest.fixture(scope="module")
def greedy_run(pair: LoadedPair) -> Run:
    return _run(pair, SamplingParams(temperature=0))


@pytest.fixture(scope="module")
def sampled_run(pair: LoadedPair) -> Run:
    return _run(pair, SamplingParams(temperature=0.8, seed=11))


def _records(steps: list[StepEvent]) -> list[StepRecord]:
    records = [event.record for event in steps]
    assert all(record is not None for record in records)
    return [record for record in records if record is not None]


@pytest.mark.parametrize("which", ["greedy_run", "sampled_run"])
def test_the_steps_tokens_spell_the_reply_and_tile_it(which: str, request: pytest.FixtureRequest) -> None:
    _prompt, steps, finished = request.getfixturevalue(which)
    records = _records(steps)
    assert "".join(event.text for event in steps) == finished.text
    at = 0
    for n, (event, record) in enumerate(zip(steps, records, strict=True)):
        assert (record.index, record.first_token, record.n_emitted) == (n, at, len(event.tokens))
        at += record.n_emitted
        assert record.drafter == "model" and record.reason.startswith("fixed at 4")
        assert record.draft_length == 4 or record.reason.endswith(
            f"; {record.draft_length} by the tokens or context left"
        )
        assert len(record.drafted) == event.drafted and record.n_accepted == event.accepted
        # The kept draft tokens are the step's first tokens, with the same p and q.
        for token, emitted in zip(record.drafted[: record.n_accepted], event.tokens, strict=False):
            assert token.text == emitted.text or "\ufffd" in token.text  # a piece of a character stands alone as U+FFFD
            assert token.p_target == pytest.approx(emitted.p_target) and token.q_draft == pytest.approx(emitted.q_draft)
    assert at == finished.stats.emitted
    assert sum(record.n_accepted for record in records) > 0 and any(r.rejected_at is not None for r in records)


def test_greedy_steps_keep_a_draft_exactly_when_it_is_the_targets_argmax(greedy_run: Run) -> None:
    for record in _records(greedy_run[1]):
        assert record.greedy
        reached = record.drafted if record.rejected_at is None else record.drafted[: record.rejected_at + 1]
        for token in reached:
            assert token.coin is None
            # At T = 0 the target's warped row is its argmax alone: p is 1 for the argmax, 0 for anything else.
            assert token.accepted == (token.p_target == 1.0)
        if record.rejected_at is not None:
            rejected = record.drafted[record.rejected_at]
            assert rejected.target_top is not None and rejected.target_top != rejected.text
            assert record.correction is not None and record.correction.text == rejected.target_top
        else:
            assert record.bonus is not None and record.bonus.p == 1.0


def test_sampled_steps_coins_decide_and_the_residual_is_p_minus_q_renormalised(
    pair: LoadedPair, sampled_run: Run
) -> None:
    prompt, steps, _finished = sampled_run
    params = SamplingParams(temperature=0.8, seed=11)
    records = _records(steps)
    for record in records:
        assert not record.greedy
        for i, token in enumerate(record.drafted):
            if record.rejected_at is not None and i > record.rejected_at:
                assert token.coin is None and not token.accepted  # never tested
                continue
            assert token.coin is not None and 0.0 <= token.coin < 1.0
            assert (token.coin < token.accept_probability) == token.accepted
        entries = record.residual_top if record.rejected_at is not None else record.bonus_top
        chosen = record.correction if record.rejected_at is not None else record.bonus
        probs = [entry.p for entry in entries]
        assert probs == sorted(probs, reverse=True) and all(p > 0 for p in probs) and sum(probs) <= 1 + 1e-6
        assert chosen is not None and chosen.p > 0
    # Recompute the rows at the first few rejections and compare the residual's largest entries.
    ids = prompt + [token.id for event in steps for token in event.tokens]
    text = lambda token: standalone_text(pair.target.token_bytes, token)  # noqa: E731
    checked = 0
    for event, record in zip(steps, records, strict=True):
        if record.rejected_at is None or record.rejected_at >= len(event.tokens) or checked == 3:
            continue
        proposal = event.tokens[record.rejected_at].rejected
        assert proposal is not None and proposal.id is not None
        context = ids[: len(prompt) + record.first_token + record.rejected_at]
        p = LogitsWarper(params, pair.target.n_vocab).warp(_row(pair.target, context))
        assert pair.draft is not None
        q = LogitsWarper(params, pair.draft.n_vocab).warp(_row(pair.draft, context))
        rejected = record.drafted[record.rejected_at]
        assert p.prob_of(proposal.id) == pytest.approx(rejected.p_target, abs=_ROW_TOLERANCE)
        assert q.prob_of(proposal.id) == pytest.approx(rejected.q_draft, abs=_ROW_TOLERANCE)
        fresh = {entry.text: entry.p for entry in top_entries(residual_distribution(p, q), text)}
        for entry in record.residual_top:
            if entry.p > 2 * _ROW_TOLERANCE:  # a tiny entry may swap places with the sixth
                assert fresh.get(entry.text, 0.0) == pytest.approx(entry.p, abs=_ROW_TOLERANCE)
        # The correction is the token that follows the kept prefix in the reply.
        assert record.correction is not None
        assert record.correction.text == text(ids[len(prompt) + record.first_token + record.rejected_at])
        checked += 1
    assert checked > 0


def _row(model: CausalLM, context: list[int]) -> np.ndarray:
    """The model's logits for the token after ``context``, from a cache holding exactly ``context[:-1]``."""
    sync_cache(model, context[:-1])
    return np.array(model.decode([context[-1]], "last")[-1])


def test_records_survive_the_store_and_an_export_read_back(tmp_path: Path, sampled_run: Run) -> None:
    _prompt, steps, finished = sampled_run
    records = _records(steps)
    store = ChatStore(tmp_path / "chats.sqlite3")
    try:
        chat = store.create_conversation("rivers")
        store.add_message(chat, "user", QUESTION[-1].content)
        reply = store.begin_reply(chat)
        for event in steps:
            assert event.record is not None
            store.append_tokens(reply, event.tokens, (event.record,))
        store.finish_reply(reply, finished.text)
        stored = store.steps(reply)
        assert [s.to_json() for s in stored] == [r.to_json() for r in records] and store.skipped_steps == 0
        assert "".join(t.text for t in store.tokens(reply)) == finished.text
        exported = json.loads(json.dumps(store.export_json(chat)))
        assert exported["messages"][-1]["steps"] == [r.to_json() for r in records]
        copy = store.import_json(exported)
        copied_reply = store.messages(copy)[-1].id
        assert [s.to_json() for s in store.steps(copied_reply)] == [r.to_json() for r in records]
        # A row that does not parse is skipped and counted, never an error.
        store._db.execute("UPDATE steps SET data='{not json' WHERE message_id=? AND idx=0", (reply,))
        assert len(store.steps(reply)) == len(records) - 1 and store.skipped_steps == 1
    finally:
        store.close()


def test_a_step_record_costs_a_bounded_number_of_bytes_per_token(sampled_run: Run) -> None:
    """The stored JSON of a sampled reply's steps: at most 200 bytes per token (about 70 were measured)."""
    _prompt, steps, finished = sampled_run
    size = sum(len(encode_step(record).encode()) for record in _records(steps))
    assert size / finished.stats.emitted <= 200
