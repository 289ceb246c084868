"""Drafters built on prompt lookup: copying from the context instead of running a second model.

* :class:`NgramDrafter` copies what followed the earlier place that the
  context's end repeats longest (or an attached source's), with a per-token
  confidence from :mod:`app.core.decoding.lookup`; its ``q_draft`` is one-hot.
* :class:`HybridDrafter` uses a trustworthy lookup when there is one and the
  draft model otherwise, step by step.

Both satisfy :class:`~app.core.decoding.drafters.Drafter`, so the decoder
treats them like the draft model.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from app.core.decoding.constraint import TokenMask, allowed_prefix
from app.core.decoding.copy_tracking import REPEAT, Anchor, CopyState, CopyTracker
from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.draft_policy import DraftStop, as_stop
from app.core.decoding.drafters import LOOKUP_SOURCE, Draft, Drafter, LookupJudge, ModelDrafter
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

# How many next tokens a source's copy must share with the context's to be cited in its place.
_SAME_CONTINUATION = 4


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
