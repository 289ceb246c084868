"""Verify steps rebuilt from what a remote server streams, so its reply colours and counts like a local one.

llama-server, asked for ``timings_per_token``, sends its running counters
(``predicted_n``, ``draft_n``, ``draft_n_accepted``) on every chunk; they move
once per verify step, on the chunk that carries the step's first token. A
step whose accepted count rose by *a* (out of *d* drafted) emitted *a* draft
tokens and then one target token: a correction if *a* < *d*, a bonus if the
whole draft was kept. Tokens are counted with ``predicted_n``, not chunks: a
chunk can carry several tokens when the server held text back (an incomplete
UTF-8 sequence, a possible stop string). Known quirk: the server adds the
accepted count before its stop check, so the last step can claim more
accepted tokens than it emitted; the step then keeps the server's counts and
only the tokens that arrived.

vLLM sends no per-token provenance (one chunk may hold several tokens) but,
when run with ``--per-request-spec-decode-metrics``, a summary on the final
usage chunk: :func:`stats_from_vllm` reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from app.core.decoding.events import StepEvent, StepTimings, TokenOrigin
from app.core.decoding.stats import GenerationStats
from app.core.reply.token_record import TokenRecord
from app.engine.remote.wire import MAX_STEP_DRAFT, Counters, TandemStep, VllmSpec, WireError, parse_tandem

UNKNOWN_ID = -1  # remote servers stream text, not token ids (``chat --json`` has always shown -1 for them)


def remote_token(text: str, origin: TokenOrigin) -> TokenRecord:
    """A token known only by its text and origin (its p_target unknown: a verify step's tokens carry none)."""
    return TokenRecord(id=UNKNOWN_ID, text=text, origin=origin)


def origin_at(position: int, drafted: int, accepted: int) -> TokenOrigin:
    """The origin of the token at ``position`` in a step that drafted ``drafted`` and kept ``accepted``."""
    if position < accepted:
        return TokenOrigin.DRAFT
    if drafted == 0:
        return TokenOrigin.TARGET
    return TokenOrigin.BONUS if accepted >= drafted else TokenOrigin.CORRECTED


@dataclass(slots=True)
class _OpenStep:
    drafted: int
    accepted: int
    pieces: list[tuple[str, int]] = field(default_factory=list)  # (text, tokens it stands for)

    @property
    def n_tokens(self) -> int:
        return sum(n for _, n in self.pieces)

    def expects_more(self) -> bool:
        return self.n_tokens < self.accepted + 1

    def event(self) -> StepEvent:
        tokens: list[TokenRecord] = []
        position = 0
        for text, n in self.pieces:
            # A piece standing for several tokens keeps its text on the first; the rest are empty.
            for k in range(max(n, 1)):
                tokens.append(remote_token(text if k == 0 else "", origin_at(position, self.drafted, self.accepted)))
                position += 1
        return StepEvent(
            tokens=tuple(tokens),
            drafted=self.drafted,
            accepted=self.accepted,
            draft_length=self.drafted,
            timings=StepTimings(0.0, 0.0, 0.0),
        )


class LlamaServerSteps:
    """Feeds llama-server chunks in, gets whole verify steps out.

    The counters are the server's data, never sizes: a step is at most
    :data:`~app.engine.remote.wire.MAX_STEP_DRAFT` drafts, and a chunk stands
    for at most as many tokens as its text has bytes (a token is at least one).
    """

    def __init__(self) -> None:
        self._predicted = 0
        self._drafted = 0
        self._accepted = 0
        self._open: _OpenStep | None = None
        self.tokens_seen = 0  # tokens the chunks stood for so far (what max_tokens is held to)

    def feed(self, text: str, timings: Counters) -> list[StepEvent]:
        """One content chunk and its running ``timings``; returns the steps it closed."""
        predicted = timings.predicted_n if timings.predicted_n is not None else self._predicted + 1
        drafted = timings.draft_n if timings.draft_n is not None else self._drafted
        accepted = timings.draft_n_accepted if timings.draft_n_accepted is not None else self._accepted
        new_tokens = max(predicted - self._predicted, 1 if text else 0)
        new_tokens = min(new_tokens, max(len(text.encode("utf-8", "replace")), 1), MAX_STEP_DRAFT + 1)
        closed: list[StepEvent] = []
        if drafted > self._drafted or accepted > self._accepted:  # the counters moved: a new verify step
            step_drafted, step_accepted = drafted - self._drafted, max(accepted - self._accepted, 0)
            if step_drafted > MAX_STEP_DRAFT:
                raise WireError(f"a verify step of {step_drafted:,} drafted tokens (at most {MAX_STEP_DRAFT:,})")
            closed += self._close()
            self._open = _OpenStep(max(step_drafted, step_accepted), step_accepted)
        elif self._open is None or not self._open.expects_more():  # a step without a draft
            closed += self._close()
            self._open = _OpenStep(0, 0)
        self._open.pieces.append((text, new_tokens))
        self.tokens_seen += new_tokens
        self._predicted, self._drafted, self._accepted = predicted, drafted, accepted
        return closed

    def finish(self) -> list[StepEvent]:
        """The step still open when the stream ends."""
        return self._close()

    def _close(self) -> list[StepEvent]:
        step, self._open = self._open, None
        return [step.event()] if step is not None and step.pieces else []


def tandem_step(extension: TandemStep | Mapping[str, Any]) -> StepEvent:
    """One chunk of another Tandem's ``serve``: a whole verify step with each token's origin and p, q.

    ``extension`` is the checked record, or the raw ``tandem`` object (checked
    here: :class:`~app.engine.remote.wire.WireError` when it is malformed).
    """
    step = extension if isinstance(extension, TandemStep) else parse_tandem(dict(extension))
    # Older servers send no ids. A step's tokens keep no rejected proposal: serve sends none, and one that
    # came anyway is not shown (the reader already refused any origin this Tandem does not know).
    emitted = tuple(replace(t, id=UNKNOWN_ID if t.id is None else t.id, rejected=None) for t in step.tokens)
    accepted = step.accepted if step.accepted is not None else sum(1 for t in emitted if t.origin is TokenOrigin.DRAFT)
    drafted = step.drafted if step.drafted is not None else accepted
    if drafted > MAX_STEP_DRAFT or accepted > drafted:
        raise WireError(f"a verify step of {drafted:,} drafted and {accepted:,} accepted tokens")
    return StepEvent(
        tokens=emitted,
        drafted=drafted,
        accepted=accepted,
        draft_length=drafted,
        timings=StepTimings(0.0, 0.0, 0.0),
    )


def plain_step(text: str) -> StepEvent:
    """A chunk from a server that reports no draft statistics: target tokens, as far as anyone can tell."""
    return StepEvent(
        tokens=(remote_token(text, TokenOrigin.TARGET),),
        drafted=0,
        accepted=0,
        draft_length=0,
        timings=StepTimings(0.0, 0.0, 0.0),
    )


def _suffix_sums(values: list[int], width: int) -> list[int]:
    """``out[i] = sum(values[i + 1:])`` for ``i < width``, in one pass from the end."""
    out = [0] * width
    running = 0
    for i in range(len(values) - 1, 0, -1):
        running += values[i]
        if i - 1 < width:
            out[i - 1] = running
    return out


def stats_from_vllm(spec: VllmSpec, stats: GenerationStats) -> GenerationStats:
    """``metrics.speculative_decoding`` of vLLM's final usage chunk, folded into ``stats``.

    ``acceptance_histogram[j]`` counts steps that accepted exactly *j* drafts,
    so position *i* was accepted in every step with *j* > *i*; with
    ``detailed`` metrics the per-step lists say how far each step drafted.
    Both are read in linear time; their lengths were bounded when the event was
    read (:mod:`app.engine.remote.wire`).
    """
    if spec.num_spec_steps is not None:
        stats.steps = spec.num_spec_steps
    if spec.num_draft_tokens is not None:
        stats.drafted = spec.num_draft_tokens
    if spec.num_accepted_draft_tokens is not None:
        stats.accepted = spec.num_accepted_draft_tokens
    histogram = list(spec.acceptance_histogram)
    per_step = spec.per_step_drafted
    width = max(len(histogram) - 1, max(per_step, default=0), spec.num_spec_tokens)
    if histogram and width:
        stats.position_hits = _suffix_sums(histogram, width)
        if per_step:
            # steps that drafted exactly d, then position i was attempted by every step with d > i
            by_length = [0] * (width + 1)
            for d in per_step:
                by_length[d] += 1
            stats.position_attempts = _suffix_sums(by_length, width)
        else:
            stats.position_attempts = [stats.steps] * width
    return stats
