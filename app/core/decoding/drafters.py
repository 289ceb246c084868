"""Drafters: the cheap proposers whose tokens the target verifies.

* :class:`ModelDrafter` runs a small language model autoregressively and keeps
  each proposal's distribution ``q_draft`` for rejection sampling.
* :class:`~app.core.decoding.lookup_drafters.NgramDrafter` (prompt lookup) and
  :class:`~app.core.decoding.lookup_drafters.HybridDrafter` (a trusted lookup,
  else the draft model) live in :mod:`app.core.decoding.lookup_drafters`.
* :class:`NoDrafter` proposes nothing: plain target decoding through the same loop.

The draft model's prompt is read lazily: :meth:`ModelDrafter.begin` reads
nothing, and the first draft of a reply catches the draft's KV cache up to
the context as it then stands (prompt and reply so far, less the prefix the
cache already holds). A reply in which the draft model never drafts (the
adaptive controller kept it off, or prompt lookup answered every step) costs
the draft model nothing. :meth:`Drafter.backlog` says how far behind it is, so
the decoder can take the first token from the target alone.

Every draft says which drafter made it (``source``: "model" or "lookup"), so the
tokens, the statistics and the view can tell the two apart.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from app.core.decoding.constraint import TokenMask, warp_masked
from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.draft_policy import DraftStop, as_stop
from app.core.decoding.model_port import CausalLM, common_prefix_length
from app.core.decoding.sampling import LogitsWarper

MODEL_SOURCE = "model"
LOOKUP_SOURCE = "lookup"


class DrafterKind(enum.StrEnum):
    """Which drafter proposes tokens: the one spelling of the names settings, records and options use."""

    MODEL = "model"
    HYBRID = "hybrid"  # prompt lookup where it is trusted, the draft model elsewhere (the default with a draft)
    NGRAM = "ngram"
    MTP = "mtp"  # the target's own MTP (NextN) layers, run by the draft-model drafter: no second file
    NONE = "none"

    @property
    def uses_draft_model(self) -> bool:
        """Whether this kind needs a draft model loaded."""
        return self in (DrafterKind.MODEL, DrafterKind.HYBRID)

    @property
    def uses_own_layers(self) -> bool:
        """Whether this kind drafts with layers inside the target file (loaded beside it, from the same file)."""
        return self is DrafterKind.MTP


# How many of a lookup's proposals to keep, given their confidences (each conditional on
# the ones before): the draft-length policy's judgement of what pays for its verify slots.
LookupJudge = Callable[[Sequence[float]], int]


@dataclass(slots=True)
class Draft:
    """Proposed tokens, the distribution each was drawn from, and the time spent in the draft model."""

    tokens: list[int] = field(default_factory=list)
    q_draft: list[TokenDistribution] = field(default_factory=list)
    # Seconds inside the draft model's decode calls; the drafter's own Python
    # work (sampling, lookups) is step overhead, not draft-model time.
    model_s: float = 0.0
    # The drafter's top probability before each proposal, when it measures one
    # (for a lookup: its estimated acceptance of each proposal given the ones before).
    confidence: list[float] = field(default_factory=list)
    source: str = MODEL_SOURCE  # which drafter proposed these tokens
    # A lookup's match: how many tokens before the copied place agree with the context's end.
    match_length: int | None = None
    # For a lookup's proposals: where each was copied from ("report.pdf, p. 3", "earlier in this chat").
    copied_from: list[str] = field(default_factory=list)
    # Tokens the draft model read to catch its cache up before proposing (its lazy prefill on the first draft).
    caught_up: int = 0

    def __len__(self) -> int:
        return len(self.tokens)


class Drafter(Protocol):
    """What the decoder asks of any drafter."""

    kind: str
    # How many tokens a prompt lookup may propose in one step (0: this drafter does no lookup).
    # A lookup costs no model time, so the decoder asks for it even when the policy drafts nothing.
    lookup_length: int

    def begin(self, prompt: Sequence[int]) -> None:
        """Prepare for a generation that continues ``prompt``."""
        ...

    def propose(
        self,
        context: Sequence[int],
        max_tokens: int,
        min_confidence: DraftStop | float | None = None,
        lookup_tokens: int = 0,
        mask: TokenMask | None = None,
    ) -> Draft:
        """Up to ``max_tokens`` model proposals (or up to ``lookup_tokens`` looked-up ones) that continue ``context``.

        ``min_confidence`` is the policy's early stop for this draft (see
        :meth:`~app.core.decoding.draft_policy.DraftLengthPolicy.confidence_floor`);
        drafters without a confidence of their own ignore it. With ``mask`` (structured output)
        every proposal is one the grammar allows, and the mask is left as it was found.
        """
        ...

    def accept(self, n_accepted: int) -> None:
        """The target kept the first ``n_accepted`` proposals of the last draft."""
        ...

    def backlog(self, context: Sequence[int]) -> int:
        """Tokens of ``context`` a model draft would first have to read (0 for a drafter without a model)."""
        ...


class NoDrafter:
    """Proposes nothing, so every step is one plain target token."""

    kind = "none"
    lookup_length = 0

    def begin(self, prompt: Sequence[int]) -> None:
        """Nothing to prepare."""

    def propose(
        self,
        context: Sequence[int],
        max_tokens: int,
        min_confidence: DraftStop | float | None = None,
        lookup_tokens: int = 0,
        mask: TokenMask | None = None,
    ) -> Draft:
        """An empty draft."""
        return Draft()

    def accept(self, n_accepted: int) -> None:
        """Nothing to roll back."""

    def backlog(self, context: Sequence[int]) -> int:
        """No model, nothing to read."""
        return 0


class ModelDrafter:
    """A small model that drafts token by token, sharing the target's token ids.

    Its KV cache follows the committed context: before drafting it is brought
    up to date (usually one or two tokens; on the first draft of a reply the
    prompt and the reply so far, which is its lazy prefill), and after
    verification it is cut back to the accepted prefix.
    """

    kind = "model"
    lookup_length = 0

    def __init__(self, model: CausalLM, warper: LogitsWarper, rng: np.random.Generator) -> None:
        self.model = model
        self.warper = warper
        self.rng = rng
        self._base = 0
        self._n_decoded_drafts = 0
        # Whether the last propose() still awaits its accept(): a step that drafted
        # nothing (K = 0) must leave the cache alone, not cut it back to a stale base.
        self._pending = False
        # Whether the cache is known to hold a prefix of the context; until the first draft of a
        # reply it may hold an older conversation (a reply that never drafted left it as it was).
        self._synced = False

    def begin(self, prompt: Sequence[int]) -> None:
        """Read nothing yet: the first draft catches the cache up (a reply that never drafts costs nothing)."""
        self._synced = False
        self._pending = False

    def backlog(self, context: Sequence[int]) -> int:
        """Tokens of ``context`` the next draft reads before its first proposal."""
        if self._synced:
            return max(1, len(context) - len(self.model.kv_tokens))
        return len(context) - min(common_prefix_length(self.model.kv_tokens, context), len(context) - 1)

    def propose(
        self,
        context: Sequence[int],
        max_tokens: int,
        min_confidence: DraftStop | float | None = None,
        lookup_tokens: int = 0,
        mask: TokenMask | None = None,
    ) -> Draft:
        """Sample up to ``max_tokens`` tokens, stopping early where ``min_confidence`` (a :class:`DraftStop`) says."""
        draft = Draft()
        if max_tokens <= 0:
            return draft
        model = self.model
        if self._synced:
            cached = len(model.kv_tokens)
        else:
            # The lazy prefill: keep what the cache shares with the context, read the rest below.
            cached = common_prefix_length(model.kv_tokens, context)
            if cached < len(model.kv_tokens):
                model.truncate(cached)
            self._synced = True
        if cached >= len(context):
            # The last context token must be fed again to get its logits row.
            model.truncate(len(context) - 1)
            cached = len(context) - 1
        draft.caught_up = len(context) - cached
        self._base = len(context)
        self._n_decoded_drafts = 0
        self._pending = True
        # A policy that sets a floor (even 0) learns from the confidences, so measure them.
        stop = as_stop(min_confidence)
        chance = 1.0  # that every token drafted so far is accepted
        clock = time.perf_counter
        started = clock()
        rows = model.decode(context[cached:], "last")
        model_s = clock() - started
        history = list(context[-self.warper.params.repeat_last_n :]) if self.warper.params.repeat_penalty != 1.0 else []
        for i in range(max_tokens):
            logits = rows[-1]
            if stop is not None:
                confidence = self.warper.top_probability(logits)
                after = stop.chance_after(chance, confidence)
                if stop.stops_at(i, confidence, after):
                    break
                chance = after
                draft.confidence.append(confidence)
            if mask is None:
                q = self.warper.warp(logits, history)
            else:
                # q_draft masked by the grammar state this proposal continues (app.core.decoding.constraint).
                q = warp_masked(self.warper, logits, history, mask.allowed())
            token = q.argmax() if self.warper.params.greedy else q.sample(self.rng)
            draft.tokens.append(token)
            draft.q_draft.append(q)
            if mask is not None:
                mask.consume(token)
            if history:
                history.append(token)
            if i + 1 < max_tokens:
                started = clock()
                rows = model.decode([token], "last")
                model_s += clock() - started
                self._n_decoded_drafts += 1
        draft.model_s = model_s
        if mask is not None:
            mask.rollback(len(draft.tokens))
        return draft

    def accept(self, n_accepted: int) -> None:
        """Drop the rejected proposals from the draft's cache (nothing to do after a step without a draft)."""
        if not self._pending:
            return
        self._pending = False
        self.model.truncate(self._base + min(n_accepted, self._n_decoded_drafts))
