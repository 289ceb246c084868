"""Following a reply that copies earlier text through small edits (a rename, an inserted line).

:func:`~app.core.decoding.lookup.find_match` needs the reply's last few tokens
to occur earlier. In an edited copy they stop doing so at every edit (the reply
writes ``settings`` where the source says ``cfg``), so a lookup that only
matches n-grams is blind for a few tokens after each one; on a rename that is
most of the reply. :class:`CopyTracker` keeps a pointer into the source the
reply is copying instead:

* every reply token the copy predicted moves the pointer on;
* a token it did not predict is a *departure*: where the source was left is
  remembered, and once the reply's latest tokens turn up again in the source a
  little further on, the copy is *realigned* there;
* the edit that realignment spans (source tokens -> the tokens written
  instead) is kept as a substitution and applied the next time the copy reaches
  the same source tokens, so a rename is learned once and then proposed. A
  substitution that the reply contradicts twice is dropped.

The source is the context itself (the prompt and the reply so far) or, with
:meth:`CopyTracker.set_buffers`, another token sequence such as an attached
document's whole text (``CopyState.buffer`` says which), so a reply can copy
the parts of a file that retrieval left out of the prompt.

The tracker only predicts; how far a prediction is trusted is the
:class:`~app.core.decoding.lookup.LookupRecord`'s business.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

REPEAT = "repeat"  # anchored where the context's tail occurred before (find_match)
REALIGN = "realign"  # anchored near the source position an edit left

# A realignment is found next to where the copy was left, which says more than an
# n-gram found anywhere: it counts as this many agreeing tokens more than it has.
_NEARBY_EVIDENCE = 2
_SUBSTITUTION_MISSES = 2  # contradictions after which a learned substitution is dropped


@dataclass(frozen=True, slots=True)
class CopyState:
    """Where a copy stands: the next source index, and the substitution tokens still to write before it."""

    source: int
    pending: tuple[int, ...] = ()
    substituted: tuple[int, ...] = ()  # the source tokens that ``pending`` replaces (empty outside a substitution)
    buffer: int = 0  # what ``source`` indexes: 0 the context, k > 0 the tracker's k-th extra buffer


@dataclass(frozen=True, slots=True)
class Anchor:
    """A place to start copying from, and the evidence for it."""

    state: CopyState
    evidence: int  # agreeing tokens behind the anchor (a realignment's get a bonus for being nearby)
    origin: str  # REPEAT or REALIGN
    rivals: int = 0  # other equally long matches that continue differently


@dataclass(frozen=True, slots=True)
class Prediction:
    """The tokens a copy predicts next, and the copy's state after each of them."""

    tokens: list[int]
    states: list[CopyState]


