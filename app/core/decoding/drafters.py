"""Drafters: the cheap proposers whose tokens the target verifies.

* :class:`ModelDrafter` runs a small language model autoregressively and keeps
  each proposal's distribution ``q_draft`` for rejection sampling.
* :class:`NgramDrafter` (prompt lookup) copies what followed the earlier place
  that the context's end repeats longest, with a per-token confidence from
  :mod:`app.core.decoding.lookup`; its ``q_draft`` is one-hot.
* :class:`HybridDrafter` uses a trustworthy lookup when there is one and the
  draft model otherwise, step by step.
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
import numpy.typing as npt

from app.core.decoding.constraint import TokenMask, allowed_prefix, warp_masked
from app.core.decoding.copy_tracking import REPEAT, Anchor, CopyState, CopyTracker
from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.draft_policy import DraftStop, as_stop
from app.core.decoding.lookup import (
    CONTEXT_CITATION,
    ContextArray,
    LookupMatch,
    LookupRecord,
    LookupSource,
    find_in_source,
    find_match,
    trusted_prefix,
)
from app.core.decoding.model_port import CausalLM, common_prefix_length
from app.core.decoding.sampling import LogitsWarper

# How many next tokens a source's copy must share with the context's to be cited in its place.
_SAME_CONTINUATION = 4

MODEL_SOURCE = "model"
LOOKUP_SOURCE = "lookup"


class DrafterKind(enum.StrEnum):
    """Which drafter proposes tokens: the one spelling of the names settings, records and options use."""

    MODEL = "model"
    HYBRID = "hybrid"  # prompt lookup where it is trusted, the draft model elsewhere (the default with a draft)
    NGRAM = "ngram"
    NONE = "none"

    @property
    def uses_draft_model(self) -> bool:
        """Whether this kind needs a draft model loaded."""
        return self in (DrafterKind.MODEL, DrafterKind.HYBRID)


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


class NgramDrafter:
    """Prompt-lookup drafting: no second model, proposals copied from the context (prompt and reply so far).

    A :class:`~app.core.decoding.copy_tracking.CopyTracker` follows the copy the
    reply is making. When there is none, it is anchored at the earlier place
    whose preceding tokens agree longest with the context's end (at least
    ``min_ngram`` tokens, counted up to ``max_ngram``, found by
    :func:`~app.core.decoding.lookup.find_match`) or, just after an edit, where
    the reply's latest tokens occur again next to the source it left, whichever
    the record trusts more. What the copy predicts next (with the edits learned
    so far applied) is proposed with a confidence per token: the anchor's trust
    (its key's hit record, else its evidence) for the first, the copy's run
    length after that. How many proposals to send is decided by ``judge`` when
    one is given (the adaptive policy weighs them against verify costs);
    otherwise proposals below ``min_confidence`` (the policy's floor, when set)
    are dropped and a copy whose trust is under ``min_trust`` proposes nothing.

    ``lookup_length`` > 0 makes it propose on every step where it trusts a match,
    even when the policy chose not to draft: a quiet lookup costs nothing.

    ``sources`` are token sequences besides the context to copy from (each
    attachment's whole text, :class:`~app.core.decoding.lookup.LookupSource`,
    indexed once): when no copy is under way, the longest match in any of
    them competes with the context's own, a source winning a tie (the
    document the prompt quotes is the better citation). Every proposal says
    where it was copied from. Verification is unchanged, so any source is
    lossless: it only changes which tokens are proposed.
    """

    kind = "ngram"

    def __init__(
        self,
        max_ngram: int = 3,
        min_ngram: int = 1,
        *,
        min_trust: float = 0.0,
        lookup_length: int = 0,
        judge: LookupJudge | None = None,
        sources: Sequence[LookupSource] = (),
    ) -> None:
        if not 1 <= min_ngram <= max_ngram:
            raise ValueError("need 1 <= min_ngram <= max_ngram")
        if any(source.min_n != min_ngram for source in sources):
            raise ValueError("a lookup source must be indexed with the drafter's min_ngram")
        self.max_ngram = max_ngram
        self.min_ngram = min_ngram
        self.min_trust = min_trust
        self.lookup_length = lookup_length
        self.judge = judge
        self.record = LookupRecord()
        self.tracker = CopyTracker()
        self.sources = tuple(sources)
        self.tracker.set_buffers([source.tokens for source in self.sources])
        self._pending: tuple[LookupMatch, int] | None = None  # the last proposal's match and length
        self._context = ContextArray()

    def begin(self, prompt: Sequence[int]) -> None:
        """A new reply: the hit record and the copy start afresh (they describe one context)."""
        self.record.clear()
        self.tracker.begin(len(prompt))
        self._pending = None
        self._context.clear()

    def propose(
        self,
        context: Sequence[int],
        max_tokens: int,
        min_confidence: DraftStop | float | None = None,
        lookup_tokens: int = 0,
        mask: TokenMask | None = None,
    ) -> Draft:
        """What the copy the reply is making predicts next, as far as it is trusted."""
        draft = Draft(source=LOOKUP_SOURCE)
        self._pending = None
        tokens = self._context.view(context)
        tracker = self.tracker
        tracker.follow(tokens)
        limit = max(max_tokens, lookup_tokens)
        if limit <= 0 or len(context) < self.min_ngram + 1:
            return draft
        key = tuple(int(t) for t in tokens[tokens.size - self.min_ngram :])
        if tracker.state is None:
            found = (*self._source_repeats(tokens), self._repeat(tokens), tracker.realign(tokens))
            anchors = [a for a in found if a is not None]
            if not anchors:
                return draft
            # max() keeps the first of equals: on a tie a source, then the repeat (listed first) wins.
            anchor = self._cited(max(anchors, key=lambda a: self.record.trust(self._match(a, key))), tokens)
            tracker.start(anchor)
        prediction = tracker.predict(tokens, limit)
        if not prediction.tokens:
            return draft
        assert tracker.state is not None
        match = LookupMatch(tracker.state.source, tracker.evidence, tracker.rivals, key, tracker.origin)
        proposal = prediction.tokens
        confidence = self.record.confidences(match, len(proposal))
        if self.judge is not None:
            keep = self.judge(confidence)
        elif confidence[0] < self.min_trust:
            keep = 0
        else:
            stop = as_stop(min_confidence)
            keep = trusted_prefix(confidence, stop.floor) if stop is not None and stop.floor else len(confidence)
        if mask is not None:
            # A copied token the grammar refuses would be rejected for sure: cut the copy before it.
            keep = allowed_prefix(mask, proposal[:keep])
        if keep <= 0:
            return draft
        self._pending = (match, keep)
        draft.tokens = proposal[:keep]
        draft.q_draft = [TokenDistribution.one_hot(t) for t in draft.tokens]
        draft.confidence = confidence[:keep]
        draft.match_length = match.length
        draft.copied_from = [self._citation(state) for state in prediction.states[:keep]]
        return draft

    def _citation(self, state: CopyState) -> str:
        """Where the token that brought the copy to ``state`` was read (its source index is the one before)."""
        if not state.buffer:
            return CONTEXT_CITATION
        return self.sources[state.buffer - 1].cite(state.source - 1)

    def _cited(self, anchor: Anchor, tokens: npt.NDArray[np.int64]) -> Anchor:
        """A place in a source in place of a context anchor that continues with the same tokens (the better citation).

        The prompt holds the attachments' text too, and there the context's
        match can be the only one (it reaches back into the template's text
        before the file's first line, which the file itself lacks); the
        proposal is the same either way, so the copy is followed in the file,
        with the context's evidence.
        """
        if anchor.state.buffer or not self.sources:
            return anchor
        start = anchor.state.source
        ahead = tokens[start : start + _SAME_CONTINUATION]
        if start < 1 or ahead.size < self.min_ngram:
            return anchor
        # The last matched token and what follows it, looked up in each source's index.
        gram = tokens[start - 1 : start - 1 + self.min_ngram]
        for k, source in enumerate(self.sources, start=1):
            for at in source.windows(gram) + 1:
                there = source.tokens[at : at + ahead.size]
                if there.size == ahead.size and bool((there == ahead).all()):
                    return Anchor(CopyState(int(at), buffer=k), anchor.evidence, anchor.origin, anchor.rivals)
        return anchor

    def _source_repeats(self, tokens: npt.NDArray[np.int64]) -> list[Anchor | None]:
        """An anchor in each extra source where the context's tail occurs (None where it does not)."""
        anchors: list[Anchor | None] = []
        for k, source in enumerate(self.sources, start=1):
            found = find_in_source(source, tokens, self.max_ngram)
            anchors.append(
                None if found is None else Anchor(CopyState(found.start, buffer=k), found.length, REPEAT, found.rivals)
            )
        return anchors

    def _repeat(self, tokens: npt.NDArray[np.int64]) -> Anchor | None:
        """An anchor where the context's tail occurred before."""
        found = find_match(tokens, self.min_ngram, self.max_ngram)
        if found is None:
            return None
        return Anchor(CopyState(found.start), found.length, REPEAT, found.rivals)

    @staticmethod
    def _match(anchor: Anchor, key: tuple[int, ...]) -> LookupMatch:
        return LookupMatch(anchor.state.source, anchor.evidence, anchor.rivals, key, anchor.origin)

    def backlog(self, context: Sequence[int]) -> int:
        """No model: a lookup reads nothing."""
        return 0

    def accept(self, n_accepted: int) -> None:
        """Record how much of the last proposal was kept (the copy itself follows the context)."""
        if self._pending is not None:
            match, proposed = self._pending
            self.record.observe(match, proposed, n_accepted)
            self._pending = None


class HybridDrafter:
    """Prompt lookup where it is trusted, the draft model everywhere else, decided step by step.

    Each step first asks the lookup (whose judge keeps only the proposals that
    pay for their verify slots); when it stays quiet and the policy drafts, the
    draft model proposes. The model's cache catches up on the tokens it skipped
    the next time it drafts.
    """

    kind = "hybrid"

    def __init__(self, model: ModelDrafter, lookup: NgramDrafter) -> None:
        self.model = model
        self.lookup = lookup
        self.lookup_length = lookup.lookup_length
        self._last: Drafter | None = None

    def begin(self, prompt: Sequence[int]) -> None:
        """Prepare both drafters."""
        self.model.begin(prompt)
        self.lookup.begin(prompt)
        self._last = None

    def propose(
        self,
        context: Sequence[int],
        max_tokens: int,
        min_confidence: DraftStop | float | None = None,
        lookup_tokens: int = 0,
        mask: TokenMask | None = None,
    ) -> Draft:
        """The lookup's trusted proposals if any, else the model's draft of up to ``max_tokens``."""
        if lookup_tokens > 0 or max_tokens > 0:
            draft = self.lookup.propose(context, 0, None, max(lookup_tokens, max_tokens), mask)
            if draft.tokens:
                self._last = self.lookup
                return draft
        self._last = self.model
        return self.model.propose(context, max_tokens, min_confidence, mask=mask)

    def backlog(self, context: Sequence[int]) -> int:
        """What the draft model would read before drafting (the lookup reads nothing)."""
        return self.model.backlog(context)

    def accept(self, n_accepted: int) -> None:
        """Tell the drafter that proposed the last draft what was kept."""
        if self._last is not None:
            self._last.accept(n_accepted)
            self._last = None
