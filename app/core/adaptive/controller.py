"""The adaptive draft-length controller.

Before each step :class:`AdaptiveDraftLength` picks the draft length K that
maximises expected tokens per second under the cost model of
:mod:`app.core.adaptive.cost_model`, from

* live per-position acceptance (exponentially weighted, with priors), and
* measured costs: the target's verify cost per batch size and the drafter's
  cost per token, learned online from :class:`~app.core.decoding.events.StepTimings`
  and optionally seeded by the pre-flight check.

Acceptance is strongly correlated from one step to the next (a reply that
copies its input, or a stretch of boilerplate, accepts draft after draft), so
two estimates are kept: one for steps that follow a fully accepted draft (a
streak) and one for all others, and each step uses the one that matches.

K = 0 (drafting off) is a legal answer. While off, a probe step now and then
refreshes the acceptance estimate, with the interval doubling each time the
probe confirms that drafting loses; when the costs say that even a perfect
draft could not pay, no probe is spent at all. Near break-even a reply opens
with a few probes, since the pair's acceptance says little about this reply's
text. The controller also exposes a
confidence floor: the model drafter stops early once its own top probability,
calibrated against what verification accepted, falls below the acceptance at
which one more draft token pays for itself. The estimators live in
:mod:`app.core.adaptive.estimators`.

Prompt lookup proposes at no model cost, with its own per-token confidence
(:mod:`app.core.decoding.lookup`), so it is not switched on or off by the plan:
:meth:`AdaptiveDraftLength.lookup_length` keeps, step by step, the prefix of
its proposals that beats the best alternative (a plain step, or for the hybrid
drafter the draft model's plan) under the measured verify costs. A miss only
lowers that match's trust; the next trusted match is proposed again. Lookup
steps under a hybrid drafter teach the verify costs, never the draft model's
cost or acceptance.

Costs belong to the machine and the pair, not to one reply, so they live in a
:class:`~app.core.adaptive.profile.PairProfile` that every generation of a loaded pair shares. Decisions
read them through a :class:`~app.core.adaptive.held_costs.CostHold`, which
keeps them steady until they move past a dead band, so that timing noise does
not decide between near-equal choices.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.adaptive.catch_up import first_read, planned_read
from app.core.adaptive.cost_model import (
    StepCosts,
    best_case_speedup,
    best_lookup_length,
    expected_tokens,
    plan_with_streaks,
)
from app.core.adaptive.estimators import (
    PRIOR_ACCEPTANCE,
    AcceptanceEstimator,
    DraftCostEstimator,
    VerifyCostEstimator,
)
from app.core.adaptive.profile import DrafterProfile
from app.core.adaptive.reasons import (
    BEST_AT,
    CATCH_UP,
    MEASURING_DRAFT,
    NOT_ASKED,
    OFF_COSTLY,
    OFF_HOPELESS,
    PLAIN_STEP,
    PROBE,
)
from app.core.decoding.draft_policy import DraftStop
from app.core.decoding.events import StepEvent
from app.core.decoding.lookup import trusted_prefix

DEFAULT_MAX_LENGTH = 12
_EXPLORE_LENGTH = 4
_BASE_PROBE_INTERVAL = 8
_MAX_PROBE_INTERVAL = 256
# A drafter whose token costs under this share of a target token (prompt lookup)
# probes every few steps: a probe then costs one verify slot and only when it
# found something to propose.
_CHEAP_DRAFT = 0.05
_CHEAP_PROBE_INTERVAL = 2
# A probe costs a few target tokens' time, and a model drafter first catches
# its cache up on every token it missed: on the demo pair on a 2-core CPU that
# batch costs ~15 % of the time the target took for those tokens. Unless a
# perfectly accepted draft would be this much faster than target-only, no
# probe can repay itself.
_PROBE_MIN_CEILING = 1.3
# A probe of a draft model that has text to catch up on reads it when that read costs at most this
# share of the time the rest of the reply would take at the rate it is getting. Without it a model that the
# pre-flight judged not worth drafting never got its probe on a reply: it had the prompt to read, and
# a plan rate of 0 never repays a read (on a 2-core EPYC the F16 demo pair's pre-flight verdict
# flipped between runs, and runs judged "off" drafted nothing at 0.85-0.96x the target alone, where
# runs that drafted got 1.6-2.0x; issue 31).
_PROBE_CATCH_UP_SHARE = 0.1
# A reply opens with up to this many model drafts when the plan puts drafting within this share of
# break-even: the pair's acceptance (pre-flight's chat prompts, earlier replies) says little about
# this reply's text, and near break-even timing noise alone decides the verdict. On a 2-core EPYC the
# F16 demo pair sat there, and replies judged "off" ran code writing at 0.85-1.4x the target alone
# where replies that drafted got 1.6-2.0x (issue 31). Far from break-even the verdict stands.
_OPENING_DRAFTS = 3
_OPENING_BAND = 0.15
# Drafting must beat target-only by this much to be switched on: it keeps the
# controller from flapping on noise when the two are nearly equal.
_SWITCH_MARGIN = 0.03
_MAX_CONFIDENCE_FLOOR = 0.9
# While the one-token cost is only inferred, one step in this many is a plain one.
_MEASURE_ONE_TOKEN_EVERY = 8
# One draft in this many may go one calibration bin below the confidence floor.
_EXPLORE_FLOOR_EVERY = 6
_RECENT_DECAY = 0.9  # the achieved rate looks back ~10 steps
# Before any verify cost is known, a lookup proposal is sent while its estimated acceptance is at least this.
_LOOKUP_FLOOR_UNMEASURED = 0.5
_LOOKUP_SOURCE = "lookup"
# A model draft that follows a drafted step reads one or two tokens first (the correction or bonus, and
# after a full acceptance the last draft token); one that read more was catching up (its lazy prefill).
_USUAL_CATCH_UP = 2


class AdaptiveDraftLength:
    """A :class:`~app.core.decoding.draft_policy.DraftLengthPolicy` that maximises expected tokens per second."""

    # The first token comes from the target alone while the draft model has the prompt to read.
    first_token_first = True

    def __init__(self, max_length: int = DEFAULT_MAX_LENGTH, profile: DrafterProfile | None = None) -> None:
        if max_length < 1:
            raise ValueError("the adaptive controller needs a maximum draft length of at least 1")
        self.max_length = max_length
        self._attached = profile is not None
        self.profile = profile or DrafterProfile(VerifyCostEstimator(), DraftCostEstimator())
        self._estimators = self._fresh_estimators()
        self._streak = False
        self._chosen = 0
        self._steps_off = 0
        self._steps_since_plain = 0
        self._drafts_since_explore = 0
        self._probe_interval = _BASE_PROBE_INTERVAL
        self._last_requested = -1
        self._recent_tokens = 0.0
        self._recent_s = 0.0
        self._planned_rate = 0.0  # tokens/s of the draft model's plan for the coming step (0: none)
        self._probing = False  # whether the coming step is a probe (drafting is off, checking again)
        self._opening = False  # whether that probe is one of the reply's opening drafts
        self._model_drafts = 0  # steps of this reply the draft model drafted
        self._step_costs: StepCosts | None = None  # the held costs for the coming step (None: to be read)
        self._reason = str(NOT_ASKED)

    @property
    def attached(self) -> bool:
        """Whether a shared profile is in use (else costs are learned from scratch)."""
        return self._attached

    def attach(self, profile: DrafterProfile) -> None:
        """Use a loaded pair's shared profile (before the first step)."""
        self._attached = True
        self.profile = profile
        self._estimators = self._fresh_estimators()
        self._step_costs = None

    def _fresh_estimators(self) -> dict[bool, AcceptanceEstimator]:
        known = self.profile.acceptance
        return {state: AcceptanceEstimator(self.max_length, known.get(state)) for state in (False, True)}

    @property
    def acceptance(self) -> AcceptanceEstimator:
        """The estimate that applies to the coming step (after a fully accepted draft or not)."""
        return self._estimators[self._streak]

    def rates(self, streak: bool) -> list[float]:
        """Per-position acceptance after a fully accepted draft (``streak``) or not.

        The streak estimate starts from the other one: a controller that
        stopped drafting after a streak would otherwise never see one again
        and keep its prior for good. Acceptance after a full draft is taken
        to be at least the acceptance after a miss (it is rarely lower: both
        follow how predictable the text is), and it never starts below the
        general prior, so that a streak gets drafted into and measured. Without
        that, a thin streak estimate can make a plain step look like the best
        way back to the after-miss state.
        """
        after_miss = self._estimators[False].rates()
        if not streak:
            return after_miss
        in_streak = self._estimators[True].rates([max(after_miss[0], PRIOR_ACCEPTANCE)])
        return [max(a, b) for a, b in zip(in_streak, after_miss, strict=True)]

    # -- the policy protocol ---------------------------------------------------

    @property
    def reason(self) -> str:
        """Why the last :meth:`next_length` chose its length, with the numbers it weighed."""
        return self._reason

    def _why_best(self, costs: StepCosts, k: int) -> str:
        rates = self.rates(self._streak)[:k]
        acceptance = sum(rates) / len(rates)
        return str(
            BEST_AT.fill(
                k=k,
                acceptance=acceptance,
                draft_ms=costs.draft_per_token_s * 1000,
                verify_ms=costs.verify(k + 1) * 1000,
            )
        )

    def next_length(self) -> int:
        """Draft length for the coming step."""
        if not (self.profile.verify.known and self.profile.draft.known):
            self._chosen = min(_EXPLORE_LENGTH, self.max_length)  # measure what a draft costs first
            self._reason = str(MEASURING_DRAFT.fill(k=self._chosen))
            return self._chosen
        costs = self.costs()
        best_k, rate = self._best(costs)
        self._planned_rate = rate if best_k > 0 else 0.0
        self._probing = self._opening = False
        if best_k > 0 and not self.profile.verify.one_token_measured:
            # Every cost is kept relative to a one-token step, and that was only guessed
            # from a batch: take a plain step now and then to measure it.
            self._steps_since_plain += 1
            if self._steps_since_plain >= _MEASURE_ONE_TOKEN_EVERY:
                best_k = 0
                self._reason = str(PLAIN_STEP)
        if best_k > 0:
            self._steps_off = 0
            self._probe_interval = _BASE_PROBE_INTERVAL
            self._chosen = best_k
            self._reason = self._why_best(costs, best_k)
            return best_k
        measuring = self._steps_since_plain >= _MEASURE_ONE_TOKEN_EVERY
        self._steps_off += 1
        self._steps_since_plain = 0
        cheap = costs.draft_per_token_s < _CHEAP_DRAFT * costs.verify(1)
        interval = _CHEAP_PROBE_INTERVAL if cheap else self._probe_interval
        hopeless = self._hopeless_now(costs)
        due = self._steps_off >= interval
        opening = False
        if not hopeless and (due or self._model_drafts < _OPENING_DRAFTS):
            rates = self.rates(self._streak)
            probe_k = max(range(1, self.max_length + 1), key=lambda k: expected_tokens(rates, k) / costs.step_time(k))
            # The probe's expected speed over target-only: near 1, the verdict is the noise's.
            ratio = expected_tokens(rates, probe_k) * costs.step_time(0) / costs.step_time(probe_k)
            opening = not due and ratio >= 1.0 - _OPENING_BAND
        if hopeless or not (due or opening):
            self._chosen = 0
            if hopeless:
                self._reason = str(OFF_HOPELESS)
            elif not measuring:
                self._reason = str(OFF_COSTLY)
            return 0
        # Probe: one step at the best positive length refreshes the acceptance estimate. It counts as
        # made once the drafter drafted (observe): a hybrid's lookup may take the step instead.
        self._chosen = probe_k
        self._reason = str(PROBE.fill(k=self._chosen))
        self._probing = True
        self._opening = opening
        return self._chosen

    def catch_up_pays(self, backlog: int, remaining: int) -> bool:
        """Whether the draft model may read the ``backlog`` tokens it missed before drafting.

        A draft model that has not drafted for a while (or at all: its prompt is
        read lazily) first reads every token it missed. After a long document
        that read costs seconds, once; the draft's plan saves a share of each
        token still to come. The catch-up goes ahead only when the plan's saving
        over the ``remaining`` tokens (an upper bound: a reply may end sooner) is
        larger. Otherwise the model stays off for this step, the lookup competes
        with a plain step alone, and the question comes back on the next step.
        A probe has no plan to weigh (drafting is off because the estimate says
        it does not pay): it reads a backlog that costs a small share of the
        rest of the reply (at the rate the reply is getting, so a lookup that
        already makes it fast is not held up by a long read), since the probe
        is how that estimate gets corrected. Before the draft model has ever
        decoded, the read is priced by :func:`~app.core.adaptive.catch_up.first_read`.
        """
        verify = self.profile.verify
        if not verify.known:
            return True  # nothing is measured yet: the first draft is how
        costs = self.costs()
        # A probe weighs the read against the rest of the reply at the rate it is getting (a lookup may
        # already make it fast).
        rest_s = remaining / max(1.0 / costs.step_time(0), self._achieved_rate())
        if self.profile.draft.known:
            per_token_s = self.profile.draft.catch_up_per_token_s(verify.one_token_s)
            read_s, saved_s = planned_read(costs, self._planned_rate, per_token_s, backlog, remaining)
            if saved_s > read_s or (self._probing and read_s <= _PROBE_CATCH_UP_SHARE * rest_s):
                return True
        elif self.profile.draft_share_prior is None:
            return True  # the draft's cost was not timed at load: its first draft measures it, whatever it reads
        else:
            # The first draft measures the draft's cost, as a probe measures acceptance: a read that
            # costs a small share of the rest of the reply goes ahead even where no saving is in sight.
            read_s, saved_s = first_read(costs, self.profile.draft_share_prior, backlog, remaining, self.max_length)
            if saved_s > read_s or read_s <= _PROBE_CATCH_UP_SHARE * rest_s:
                return True
        self._probing = False
        self._planned_rate = 0.0  # the lookup's rival this step is a plain step
        self._chosen = 0
        self._reason = str(CATCH_UP.fill(backlog=backlog, read_s=read_s, remaining=remaining, saved_s=saved_s))
        return False

    def lookup_length(self, confidences: Sequence[float]) -> int:
        """How many of a lookup's proposals to send, given each one's estimated acceptance (given the ones before).

        The prefix that maximises expected tokens per second under the measured
        verify costs (a lookup costs no model time), if that beats the best
        alternative for this step: a plain step, or the draft model's plan.
        """
        verify = self.profile.verify
        if not confidences:
            return 0
        if not verify.known:
            return trusted_prefix(confidences, _LOOKUP_FLOOR_UNMEASURED)
        held = self._held_costs()
        costs = StepCosts(held.verify_s, 0.0, held.overhead_s)
        rival = 1.0 / costs.step_time(0)
        if self.profile.key[0] != "ngram":  # a hybrid: the draft model's plan is the alternative
            rival = max(rival, self._planned_rate)
        rival *= 1.0 + _SWITCH_MARGIN
        return best_lookup_length(costs, confidences, rival)

    def observe(self, event: StepEvent) -> None:
        """Learn costs and acceptance from the step that just ran."""
        timings = event.timings
        verify = self.profile.verify
        self._recent_tokens = self._recent_tokens * _RECENT_DECAY + event.accepted + 1
        self._recent_s = self._recent_s * _RECENT_DECAY + self._step_seconds(event)
        factor = verify.observe(event.drafted + 1, timings.verify_s)
        if factor != 1.0:
            self.profile.draft.rescale(factor)
        self._step_costs = None  # the estimators learn below: the next step reads the costs again
        probed, self._probing = self._probing, False
        opening, self._opening = self._opening, False
        if event.draft_source == _LOOKUP_SOURCE and self.profile.key[0] != "ngram":
            # A hybrid's lookup step: it says nothing about the draft model's cost or acceptance,
            # and the model's next draft first catches its cache up (not its per-token cost).
            # A probe it took the place of is still due (the next step asks again).
            self._last_requested = 0
            self._streak = False
            return
        requested = event.draft_length
        if requested > 0 and event.drafted > 0:
            self._model_drafts += 1
        if probed and requested > 0 and not opening:
            self._steps_off = 0
            self._probe_interval = min(2 * self._probe_interval, _MAX_PROBE_INTERVAL)
        if requested == 0:
            self.profile.draft.observe(0, timings.total_s - timings.verify_s, verify.one_token_s)
        elif self._last_requested != 0 and event.draft_caught_up <= _USUAL_CATCH_UP:
            # A model drafter's first step after an off stretch also catches its cache up on
            # every token it missed (on its first draft of a reply: the prompt, read lazily);
            # that one-off cost is not the per-token cost.
            decodes = min(event.drafted + 1, requested)
            self.profile.draft.observe(decodes, timings.total_s - timings.verify_s, verify.one_token_s)
        elif event.draft_caught_up > _USUAL_CATCH_UP:
            # ...but it is what the next catch-up will cost, per token read (see catch_up_pays).
            decodes = min(event.drafted + 1, requested)
            self.profile.draft.observe_catch_up(
                event.draft_caught_up, decodes, timings.total_s - timings.verify_s, verify.one_token_s
            )
        self._last_requested = requested
        if event.drafted:
            estimator = self._estimators[self._streak]  # the state this step was chosen in
            estimator.observe(event.drafted, event.accepted)
            self._estimators[not self._streak].forget()
            self.profile.remember(self._streak, self.rates(self._streak))
            if event.draft_confidence:
                self.profile.calibration.observe(event.draft_confidence, event.accepted)
        self._streak = event.drafted > 0 and event.accepted == event.drafted

    # -- what the controller currently believes ----------------------------------

    def costs(self) -> StepCosts:
        """The costs every decision uses: the learned ones, held steady within a dead band (needs them known)."""
        return self._held_costs()

    def learned_costs(self) -> StepCosts:
        """The cost model's view of the learned costs as they stand after the last step."""
        verify = self.profile.verify
        draft = self.profile.draft
        return StepCosts(
            tuple(verify.predict(n) for n in range(1, max(verify.max_n, self.max_length + 1) + 1)),
            draft.per_token_s(verify.one_token_s),
            draft.fixed_s,
        )

    def _held_costs(self) -> StepCosts:
        """The held costs, read once per step: the plan, the lookup's judge and the early stop all ask."""
        if self._step_costs is None or self.profile.hold.held is None:  # a new step, or a pre-flight released it
            self._step_costs = self.profile.hold.costs(self.learned_costs())
        return self._step_costs

    def _step_seconds(self, event: StepEvent) -> float:
        """What the step cost under the held costs (its measured time until costs are known).

        The achieved rate that prices a draft token (:meth:`_required_acceptance`)
        is counted in these seconds: it then follows the tokens a reply gets, as it
        should, and not the few per cent by which one step's time wanders.
        """
        held = self.profile.hold.held
        if held is None:
            return event.timings.total_s
        requested = event.draft_length
        decodes = 0
        if requested and event.draft_source != _LOOKUP_SOURCE:
            decodes = min(event.drafted + 1, requested)
        return held.overhead_s + decodes * held.draft_per_token_s + held.verify(event.drafted + 1)

    def _required_acceptance(self) -> float:
        """The acceptance at which one more draft token pays for itself (0: not known yet).

        One more token costs a draft decode plus the verify batch's growth;
        at the rate R this generation actually achieves, that time is worth
        R * dt tokens, so a token accepted with a lower probability is a loss.
        R is the achieved rate (the tokens the steps got, over what those
        steps cost under the held costs), not the plan's predicted one:
        acceptance is estimated on the drafts the floor let through, so a
        predicted rate would raise the floor, which would raise the estimate,
        and so on.
        """
        if self._chosen == 0 or self._recent_s <= 0.0:
            return 0.0
        costs = self._held_costs()
        extra = costs.draft_per_token_s + costs.verify(self._chosen + 1) - costs.verify(self._chosen)
        return max(0.0, self._achieved_rate() * extra)

    def _achieved_rate(self) -> float:
        """Tokens per second the recent steps got, under the held costs (0 before any step)."""
        return self._recent_tokens / self._recent_s if self._recent_s > 0.0 else 0.0

    @property
    def min_confidence(self) -> float:
        """The draft confidence below which one more draft token does not pay for itself.

        The draft's top probability, calibrated against what verification
        accepted (:class:`ConfidenceCalibration`), gives the token's acceptance;
        the floor is the lowest confidence whose acceptance reaches
        :meth:`_required_acceptance`.
        """
        return self._floor_for(self._required_acceptance())

    def _floor_for(self, required: float) -> float:
        if required <= 0.0:
            return 0.0
        return min(_MAX_CONFIDENCE_FLOOR, self.profile.calibration.floor_for(required))

    def confidence_floor(self) -> DraftStop:
        """The early stop for one draft: :attr:`min_confidence`, and the whole draft's chance of surviving.

        A token deep in a draft adds a token only if every one before it is
        accepted too, so the draft also stops once that chance (the product of
        the calibrated acceptances) falls below the acceptance one more token
        needs. Tokens below the floor are never drafted, so the calibration
        would never learn that some of them are accepted more often than their
        confidence says; every few drafts the bin just under the floor is let
        through, with no survival rule.

        After a fully accepted draft the first token is always drafted: the
        plan chose this step's length from the streak's own acceptance, which
        the calibration (by confidence alone, pooled over all drafts) does not
        see. Letting the stop cut it turned streak steps into plain ones: 6 of
        27 steps of an F16 docstrings edit (issue 31).
        """
        required = self._required_acceptance()
        floor = self._floor_for(required)
        keep = 1 if self._streak else 0
        self._drafts_since_explore += 1
        calibration = self.profile.calibration
        if floor > 0.0 and self._drafts_since_explore >= _EXPLORE_FLOOR_EVERY:
            self._drafts_since_explore = 0
            return DraftStop(max(0.0, floor - 1.0 / calibration.bins), keep=keep)
        if floor <= 0.0:
            return DraftStop(floor, keep=keep)
        # After a miss the plan may draft for the streak a full acceptance opens, at the acceptance it
        # assumed; the per-token rules would price the first token by this step alone.
        first = None if self._streak else min(required, self.rates(False)[0])
        return DraftStop(floor, min(_MAX_CONFIDENCE_FLOOR, required), calibration.acceptance, keep, first)

    def _best(self, costs: StepCosts) -> tuple[int, float]:
        """The length for the coming step and the long-run rate of the plan it belongs to."""
        base = 1.0 / costs.step_time(0)
        plan = plan_with_streaks(costs, self.rates(False), self.rates(True), self.max_length)
        k = plan.k_in_streak if self._streak else plan.k_after_miss
        if plan.tokens_per_s < base * (1.0 + _SWITCH_MARGIN) or k == 0:
            return 0, max(base, plan.tokens_per_s)
        return k, plan.tokens_per_s

    def _hopeless_now(self, costs: StepCosts) -> bool:
        """True when even a draft accepted in full could not repay a probe."""
        return best_case_speedup(costs, self.max_length) < _PROBE_MIN_CEILING
