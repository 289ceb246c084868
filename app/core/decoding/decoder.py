"""The speculative decoding loop, as a generator of step events.

Each step: the drafter proposes up to K tokens, the target evaluates
``[last] + draft`` in one batch, :func:`verify_draft` keeps a prefix and adds
one target token, and both KV caches are cut back to what was kept. With no
drafter the same loop is plain target decoding (K = 0), so the baseline and
the speculative path share every line that matters for a fair comparison.

The consumer iterates the generator on a worker thread; ``should_stop`` is
polled between steps, never inside a llama.cpp call.

Only the target is prefilled before the first step: a draft model reads the
prompt on its first draft (:class:`~app.core.decoding.drafters.ModelDrafter`).
When that would mean reading more than a few tokens and the policy allows it
(``first_token_first``: the adaptive controller and a chat's fixed length, not
the demo), the first step drafts nothing, so the first token comes as soon as the target alone can give it;
the draft catches up on the next step, if the policy judges that reading
everything it missed pays for itself in the tokens still to come
(``catch_up_pays``: after a long document and for a small gain it does not,
and the model stays off while a lookup may still propose). The statistics keep the prompt's
figures (tokens, reused from the target's cache, prefill time, time to the
first token).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np
import numpy.typing as npt

from app.core.decoding.acceptance_rules import rejection_sampling_acceptance, sample_and_match_acceptance
from app.core.decoding.constraint import BoolArray, TokenMask, advance_through, warp_masked
from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.draft_policy import DraftLengthPolicy, FixedDraftLength
from app.core.decoding.drafters import Draft, Drafter, NoDrafter
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent, StepTimings, TokenOrigin
from app.core.decoding.logprobs import TokenLogprobs, token_logprobs
from app.core.decoding.model_port import CausalLM, common_prefix_length, sync_cache
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.core.decoding.stats import GenerationStats
from app.core.decoding.step_trace import clip_record, record_step
from app.core.decoding.text import IncrementalDetokenizer, find_stop, standalone_text
from app.core.decoding.verification import verify_draft
from app.core.errors import PromptTooLongError
from app.core.reply.token_record import RejectedProposal, TokenRecord

# A draft model more than this many tokens behind the context on the first step (its lazy prefill)
# does not draft then: reading the prompt would delay the first token by a draft prefill.
FIRST_STEP_MAX_BACKLOG = 16


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """One reply to generate."""

    prompt_tokens: Sequence[int]
    max_tokens: int = 256
    stop_strings: tuple[str, ...] = ()
    should_stop: Callable[[], bool] = field(default=lambda: False)
    # Where a traced reply's step records start counting (its steps' ``index`` and ``first_token``):
    # a continued reply's new steps follow the steps and tokens already stored.
    first_step: int = 0
    first_token: int = 0
    # Structured output: the grammar every emitted token must keep to (app.core.decoding.constraint);
    # one mask per request, starting at the grammar's start.
    constraint: TokenMask | None = None
    # Report each token's log-probability and this many alternatives (0..20); None: no log-probabilities.
    top_logprobs: int | None = None


class ThreadCount(Protocol):
    """The CPU thread count the models run with, told about each step (:mod:`app.core.adaptive.threads`)."""

    auto: bool

    @property
    def threads(self) -> int:
        """The count the next step runs with."""
        ...

    def begin(self) -> None:
        """A generation starts."""
        ...

    def observe(self, event: StepEvent) -> None:
        """Learn from the step that just ran (and perhaps change the count for the next one)."""
        ...


class _LazyTargetRows(Sequence[TokenDistribution]):
    """Target distributions warped only when verification reaches their row."""

    def __init__(
        self,
        rows: npt.NDArray[np.float32],
        warper: LogitsWarper,
        history: list[int],
        draft: Draft,
        masks: Sequence[BoolArray] | None = None,
    ) -> None:
        self._rows = rows
        self._warper = warper
        self._history = history
        self._draft = draft
        # Row i's grammar mask (the state after the draft's first i tokens), when the output is constrained.
        self._masks = masks
        self._cache: dict[int, TokenDistribution] = {}

    def __len__(self) -> int:
        return int(self._rows.shape[0])

    def __getitem__(self, index: int) -> TokenDistribution:  # type: ignore[override]  # int indexes only: verify_draft never slices the lazy rows
        if index not in self._cache:
            history = self._history + self._draft.tokens[:index] if self._history else ()
            if self._masks is None:
                self._cache[index] = self._warper.warp(self._rows[index], history)
            else:
                self._cache[index] = warp_masked(self._warper, self._rows[index], history, self._masks[index])
        return self._cache[index]


class SpeculativeDecoder:
    """Generates replies from ``target`` with proposals from ``drafter``."""

    def __init__(
        self,
        target: CausalLM,
        drafter: Drafter | None = None,
        params: SamplingParams | None = None,
        policy: DraftLengthPolicy | None = None,
        rng: np.random.Generator | None = None,
        threads: ThreadCount | None = None,
        trace: bool = False,
        pieces: Callable[[int], bytes] | None = None,
    ) -> None:
        """``pieces`` spells each token of the reply (default: the target's ``token_bytes``); the engine passes one
        that shows a tool dialect's control-token markers as their text to the call reader."""
        self.target = target
        self.drafter: Drafter = drafter or NoDrafter()
        self.params = params or SamplingParams()
        self.policy: DraftLengthPolicy = policy or FixedDraftLength(0 if drafter is None else 4)
        self.rng = rng or np.random.default_rng(self.params.seed)
        self.threads = threads
        # Build a StepRecord per step (app.core.decoding.step_trace): the window and ``chat --chat`` keep them.
        self.trace = trace
        self.warper = LogitsWarper(self.params, target.n_vocab)
        self.pieces = pieces if pieces is not None else target.token_bytes
        self._detokenizer = IncrementalDetokenizer(self.pieces)

    def generate(self, request: GenerationRequest) -> Iterator[StepEvent | FinishedEvent]:
        """Yield a :class:`StepEvent` per verify step, then one :class:`FinishedEvent`."""
        prompt = list(request.prompt_tokens)
        n_ctx = self.target.n_ctx
        if not prompt:
            raise ValueError("the prompt has no tokens")
        if len(prompt) >= n_ctx:
            raise PromptTooLongError(len(prompt), n_ctx)
        stats = GenerationStats(prompt_tokens=len(prompt))
        if self.threads is not None:
            self.threads.begin()
        started = time.perf_counter()
        stats.prompt_reused = common_prefix_length(self.target.kv_tokens, prompt[:-1])
        sync_cache(self.target, prompt[:-1])
        self.drafter.begin(prompt)  # reads nothing: a draft model catches up on its first draft
        stats.prefill_s = time.perf_counter() - started

        context = prompt
        text = ""
        reason = FinishReason.MAX_TOKENS
        steps = 0
        while stats.emitted < request.max_tokens:
            if request.should_stop():
                reason = FinishReason.CANCELLED
                break
            room = n_ctx - len(context)  # positions left once [last] is in the cache
            if room < 0:
                reason = FinishReason.CONTEXT_FULL
                break
            event, finished = self._step(context, request, room, stats.emitted, steps)
            if not steps:
                stats.time_to_first_token_s = time.perf_counter() - started
                event = replace(event, prompt=stats.prompt_figures_now())
            steps += 1
            stats.record(event)
            self.policy.observe(event)
            if self.threads is not None:
                self.threads.observe(event)
            step_text = event.text
            stop_at = find_stop(text + step_text, request.stop_strings, len(text)) if request.stop_strings else -1
            if stop_at != -1:
                event = _cut_at_text(event, stop_at - len(text))
                finished = FinishReason.STOP_STRING
                step_text = event.text
            text += step_text
            yield event
            if finished is not None:
                reason = finished
                break
        tail = self._detokenizer.flush()  # bytes of a character the last token left unfinished
        if reason is FinishReason.EOG:
            text += tail  # the model ended inside a character: its bytes shown as replacement characters
        # A reply cut at its limit (or stopped) keeps whole characters only: a "\ufffd" stored at its end
        # would be read back by Continue as a character the model never wrote; it writes the whole one then.
        yield FinishedEvent(reason, text, stats)

    def _step(
        self, context: list[int], request: GenerationRequest, room: int, n_emitted: int, n_steps: int
    ) -> tuple[StepEvent, FinishReason | None]:
        """One draft-verify round; extends ``context`` in place with the kept tokens."""
        step_start = time.perf_counter()
        remaining = request.max_tokens - n_emitted
        want = self.policy.next_length()
        why = self.policy.reason if self.trace else ""
        cap = max(0, min(room, remaining - 1))
        k = min(want, cap)
        backlog = self.drafter.backlog(context) if k > 0 else 0
        deferred = k > 0 and n_steps == 0 and self.policy.first_token_first and backlog > FIRST_STEP_MAX_BACKLOG
        if deferred:
            k = 0  # the first token from the target alone; the draft model reads the prompt next step
            if self.trace:  # the step's record must not claim a draft it did not make
                why = f"{why}; deferred: the first token comes from the target alone while the draft reads the prompt"
        elif backlog > FIRST_STEP_MAX_BACKLOG and not self.policy.catch_up_pays(backlog, remaining):
            k = 0  # far behind (a long prompt, or a long stretch without drafting) for too little gain
            why = self.policy.reason if self.trace else ""
        # A lookup costs no model time: a drafter that has one is asked even when the policy drafts nothing.
        lookup = min(self.drafter.lookup_length, cap)
        constraint = request.constraint
        if k > 0:
            draft = self.drafter.propose(context, k, self.policy.confidence_floor(), lookup, constraint)
        elif lookup > 0:
            draft = self.drafter.propose(context, 0, None, lookup, constraint)
        else:
            draft = Draft()
        masks: list[BoolArray] | None = None
        if constraint is not None:
            # The grammar walks the draft (a drafter that ignored the mask is cut at its first refused token).
            n_allowed, masks = advance_through(constraint, draft.tokens)
            if n_allowed < len(draft):
                draft = _cut_draft(draft, n_allowed)
        drafted_at = time.perf_counter()

        rows = self.target.decode([context[-1], *draft.tokens], "all")
        verified_at = time.perf_counter()

        history = list(context[-self.params.repeat_last_n :]) if self.params.repeat_penalty != 1.0 else []
        p_target = _LazyTargetRows(rows, self.warper, history, draft, masks)
        verdict = verify_draft(draft.tokens, draft.q_draft, p_target, self.rng)
        if constraint is not None:
            # Back to the last accepted token, then past the token the masked target added.
            constraint.rollback(len(draft) - verdict.n_accepted)
            constraint.consume(verdict.next_token)
        kept = len(context) + verdict.n_accepted
        self.target.truncate(kept)
        self.drafter.accept(verdict.n_accepted)

        rejected = None
        if verdict.rejected_token is not None:
            at = verdict.n_accepted
            rejected = RejectedProposal(
                id=verdict.rejected_token,
                text=standalone_text(self.pieces, verdict.rejected_token),
                p_target=p_target[at].prob_of(verdict.rejected_token),
                q_draft=draft.q_draft[at].prob_of(verdict.rejected_token),
            )
        tokens: list[TokenRecord] = []
        finished: FinishReason | None = None
        new_ids = [*draft.tokens[: verdict.n_accepted], verdict.next_token]
        for i, token in enumerate(new_ids):
            if self.target.is_eog(token):
                finished = FinishReason.EOG
                break
            is_draft = i < verdict.n_accepted
            tokens.append(
                TokenRecord(
                    id=token,
                    text=self._detokenizer.piece(token),
                    origin=TokenOrigin.DRAFT if is_draft else verdict.next_origin,
                    p_target=p_target[i].prob_of(token),
                    q_draft=draft.q_draft[i].prob_of(token) if i < len(draft) else None,
                    source=draft.source if is_draft else None,
                    copied_from=draft.copied_from[i] if is_draft and i < len(draft.copied_from) else None,
                    # The corrected token follows the accepted ones: it carries the proposal it replaced.
                    rejected=None if is_draft else rejected,
                )
            )
            context.append(token)
            if len(tokens) >= remaining:
                break
        if finished is None and len(tokens) >= remaining:
            finished = FinishReason.MAX_TOKENS
        logprobs: tuple[TokenLogprobs, ...] = ()
        if request.top_logprobs is not None:  # row i of the verified batch is emitted token i's position
            n_top, token_bytes = request.top_logprobs, self.pieces
            logprobs = tuple(
                token_logprobs(self.warper.log_probabilities(rows[i]), new_ids[i], n_top, token_bytes)
                for i in range(len(tokens))
            )

        # Both rules from the rows verification already warped: no extra target work.
        reached = range(min(len(draft), verdict.n_accepted + 1))
        exact = tuple(rejection_sampling_acceptance(p_target[i], draft.q_draft[i]) for i in reached)
        match = tuple(sample_and_match_acceptance(p_target[i], draft.q_draft[i]) for i in reached)
        done_at = time.perf_counter()
        # draft_s is the draft model's own decode time: the drafter's sampling and
        # lookups, like the verification below, are Python overhead of the step.
        timings = StepTimings(draft.model_s, verified_at - drafted_at, done_at - step_start)
        threads = self.threads
        event = StepEvent(
            tokens=tuple(tokens),
            drafted=len(draft),
            accepted=verdict.n_accepted,
            draft_length=max(k, len(draft)),
            timings=timings,
            draft_confidence=tuple(draft.confidence),
            rejection_sampling_expected=exact,
            sample_and_match_expected=match,
            threads=threads.threads if threads is not None else 0,
            threads_auto=threads is not None and threads.auto,
            draft_source=draft.source if draft.tokens else None,
            draft_caught_up=draft.caught_up,
            logprobs=logprobs,
        )
        if self.trace:
            if deferred:
                why += "; 0 on the first step: the draft model reads the prompt after the first token"
            elif k < want:
                why += f"; {k} by the tokens or context left"
            if k == 0 and draft.tokens:
                why += "; prompt lookup proposes anyway (it costs no model time)"
            record = record_step(
                index=request.first_step + n_steps,
                first_token=request.first_token + n_emitted,
                n_emitted=len(tokens),
                draft=draft,
                draft_length=event.draft_length,
                reason=why,
                greedy=self.params.greedy,
                p_target=p_target,
                verdict=verdict,
                timings=timings,
                token_bytes=self.pieces,
            )
            event = replace(event, record=record)
        return event, finished


def _cut_draft(draft: Draft, n_keep: int) -> Draft:
    """The first ``n_keep`` proposals of ``draft``."""
    return replace(
        draft,
        tokens=draft.tokens[:n_keep],
        q_draft=draft.q_draft[:n_keep],
        confidence=draft.confidence[:n_keep],
        copied_from=draft.copied_from[:n_keep],
    )


def _cut_at_text(event: StepEvent, cut: int) -> StepEvent:
    """The event with its text ending just before character ``cut`` of the step's text."""
    kept: list[TokenRecord] = []
    used = 0
    for token in event.tokens:
        if used >= cut:
            break
        piece = token.text[: cut - used]
        kept.append(replace(token, text=piece))
        used += len(token.text)
    return replace(
        event, tokens=tuple(kept), record=clip_record(event.record, len(kept)), logprobs=event.logprobs[: len(kept)]
    )
