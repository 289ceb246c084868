"""Prompt lookup's judgement: where the context repeats itself, and how far to trust the repeat.

Three small pieces, each tested with hand-built token sequences:

* :func:`find_match` finds the earlier place in the context (prompt and reply so
  far) whose preceding tokens agree longest with the context's end, and how many
  other places agree as far but continue differently;
* :class:`LookupRecord` remembers, per n-gram, how often the continuations
  proposed after it were accepted (llama.cpp's ``ngram-map`` keeps hit counts,
  SuffixDecoding weights its suffix tree by frequency: the same idea, learned
  from verification instead of from occurrences);
* :func:`continuation_confidence` turns a match into a per-token estimate of
  acceptance, each conditional on the tokens before it having been accepted.

The copy itself, once found, is followed through the reply's edits by
:mod:`app.core.decoding.copy_tracking`. The drafter
(:class:`~app.core.decoding.lookup_drafters.NgramDrafter`) proposes what the copy
predicts with these confidences; how many of them pay for their verify
slots is the draft-length policy's call (they cost no model time).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

# Before a key has been proposed after, its trust comes from the match's length:
# a repeat of L tokens is taken to continue with probability L / (L + _LENGTH_PRIOR_SHIFT).
# With 3 that is 0.5 for a 3-token match, 0.8 for 12 and 0.89 for 24.
_LENGTH_PRIOR_SHIFT = 3.0


@dataclass(frozen=True, slots=True)
class LookupMatch:
    """An earlier place in the context that the context's end repeats."""

    start: int  # index of the first token after the earlier occurrence: the proposal starts here
    length: int  # how many tokens before ``start`` agree with the context's last tokens
    rivals: int  # other places that agree as far but continue with a different token
    key: tuple[int, ...]  # the context's last ``min_n`` tokens: what the record is kept under
    # How the copy was found: "repeat" (find_match) or "realign" (next to where an edit left the
    # source, see app.core.decoding.copy_tracking); the record keeps each apart. A copy the reply
    # has gone on following since counts every token it followed in ``length``.
    origin: str = "repeat"


def find_match(tokens: npt.NDArray[np.int64], min_n: int, max_extent: int) -> LookupMatch | None:
    """The earlier occurrence of the context's tail that agrees longest (up to ``max_extent`` tokens).

    Candidates are the places whose ``min_n`` preceding tokens equal the last
    ``min_n`` tokens; each is extended backwards while it keeps agreeing. The
    longest wins, the latest among equals (recent text is the likelier copy).
    The match ends before the last token, so it always has a continuation.
    """
    size = int(tokens.size)
    if min_n < 1 or size < min_n + 1:
        return None
    tail = tokens[size - min_n :]
    # Window i covers tokens[i : i + min_n]; it must end before the last token. One shifted
    # comparison per n-gram position (min_n is small) instead of a (size x min_n) window view:
    # this runs on every step a lookup has no copy under way, over the whole context.
    count = size - min_n
    hit = tokens[:count] == tail[0]
    for j in range(1, min_n):
        hit &= tokens[j : j + count] == tail[j]
    starts = np.flatnonzero(hit) + min_n
    if starts.size == 0:
        return None
    lengths = np.full(starts.size, min_n, dtype=np.int64)
    alive = np.ones(starts.size, dtype=bool)
    for extent in range(min_n + 1, max_extent + 1):
        back = starts - extent
        alive &= back >= 0
        if not alive.any():
            break
        agree = np.zeros(starts.size, dtype=bool)
        agree[alive] = tokens[back[alive]] == tokens[size - extent]
        alive &= agree
        lengths[alive] = extent
    best = int(lengths.max())
    tied = starts[lengths == best]
    start = int(tied[-1])
    rivals = int(np.count_nonzero(tokens[tied] != tokens[start]))
    return LookupMatch(start, best, rivals, tuple(int(t) for t in tail))


def length_prior(length: int) -> float:
    """Acceptance expected of a match of ``length`` tokens before anything is known about its key."""
    return length / (length + _LENGTH_PRIOR_SHIFT)


def continuation_confidence(first: float, length: int, count: int) -> list[float]:
    """Estimated acceptance of each of ``count`` proposed tokens, each given that the ones before were accepted.

    The first token gets ``first`` (the match's trust). Once it is accepted the
    copy has run ``length + 1`` tokens, and so on: by Laplace's rule of
    succession a run of ``r`` agreeing tokens continues with probability
    ``(r + 1) / (r + 2)``, so a long repeat earns a long proposal and a short
    one a cautious start.
    """
    out = [first] if count > 0 else []
    for j in range(1, count):
        run = length + j
        out.append((run + 1) / (run + 2))
    return out


