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

import numpy as np

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
    draft: LlamaModel, prompt: list[int], params: SamplingParams
) -> tuple[list[int], list[TokenDistribution], list[float], list[float]]:
    """The draft's own continuation of ``prompt``: tokens, distributions, decode times, confidences."""
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
        confidences.append(warper.top_probability(row))
    return tokens, q_rows, times, confidences


def score(
    target: LlamaModel, prompt: list[int], tokens: list[int], q_rows: list[TokenDistribution], params: SamplingParams
) -> list[float]:
    """Per-position agreement of the target with the draft's continuation, scored in one batch."""
    if not tokens:
        return []
    warper = LogitsWarper(params, target.n_vocab)
    target.truncate(0)
    target.decode(prompt[:-1], "none")
    rows = target.decode([prompt[-1], *tokens[:-1]], "all")
    agreement = []
    for j, token in enumerate(tokens):
        p = warper.warp(rows[j])
        if params.greedy:
            agreement.append(1.0 if p.argmax() == token else 0.0)
        else:
            agreement.append(overlap(p, q_rows[j]))
    return agreement


def overlap(p: TokenDistribution, q: TokenDistribution) -> float:
    """sum(min(p, q)): the probability that a draw from q is accepted against p."""
    common, p_at, q_at = np.intersect1d(p.ids, q.ids, assume_unique=True, return_indices=True)
    if common.size == 0:
        return 0.0
    return float(np.minimum(p.probs[p_at], q.probs[q_at]).sum())
