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
from dataclasses import dataclass, field
from typing import Any

from app.core.decoding.events import EmittedToken, StepEvent, StepTimings, TokenOrigin
from app.core.decoding.stats import GenerationStats

UNKNOWN_ID = -1  # remote servers stream text, not token ids
UNKNOWN_P = float("nan")  # nor probabilities: tokens from a verify step carry none


def remote_token(text: str, origin: TokenOrigin) -> EmittedToken:
    """A token known only by its text and origin."""
    return EmittedToken(UNKNOWN_ID, text, origin, UNKNOWN_P, None)


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
        tokens: list[EmittedToken] = []
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
            rejected=None,
            timings=StepTimings(0.0, 0.0, 0.0),
        )


class LlamaServerSteps:
    """Feeds llama-server chunks in, gets whole verify steps out."""

    def __init__(self) -> None:
        self._predicted = 0
        self._drafted = 0
        self._accepted = 0
        self._open: _OpenStep | None = None

    def feed(self, text: str, timings: Mapping[str, Any]) -> list[StepEvent]:
        """One content chunk and its running ``timings``; returns the steps it closed."""
        predicted = int(timings.get("predicted_n", self._predicted + 1))
        drafted = int(timings.get("draft_n", self._drafted))
        accepted = int(timings.get("draft_n_accepted", self._accepted))
        new_tokens = max(predicted - self._predicted, 1 if text else 0)
        closed: list[StepEvent] = []
        if drafted > self._drafted or accepted > self._accepted:  # the counters moved: a new verify step
            closed += self._close()
            self._open = _OpenStep(drafted - self._drafted, accepted - self._accepted)
        elif self._open is None or not self._open.expects_more():  # a step without a draft
            closed += self._close()
            self._open = _OpenStep(0, 0)
        self._open.pieces.append((text, new_tokens))
        self._predicted, self._drafted, self._accepted = predicted, drafted, accepted
        return closed

    def finish(self) -> list[StepEvent]:
        """The step still open when the stream ends."""
        return self._close()

    def _close(self) -> list[StepEvent]:
        step, self._open = self._open, None
        return [step.event()] if step is not None and step.pieces else []


def tandem_step(extension: Mapping[str, Any]) -> StepEvent:
    """One chunk of another Tandem's ``serve``: a whole verify step with each token's origin and p, q."""
    emitted = tuple(
        EmittedToken(
            int(t.get("id", UNKNOWN_ID)),
            str(t.get("text", "")),
            TokenOrigin(t.get("origin", TokenOrigin.TARGET.value)),
            float(t["p_target"]) if t.get("p_target") is not None else UNKNOWN_P,
            float(t["q_draft"]) if t.get("q_draft") is not None else None,
            str(t["source"]) if t.get("source") is not None else None,  # absent from older servers
        )
        for t in extension.get("tokens") or ()
    )
    accepted = int(extension.get("accepted", sum(1 for t in emitted if t.origin is TokenOrigin.DRAFT)))
    drafted = int(extension.get("drafted", accepted))
    return StepEvent(
        tokens=emitted,
        drafted=drafted,
        accepted=accepted,
        draft_length=drafted,
        rejected=None,
        timings=StepTimings(0.0, 0.0, 0.0),
    )


def plain_step(text: str) -> StepEvent:
    """A chunk from a server that reports no draft statistics: target tokens, as far as anyone can tell."""
    return StepEvent(
        tokens=(remote_token(text, TokenOrigin.TARGET),),
        drafted=0,
        accepted=0,
        draft_length=0,
        rejected=None,
        timings=StepTimings(0.0, 0.0, 0.0),
    )


def stats_from_vllm(metrics: Mapping[str, Any], stats: GenerationStats) -> GenerationStats:
    """``metrics.speculative_decoding`` of vLLM's final usage chunk, folded into ``stats``.

    ``acceptance_histogram[j]`` counts steps that accepted exactly *j* drafts,
    so position *i* was accepted in every step with *j* > *i*; with
    ``detailed`` metrics the per-step lists say how far each step drafted.
    """
    spec = metrics.get("speculative_decoding") or {}
    if not spec:
        return stats
    stats.steps = int(spec.get("num_spec_steps", stats.steps))
    stats.drafted = int(spec.get("num_draft_tokens", stats.drafted))
    stats.accepted = int(spec.get("num_accepted_draft_tokens", stats.accepted))
    histogram = [int(x) for x in spec.get("acceptance_histogram") or []]
    per_step_drafted = [int(x) for x in spec.get("per_step_drafted") or []]
    width = max(len(histogram) - 1, max(per_step_drafted, default=0), int(spec.get("num_spec_tokens", 0) or 0))
    if histogram and width:
        stats.position_hits = [sum(histogram[j] for j in range(i + 1, len(histogram))) for i in range(width)]
        if per_step_drafted:
            stats.position_attempts = [sum(1 for d in per_step_drafted if d > i) for i in range(width)]
        else:
            stats.position_attempts = [stats.steps] * width
    return stats