class CopyTracker:
    """The reply's copy of earlier text, followed token by token through departures and substitutions.

    ``window``: how far past the departure the source is searched for a
    realignment; ``max_gap``: how many reply tokens after a departure a
    realignment is still looked for; ``max_anchor``: the longest reply tail
    tried as a realignment anchor; ``max_source`` / ``max_replacement``: the
    largest edit kept as a substitution.
    """

    def __init__(
        self,
        window: int = 64,
        max_gap: int = 96,
        max_anchor: int = 8,
        max_source: int = 6,
        max_replacement: int = 16,
    ) -> None:
        self.window = window
        self.max_gap = max_gap
        self.max_anchor = max_anchor
        self.max_source = max_source
        self.max_replacement = max_replacement
        self.state: CopyState | None = None
        self.evidence = 0  # agreeing tokens behind the current state: its anchor's, plus each one followed
        self.origin = REPEAT
        self.rivals = 0
        self._substitutions: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}  # source -> (replacement, misses)
        self._edit_source: int | None = None  # source index the last departure left
        self._edit_buffer = 0  # and the buffer it indexes
        self._buffers: tuple[
            npt.NDArray[np.int64], ...
        ] = ()  # extra sources (attachments' tokens), kept across replies
        self._edit_at = 0  # context index of the first token that departed
        self._seen = 0  # context tokens already followed
        self._last_seen_token: int | None = None  # the last of them (None: not known, the prompt's)

    @property
    def substitutions(self) -> dict[tuple[int, ...], tuple[int, ...]]:
        """The edits learned so far: source tokens -> the tokens the reply writes instead."""
        return {source: replacement for source, (replacement, _) in self._substitutions.items()}

    def set_buffers(self, buffers: Sequence[npt.NDArray[np.int64]]) -> None:
        """Token sequences besides the context that a copy may follow (``CopyState.buffer`` k is ``buffers[k - 1]``)."""
        self._buffers = tuple(np.asarray(b, dtype=np.int64) for b in buffers)
        self.state = None

    def begin(self, prompt_length: int) -> None:
        """A new reply after ``prompt_length`` prompt tokens: forget the last one's copy and edits."""
        self.state = None
        self.evidence = 0
        self.rivals = 0
        self._substitutions.clear()
        self._edit_source = None
        self._seen = prompt_length
        self._last_seen_token = None

    def start(self, anchor: Anchor) -> None:
        """Copy from ``anchor`` on."""
        if anchor.state.buffer > len(self._buffers):
            raise ValueError(f"no buffer {anchor.state.buffer} to copy from")
        self.state = anchor.state
        self.evidence = anchor.evidence
        self.origin = anchor.origin
        self.rivals = anchor.rivals
        self._edit_source = None

    def follow(self, tokens: npt.NDArray[np.int64]) -> None:
        """Move the copy over the tokens written since the last call (the reply so far ends ``tokens``)."""
        size = int(tokens.size)
        known = self._last_seen_token
        if size < self._seen or (known is not None and self._seen > 0 and int(tokens[self._seen - 1]) != known):
            # Not a continuation of what was followed (another context): start over.
            self.begin(min(size, self._seen))
            self._seen = size
        for i in range(self._seen, size):
            if self.state is None:
                continue
            predicted = self._predict(tokens, self.state, 1, i)
            if predicted.tokens and predicted.tokens[0] == int(tokens[i]):
                self.state = predicted.states[0]
                self.evidence += 1
                self.rivals = 0
            else:
                self._depart(tokens, i)
        self._seen = size
        if size:
            self._last_seen_token = int(tokens[size - 1])

    def predict(self, tokens: npt.NDArray[np.int64], count: int) -> Prediction:
        """The next ``count`` tokens of the current copy (fewer where it runs out), with substitutions applied."""
        if self.state is None:
            return Prediction([], [])
        return self._predict(tokens, self.state, count, int(tokens.size))

    def realign(self, tokens: npt.NDArray[np.int64]) -> Anchor | None:
        """After a departure: where the reply's latest tokens occur again just past the source it left.

        The longest tail (up to ``max_anchor`` tokens, all written after the
        departure) found within ``window`` tokens of the departure point wins,
        the nearest among equals. The source tokens skipped and the reply
        tokens written instead are kept as a substitution.
        """
        if self.state is not None or self._edit_source is None:
            return None
        size = int(tokens.size)
        written = size - self._edit_at
        if written > self.max_gap:
            self._edit_source = None
            return None
        low = self._edit_source
        buffer = self._edit_buffer
        source = self._buffers[buffer - 1] if buffer else tokens
        # The anchor's tokens lie in source[low:high] (in the context: before the edit began).
        high = min(int(source.size) if buffer else self._edit_at, low + self.window)
        found = _longest_tail(source[low:high], tokens, min(self.max_anchor, written, high - low))
        if found is not None:
            m, end = found
            after = low + end + 1  # the source index that follows the anchor
            self._learn(
                tuple(int(t) for t in source[low : after - m]),
                tuple(int(t) for t in tokens[self._edit_at : size - m]),
            )
            return Anchor(CopyState(after, buffer=buffer), m + _NEARBY_EVIDENCE, REALIGN)
        return None

    # -- internals ---------------------------------------------------------------

    def _predict(self, tokens: npt.NDArray[np.int64], state: CopyState, count: int, end: int) -> Prediction:
        """Up to ``count`` tokens from ``state``, reading the source before ``end`` (and the prediction itself)."""
        out: list[int] = []
        states: list[CopyState] = []
        source, pending, substituted = state.source, list(state.pending), state.substituted
        buffer = state.buffer
        # An extra buffer ends where it ends; the context may be read past its end (see below).
        text, limit = (self._buffers[buffer - 1], int(self._buffers[buffer - 1].size)) if buffer else (tokens, end)
        while len(out) < count:
            if pending:
                token = pending.pop(0)
            else:
                substituted = ()
                if source >= (limit if buffer else end + len(out)):
                    break
                edit = self._substitution_at(text, source, limit)
                if edit is not None:
                    substituted, replacement = edit
                    source += len(substituted)
                    pending = list(replacement)
                    continue
                # Past the context's end the copy reads its own prediction: a repeat goes on repeating.
                token = int(text[source]) if source < limit else out[source - end]
                source += 1
            out.append(token)
            states.append(CopyState(source, tuple(pending), substituted if pending else (), buffer))
        return Prediction(out, states)

    def _substitution_at(
        self, tokens: npt.NDArray[np.int64], source: int, end: int
    ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The longest learned substitution whose source tokens start at ``source`` (within ``tokens[:end]``)."""
        best: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        for original, (replacement, _) in self._substitutions.items():
            stop = source + len(original)
            if stop > end or (best is not None and len(original) <= len(best[0])):
                continue
            if tuple(int(t) for t in tokens[source:stop]) == original:
                best = (original, replacement)
        return best

    def _depart(self, tokens: npt.NDArray[np.int64], index: int) -> None:
        """The token at ``index`` is not what the copy predicted."""
        state = self.state
        assert state is not None
        self._edit_buffer = state.buffer
        if state.pending:  # inside a substitution's replacement: the edit did not recur here
            replacement, _ = self._substitutions.get(state.substituted, ((), 0))
            self._contradict(state.substituted)
            self._edit_source = state.source - len(state.substituted)
            # The edit began where the replacement did: what the reply wrote of it belongs to the new edit.
            index -= max(0, len(replacement) - len(state.pending))
        else:
            source = self._buffers[state.buffer - 1] if state.buffer else tokens
            edit = self._substitution_at(source, state.source, int(source.size) if state.buffer else index)
            if edit is not None:  # its first replacement token was the wrong one
                self._contradict(edit[0])
            self._edit_source = state.source
        self._edit_at = index
        self.state = None
        self.evidence = 0

    def _contradict(self, original: tuple[int, ...]) -> None:
        replacement, misses = self._substitutions.get(original, ((), 0))
        if misses + 1 >= _SUBSTITUTION_MISSES:
            self._substitutions.pop(original, None)
        else:
            self._substitutions[original] = (replacement, misses + 1)

    def _learn(self, original: tuple[int, ...], replacement: tuple[int, ...]) -> None:
        """Keep an edit as a substitution when it replaced a few source tokens with a few others."""
        if not 1 <= len(original) <= self.max_source or not 1 <= len(replacement) <= self.max_replacement:
            return  # a pure insertion or deletion has no source tokens to recognise it by
        if original != replacement:
            self._substitutions[original] = (replacement, 0)


def _longest_tail(window: npt.NDArray[np.int64], tokens: npt.NDArray[np.int64], longest: int) -> tuple[int, int] | None:
    """The longest tail of ``tokens`` (at most ``longest``) that occurs in ``window``, and where it ends.

    Returns ``(m, end)``: the last ``m`` tokens equal ``window[end - m + 1 : end + 1]``,
    the first such place (the nearest to the departure) among the longest. Found
    by growing every window position's backward agreement with the tail one token
    at a time, so a step costs a few short comparisons rather than one search per
    candidate length; None when no token of the window equals the last one.
    """
    if longest <= 0 or window.size == 0:
        return None
    size = int(tokens.size)
    ends = np.arange(window.size)
    alive = window == tokens[size - 1]
    agree = alive.astype(np.int64)
    for k in range(1, longest):
        alive[:k] = False  # a tail of k + 1 tokens ending there would start before the window
        alive[k:] &= window[: window.size - k] == tokens[size - 1 - k]
        if not alive.any():
            break
        agree += alive
    m = int(agree.max())
    if m == 0:
        return None
    return m, int(ends[agree == m][0])
