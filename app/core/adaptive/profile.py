"""What the adaptive controller knows about a loaded pair, kept across its generations.

Costs belong to the machine and the pair, not to one reply: a :class:`PairProfile`
holds them for every generation of a loaded pair, with each drafter's typical
acceptance, confidence calibration and held costs; :meth:`PairProfile.for_drafter`
gives one generation its :class:`DrafterProfile` view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.core.adaptive.cost_model import StepCosts
from app.core.adaptive.estimators import ConfidenceCalibration, DraftCostEstimator, VerifyCostEstimator
from app.core.adaptive.held_costs import CostHold


@dataclass(slots=True)
class DrafterProfile:
    """What is known about one drafter on one pair: shared costs, typical acceptance.

    ``acceptance`` maps "after a fully accepted draft" (True) or not (False)
    to the latest estimates; a new generation starts from them as its priors,
    and ``memory`` (the pair's table, when there is one) keeps them.
    """

    verify: VerifyCostEstimator
    draft: DraftCostEstimator
    acceptance: dict[bool, list[float]] = field(default_factory=dict)
    memory: dict[tuple[str, bool], dict[bool, list[float]]] | None = None
    key: tuple[str, bool] = ("model", True)
    calibration: ConfidenceCalibration = field(default_factory=ConfidenceCalibration)
    hold: CostHold = field(default_factory=CostHold)
    # One draft decode's cost as a share of one target token, timed at load, for the draft's first read
    # before its cost in a reply is measured (None: not timed). See PairProfile.draft_share_prior.
    draft_share_prior: float | None = None

    def remember(self, streak: bool, rates: Sequence[float]) -> None:
        """Keep the latest acceptance estimates for the next generation."""
        self.acceptance[streak] = list(rates)
        if self.memory is not None:
            self.memory[self.key] = self.acceptance


@dataclass(slots=True)
class PairProfile:
    """Everything the adaptive controller learns about a loaded pair, kept across generations."""

    verify: VerifyCostEstimator = field(default_factory=VerifyCostEstimator)
    drafts: dict[str, DraftCostEstimator] = field(default_factory=dict)
    acceptance: dict[tuple[str, bool], dict[bool, list[float]]] = field(default_factory=dict)
    calibrations: dict[tuple[str, bool], ConfidenceCalibration] = field(default_factory=dict)
    holds: dict[str, CostHold] = field(default_factory=dict)
    # One draft decode over one target decode, timed when the pair loads (0.68 for the Q4_K_M demo pair
    # on a 2-core CPU). It only prices the first catch-up, before the draft has decoded in a reply. Their
    # weight bytes were tried as a guess and failed: the SmolLM2 test pair's draft has 0.93 of its
    # target's bytes but decodes in 0.63 of its time.
    draft_share_prior: float | None = None

    def for_drafter(self, kind: str, greedy: bool, remember: bool = True) -> DrafterProfile:
        """The view one generation uses; acceptance is kept apart for greedy and sampled decoding.

        ``remember=False`` starts every generation from the default prior: prompt
        lookup's acceptance says more about one prompt than about the pair.
        """
        draft = self.drafts.setdefault(kind, DraftCostEstimator())
        key = (kind, greedy)
        calibration = self.calibrations.setdefault(key, ConfidenceCalibration())
        hold = self.holds.setdefault(kind, CostHold())  # the costs are the drafter's, greedy or not
        share = self.draft_share_prior
        if not remember:
            return DrafterProfile(self.verify, draft, {}, None, key, calibration, hold, share)
        known = dict(self.acceptance.get(key, {}))
        return DrafterProfile(self.verify, draft, known, self.acceptance, key, calibration, hold, share)

    def seed(
        self,
        kind: str,
        costs: StepCosts,
        acceptance: Sequence[float] | None = None,
        greedy: bool = True,
        calibration: Sequence[tuple[float, float]] = (),
    ) -> None:
        """Seed with pre-flight measurements (``calibration``: the draft's confidence and acceptance per token)."""
        self.seed_verify(costs.verify_s)
        draft = self.drafts.setdefault(kind, DraftCostEstimator())
        draft.seed(costs.draft_per_token_s, costs.verify_s[0], costs.overhead_s)
        if acceptance:
            self.acceptance[(kind, greedy)] = {False: list(acceptance), True: list(acceptance)}
        if calibration:
            self.calibrations.setdefault((kind, greedy), ConfidenceCalibration()).seed(calibration)

    def seed_verify(self, verify_s: Sequence[float]) -> None:
        """Seed the target's verify costs (pre-flight); every drafter decides on them afresh."""
        self.verify.seed(verify_s)
        for hold in self.holds.values():
            hold.release()  # a fresh measurement is not noise: the next decision takes it
