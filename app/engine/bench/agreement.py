"""How far a draft agrees with its target, measured on the real models (pre-flight's first measurement).

On a few short chat prompts the draft writes a continuation
(:func:`draft_continuation`, its per-token decode times being the draft's
cost), and the target scores that continuation in one batch (:func:`score`,
teacher forcing): at each position the target agrees with the draft
(temperature 0) or overlaps it by sum(min(p, q)) (sampling). Pre-flight and
the cheaper-draft check both measure this way, so their acceptances compare.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.engine.llama.model import LlamaModel

MAX_VERIFY = 16  # the longest step measured: verify batches of 1..16 tokens, acceptance at 15 positions
# Short chat prompts of three kinds (code, an explanation, prose), so the acceptance is not one kind's.
PROMPTS = (
    "Write a Python function that returns the n-th Fibonacci number iteratively, with a docstring.",
    "Explain in two sentences what a hash table is.",
    "Write a short paragraph about autumn in a quiet town.",
)
_CONTINUATION = 40  # draft tokens per prompt: enough runs of agreement, little time


def draft_continuation(
    draft: LlamaModel, prompt: list[int], params: SamplingParams, rows: list[npt.NDArray[np.float32]] | None = None
) -> tuple[list[int], list[TokenDistribution], list[float], list[float]]:
    """The draft's own continuation of ``prompt``: tokens, distributions, decode times, confidences.

    ``rows``, when given, receives a copy of the draft's raw logits for each token, so the same
    continuation can be scored under other sampling settings (:func:`warp_rows`).
    """
    warper = LogitsWarper(params, draft.n_vocab)
    rng = np.random.default_rng(0)
    draft.truncate(0)
    draft.decode(prompt[:-1], "none")
    tokens: list[int] = []
    q_rows: list[TokenDistribution] = []
    times: list[float] = []
    confidences: list[float] = []
    feed = prompt[-1]
    for _ in range(_CONTINUATION):
        t0 = time.perf_counter()
        row = draft.decode([feed], "last")[0]
        times.append(time.perf_counter() - t0)
        q = warper.warp(row)
        feed = q.argmax() if params.greedy else q.sample(rng)
        if draft.is_eog(feed):
            break
        tokens.append(feed)
        q_rows.append(q)
        if rows is not None:
            rows.append(np.array(row, copy=True))
        confidences.append(warper.top_probability(row))
    return tokens, q_rows, times, confidences


def score(
    target: LlamaModel, prompt: list[int], tokens: list[int], q_rows: list[TokenDistribution], params: SamplingParams
) -> list[float]:
    """Per-position agreement of the target with the draft's continuation, scored in one batch."""
    return score_modes(target, prompt, tokens, [(q_rows, params)])[0]


def score_modes(
    target: LlamaModel,
    prompt: list[int],
    tokens: list[int],
    modes: Sequence[tuple[Sequence[TokenDistribution], SamplingParams]],
) -> list[list[float]]:
    """:func:`score` under several sampling settings at once (each with its own draft distributions).

    The target reads the continuation once; each setting warps its rows: greedy
    counts agreement with the argmax, sampling the overlap sum(min(p, q)).
    """
    if not tokens:
        return [[] for _ in modes]
    target.truncate(0)
    target.decode(prompt[:-1], "none")
    rows = target.decode([prompt[-1], *tokens[:-1]], "all")
    out: list[list[float]] = []
    for q_rows, params in modes:
        warper = LogitsWarper(params, target.n_vocab)
        agreement = []
        for j, token in enumerate(tokens):
            p = warper.warp(rows[j])
            agreement.append(float(p.argmax() == token) if params.greedy else overlap(p, q_rows[j]))
        out.append(agreement)
    return out


def warp_rows(rows: Sequence[npt.NDArray[np.float32]], params: SamplingParams) -> list[TokenDistribution]:
    """The draft's distributions over raw logits ``rows`` under ``params`` (as it would have drafted)."""
    warper = LogitsWarper(params, rows[0].size) if rows else None
    return [warper.warp(row) for row in rows] if warper is not None else []


def overlap(p: TokenDistribution, q: TokenDistribution) -> float:
    """sum(min(p, q)): the probability that a draw from q is accepted against p."""
    common, p_at, q_at = np.intersect1d(p.ids, q.ids, assume_unique=True, return_indices=True)
    if common.size == 0:
        return 0.0
    return float(np.minimum(p.probs[p_at], q.probs[q_at]).sum())
