"""Building a verify step's :class:`~app.core.reply.step_record.StepRecord` from what the decoder had in hand.

Only a decoder made with ``trace=True`` calls :func:`record_step`: the
benchmark's decoders never pay for it. Everything comes from the rows the
step already computed (the warped target rows, the drafter's distributions,
the verdict's coins); the one extra piece of work is the residual at a
rejected position, recomputed here from the same two rows so that its
largest entries can be kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.drafters import LOOKUP_SOURCE, Draft
from app.core.decoding.events import StepTimings
from app.core.decoding.text import standalone_text
from app.core.decoding.verification import Verdict, residual_distribution
from app.core.reply.step_record import TOP_ENTRIES, DraftedRecord, StepRecord, TopEntry


def top_entries(dist: TokenDistribution, text: Callable[[int], str], n: int = TOP_ENTRIES) -> tuple[TopEntry, ...]:
    """The ``n`` largest entries of ``dist``, largest first (ties by token id, so the order is stable)."""
    probs = dist.probs
    chosen = np.argpartition(-probs, n - 1)[:n] if probs.size > n else np.arange(probs.size)
    order = sorted(chosen.tolist(), key=lambda i: (-float(probs[i]), int(dist.ids[i])))
    return tuple(TopEntry(text(int(dist.ids[i])), float(probs[i])) for i in order)


def record_step(
    *,
    index: int,
    first_token: int,
    n_emitted: int,
    draft: Draft,
    draft_length: int,
    reason: str,
    greedy: bool,
    p_target: Sequence[TokenDistribution],
    verdict: Verdict,
    timings: StepTimings,
    token_bytes: Callable[[int], bytes],
) -> StepRecord:
    """The record of one step; ``p_target`` are the warped target rows verification used (K + 1 of them).

    Drafted tokens past a rejection were never tested: they are kept (the
    record says how long the draft was) as not accepted, with no coin, and
    with the target's probability from the row it computed after the draft's
    (rejected) prefix.
    """

    def text(token: int) -> str:
        return standalone_text(token_bytes, token)

    rejected_at = verdict.n_accepted if verdict.rejected_token is not None else None
    drafted: list[DraftedRecord] = []
    for i, token in enumerate(draft.tokens):
        reached = rejected_at is None or i <= rejected_at
        coin = verdict.coins[i] if reached and not greedy and i < len(verdict.coins) else None
        accepted = i < verdict.n_accepted
        target_top = None
        if greedy and i == rejected_at:
            target_top = text(p_target[i].argmax())
        drafted.append(
            DraftedRecord(
                text(token),
                draft.q_draft[i].prob_of(token),
                p_target[i].prob_of(token),
                accepted,
                coin,
                target_top,
            )
        )
    residual_top: tuple[TopEntry, ...] = ()
    correction = None
    bonus_top: tuple[TopEntry, ...] = ()
    bonus = None
    chosen = verdict.next_token
    if rejected_at is not None:
        residual = residual_distribution(p_target[rejected_at], draft.q_draft[rejected_at])
        residual_top = top_entries(residual, text)
        correction = TopEntry(text(chosen), residual.prob_of(chosen))
    else:
        row = p_target[len(draft.tokens)]
        bonus_top = top_entries(row, text)
        bonus = TopEntry(text(chosen), row.prob_of(chosen))
    return StepRecord(
        index=index,
        first_token=first_token,
        n_emitted=n_emitted,
        drafter=draft.source if draft.tokens else None,
        draft_length=draft_length,
        reason=reason,
        greedy=greedy,
        drafted=tuple(drafted),
        lookup_match=draft.match_length if draft.tokens and draft.source == LOOKUP_SOURCE else None,
        residual_top=residual_top,
        correction=correction,
        bonus_top=bonus_top,
        bonus=bonus,
        draft_ms=timings.draft_s * 1000.0,
        verify_ms=timings.verify_s * 1000.0,
    )


def clip_record(record: StepRecord | None, n_emitted: int) -> StepRecord | None:
    """``record`` for a step a stop string cut after ``n_emitted`` of its tokens."""
    if record is None or record.n_emitted <= n_emitted:
        return record
    return replace(record, n_emitted=n_emitted)