class LookupRecord:
    """What verification has shown of this context's lookups: per n-gram, per match length, and for copies once begun.

    * per key (the n-gram the match ended on): how often the first proposed
      token was accepted, so an n-gram that recurs with many continuations
      (``    return``) falls quiet while a copied block keeps proposing;
    * per origin and match-length band: the same for first tokens, the prior of a key
      seen for the first time (starting from :func:`length_prior`);
    * once a copy has begun (proposal positions after the first, given the
      ones before were accepted): the prior of :func:`continuation_confidence`,
      pulled toward what this reply's copies actually did.

    Counts decay a little with every observation, so a key that missed on one
    stretch can earn trust back on the next: one miss lowers trust but never
    switches lookup off for the rest of a reply.
    """

    def __init__(self, prior_weight: float = 2.0, decay: float = 0.98) -> None:
        self.prior_weight = prior_weight
        self.decay = decay
        self._keys: dict[tuple[int, ...], list[float]] = {}  # key -> [hits, trials]
        self._bands: dict[tuple[str, int], list[float]] = {}  # (origin, length band) -> [hits, trials]
        self._follow = [0.0, 0.0]  # positions after the first: [hits, trials]

    @staticmethod
    def _band(match: LookupMatch) -> tuple[str, int]:
        """Per origin, match lengths 1, 2-3, 4-7, 8-15, 16-31, ...: one band per doubling."""
        return match.origin, max(1, match.length).bit_length()

    def _mean(self, counts: Sequence[float] | None, prior: float, weight: float) -> float:
        hits, trials = counts if counts is not None else (0.0, 0.0)
        return (hits + weight * prior) / (trials + weight)

    def trust(self, match: LookupMatch) -> float:
        """Estimated acceptance of the first token proposed from ``match``."""
        band = self._mean(self._bands.get(self._band(match)), length_prior(match.length), self.prior_weight)
        return self._mean(self._keys.get(match.key), band / (1 + match.rivals), self.prior_weight)

    def confidences(self, match: LookupMatch, count: int) -> list[float]:
        """Estimated acceptance of each of ``count`` proposals from ``match``, each given the ones before."""
        prior = continuation_confidence(self.trust(match), match.length, count)
        # A copy's later positions are pulled toward what this reply's copies did (weight: 8 positions).
        return prior[:1] + [self._mean(self._follow, p, 8.0) for p in prior[1:]]

    def observe(self, match: LookupMatch, proposed: int, accepted: int) -> None:
        """``proposed`` tokens from ``match`` were verified and the first ``accepted`` kept."""
        if proposed <= 0:
            return
        first = 1.0 if accepted > 0 else 0.0
        for counts in (
            self._keys.setdefault(match.key, [0.0, 0.0]),
            self._bands.setdefault(self._band(match), [0.0, 0.0]),
        ):
            counts[0] = counts[0] * self.decay + first
            counts[1] = counts[1] * self.decay + 1.0
        # Position i >= 1 was verified when all before it were accepted.
        for i in range(1, min(proposed, accepted + 1)):
            self._follow[0] = self._follow[0] * self.decay + (1.0 if i < accepted else 0.0)
            self._follow[1] = self._follow[1] * self.decay + 1.0

    def clear(self) -> None:
        """Forget everything (a new reply, a new context)."""
        self._keys.clear()
        self._bands.clear()
        self._follow = [0.0, 0.0]


def trusted_prefix(confidences: Sequence[float], floor: float) -> int:
    """How many leading proposals have a confidence of at least ``floor``."""
    for i, confidence in enumerate(confidences):
        if confidence < floor:
            return i
    return len(confidences)


# Where prompt lookup's copy comes from when it is the context itself (the prompt and the reply so far).
CONTEXT_CITATION = "earlier in this chat"

_HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # odd 64-bit constant: keys wrap around, candidates are checked


