"""Drafters: the cheap proposers whose tokens the target verifies.

* :class:`ModelDrafter` runs a small language model autoregressively and keeps
  each proposal's distribution ``q_draft`` for rejection sampling.
* :class:`NgramDrafter` (prompt lookup) copies what followed the latest earlier
  occurrence of the context's last n-gram; its ``q_draft`` is one-hot.
* :class:`NoDrafter` proposes nothing: plain target decoding through the same loop.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.model_port import CausalLM, sync_cache
from app.core.decoding.sampling import LogitsWarper


@dataclass(slots=True)
class Draft:
    """Proposed tokens, the distribution each was drawn from, and the time spent in the draft model."""

    tokens: list[int] = field(default_factory=list)
    q_draft: list[TokenDistribution] = field(default_factory=list)
    # Seconds inside the draft model's decode calls; the drafter's own Python
    # work (sampling, lookups) is step overhead, not draft-model time.
    model_s: float = 0.0
    # The drafter's top probability before each proposal, when it measures one.
    confidence: list[float] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.tokens)


class Drafter(Protocol):
    """What the decoder asks of any drafter."""

    kind: str

    def begin(self, prompt: Sequence[int]) -> None:
        """Prepare for a generation that continues ``prompt``."""
        ...

    def propose(self, context: Sequence[int], max_tokens: int, min_confidence: float | None = None) -> Draft:
        """Up to ``max_tokens`` proposals that continue ``context``.

        ``min_confidence`` is the policy's early-stop floor for this draft (see
        :meth:`~app.core.decoding.draft_policy.DraftLengthPolicy.confidence_floor`);
        drafters without a confidence of their own ignore it.
        """
        ...

    def accept(self, n_accepted: int) -> None:
        """The target kept the first ``n_accepted`` proposals of the last draft."""
        ...


class NoDrafter:
    """Proposes nothing, so every step is one plain target token."""

    kind = "none"

    def begin(self, prompt: Sequence[int]) -> None:
        """Nothing to prepare."""

    def propose(self, context: Sequence[int], max_tokens: int, min_confidence: float | None = None) -> Draft:
        """An empty draft."""
        return Draft()

    def accept(self, n_accepted: int) -> None:
        """Nothing to roll back."""


class ModelDrafter:
    """A small model that drafts token by token, sharing the target's token ids.

    Its KV cache follows the committed context: before drafting it is brought
    up to date (usually one or two tokens), and after verification it is cut
    back to the accepted prefix.
    """

    kind = "model"

    def __init__(self, model: CausalLM, warper: LogitsWarper, rng: np.random.Generator) -> None:
        self.model = model
        self.warper = warper
        self.rng = rng
        self._base = 0
        self._n_decoded_drafts = 0
        # Whether the last propose() still awaits its accept(): a step that drafted
        # nothing (K = 0) must leave the cache alone, not cut it back to a stale base.
        self._pending = False

    def begin(self, prompt: Sequence[int]) -> None:
        """Prefill everything but the last prompt token (the first draft step feeds it)."""
        sync_cache(self.model, prompt[:-1])

    def propose(self, context: Sequence[int], max_tokens: int, min_confidence: float | None = None) -> Draft:
        """Sample up to ``max_tokens`` tokens, stopping early where the draft's top probability < ``min_confidence``."""
        draft = Draft()
        if max_tokens <= 0:
            return draft
        model = self.model
        cached = len(model.kv_tokens)
        if cached >= len(context):
            # The last context token must be fed again to get its logits row.
            model.truncate(len(context) - 1)
            cached = len(context) - 1
        self._base = len(context)
        self._n_decoded_drafts = 0
        self._pending = True
        # A policy that sets a floor (even 0) learns from the confidences, so measure them.
        measure = min_confidence is not None
        floor = min_confidence or 0.0
        clock = time.perf_counter
        started = clock()
        rows = model.decode(context[cached:], "last")
        model_s = clock() - started
        history = list(context[-self.warper.params.repeat_last_n :]) if self.warper.params.repeat_penalty != 1.0 else []
        for i in range(max_tokens):
            logits = rows[-1]
            if measure:
                confidence = self.warper.top_probability(logits)
                if confidence < floor:
                    break
                draft.confidence.append(confidence)
            q = self.warper.warp(logits, history)
            token = q.argmax() if self.warper.params.greedy else q.sample(self.rng)
            draft.tokens.append(token)
            draft.q_draft.append(q)
            if history:
                history.append(token)
            if i + 1 < max_tokens:
                started = clock()
                rows = model.decode([token], "last")
                model_s += clock() - started
                self._n_decoded_drafts += 1
        draft.model_s = model_s
        return draft

    def accept(self, n_accepted: int) -> None:
        """Drop the rejected proposals from the draft's cache (nothing to do after a step without a draft)."""
        if not self._pending:
            return
        self._pending = False
        self.model.truncate(self._base + min(n_accepted, self._n_decoded_drafts))


class NgramDrafter:
    """Prompt-lookup drafting: no second model, proposals copied from the context.

    The longest suffix n-gram (``max_ngram`` down to ``min_ngram`` tokens) that
    occurred earlier is looked up; the tokens that followed its latest earlier
    occurrence are proposed. Code edits and quoted text repeat their input, so
    this drafter shines there and costs almost nothing elsewhere.
    """

    kind = "ngram"

    def __init__(self, max_ngram: int = 3, min_ngram: int = 1) -> None:
        if not 1 <= min_ngram <= max_ngram:
            raise ValueError("need 1 <= min_ngram <= max_ngram")
        self.max_ngram = max_ngram
        self.min_ngram = min_ngram

    def begin(self, prompt: Sequence[int]) -> None:
        """Nothing to prepare: the context is searched afresh each step."""

    def propose(self, context: Sequence[int], max_tokens: int, min_confidence: float | None = None) -> Draft:
        """The continuation of the latest earlier match of the context's tail."""
        draft = Draft()
        if max_tokens <= 0 or len(context) < self.min_ngram + 1:
            return draft
        continuation = self._continuation(np.asarray(context, dtype=np.int64), max_tokens)
        draft.tokens = [int(t) for t in continuation]
        draft.q_draft = [TokenDistribution.one_hot(t) for t in draft.tokens]
        return draft

    def _continuation(self, tokens: np.ndarray, max_tokens: int) -> np.ndarray:
        size = tokens.size
        for n in range(min(self.max_ngram, size - 1), self.min_ngram - 1, -1):
            pattern = tokens[size - n :]
            # Windows end before the last token, so every match has a continuation.
            windows = np.lib.stride_tricks.sliding_window_view(tokens[: size - 1], n)
            starts = np.flatnonzero((windows == pattern).all(axis=1))
            if starts.size:
                follow = int(starts[-1]) + n
                return tokens[follow : follow + max_tokens]
        return tokens[:0]

    def accept(self, n_accepted: int) -> None:
        """Stateless: nothing to roll back."""