class LookupSource:
    """A token sequence prompt lookup may copy from besides the context: an attachment's whole text.

    Built once per attachment (and target tokenizer): the tokens, the character
    offset in the attachment's text where each token starts (so a copied token
    can be cited as "report.pdf, p. 3") and an index of every ``min_n``-gram's
    positions (hashed keys sorted once, so a lookup is a binary search, not a
    scan of the whole source at every step).
    """

    def __init__(
        self,
        name: str,
        tokens: Sequence[int] | npt.NDArray[np.int64],
        offsets: Sequence[int] | npt.NDArray[np.int64],
        cite: Callable[[int], str],
        min_n: int,
    ) -> None:
        self.name = name
        self.tokens = np.asarray(tokens, dtype=np.int64)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        if self.offsets.shape != self.tokens.shape:
            raise ValueError("a lookup source needs one offset per token")
        self._cite = cite
        self.min_n = min_n
        keys = _ngram_keys(self.tokens, min_n)
        self._order = np.argsort(keys, kind="stable")  # window starts, by key (stable: in text order among equals)
        self._sorted = keys[self._order]

    def __len__(self) -> int:
        return int(self.tokens.size)

    def cite(self, index: int) -> str:
        """How the token at ``index`` is named to the user."""
        return self._cite(int(self.offsets[min(max(index, 0), self.tokens.size - 1)]))

    def windows(self, gram: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Start indices of the windows equal to ``gram`` (``min_n`` tokens), in text order."""
        if gram.size != self.min_n or self._sorted.size == 0:
            return np.zeros(0, dtype=np.int64)
        key = _ngram_keys(gram, self.min_n)[0]
        low = int(np.searchsorted(self._sorted, key, side="left"))
        high = int(np.searchsorted(self._sorted, key, side="right"))
        starts = np.sort(self._order[low:high])
        if starts.size == 0:
            return starts
        exact = np.lib.stride_tricks.sliding_window_view(self.tokens, self.min_n)[starts]
        return np.asarray(starts[(exact == gram).all(axis=1)], dtype=np.int64)


def _ngram_keys(tokens: npt.NDArray[np.int64], n: int) -> npt.NDArray[np.uint64]:
    """A 64-bit key for every window of ``n`` tokens (a polynomial hash that wraps; collisions are checked)."""
    if tokens.size < n:
        return np.zeros(0, dtype=np.uint64)
    values = tokens.astype(np.uint64)
    keys = values[: values.size - n + 1].copy()
    with np.errstate(over="ignore"):
        for j in range(1, n):
            keys = keys * _HASH_MULTIPLIER + values[j : values.size - n + 1 + j]
    return keys


def find_in_source(source: LookupSource, tokens: npt.NDArray[np.int64], max_extent: int) -> LookupMatch | None:
    """Where in ``source`` the context's tail occurs with the longest agreement (``start`` indexes the source).

    As :func:`find_match`, but the earlier occurrence is in another token
    sequence: its ``min_n`` tokens must equal the context's last ones, it
    is extended backwards against the context, and it needs a continuation
    in the source. The longest wins, the first among equals (a document has
    no "recent" end).
    """
    min_n = source.min_n
    size = int(tokens.size)
    if min_n < 1 or size < min_n:
        return None
    tail = tokens[size - min_n :]
    starts = source.windows(tail) + min_n
    starts = starts[starts < len(source)]
    if starts.size == 0:
        return None
    lengths = np.full(starts.size, min_n, dtype=np.int64)
    alive = np.ones(starts.size, dtype=bool)
    for extent in range(min_n + 1, min(max_extent, size) + 1):
        back = starts - extent
        alive &= back >= 0
        if not alive.any():
            break
        agree = np.zeros(starts.size, dtype=bool)
        agree[alive] = source.tokens[back[alive]] == tokens[size - extent]
        alive &= agree
        lengths[alive] = extent
    best = int(lengths.max())
    tied = starts[lengths == best]
    start = int(tied[0])
    rivals = int(np.count_nonzero(source.tokens[tied] != source.tokens[start]))
    return LookupMatch(start, best, rivals, tuple(int(t) for t in tail))


class ContextArray:
    """An int64 copy of a context that only grows, extended by the tokens appended since the last call.

    The decoder's context is a Python list that one reply only appends to;
    converting all of it to an array on every verify step cost a few
    microseconds per thousand tokens, each step. The copy is rebuilt whenever
    the list is not a continuation of what was copied (shorter, or its last
    copied token changed: another reply's context).
    """

    def __init__(self) -> None:
        self._buffer = np.empty(1024, dtype=np.int64)
        self._size = 0

    def clear(self) -> None:
        """Forget the copy (a new reply)."""
        self._size = 0

    def view(self, context: Sequence[int]) -> npt.NDArray[np.int64]:
        """``context`` as an int64 array (a view of the buffer: valid until the next call)."""
        size, known = len(context), self._size
        if size < known or (known and int(context[known - 1]) != int(self._buffer[known - 1])):
            known = 0
        if size > self._buffer.size:
            grown = np.empty(max(size, 2 * self._buffer.size), dtype=np.int64)
            grown[:known] = self._buffer[:known]
            self._buffer = grown
        if size > known:
            self._buffer[known:size] = context[known:size]
        self._size = size
        return self._buffer[:size]
