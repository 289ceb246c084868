"""What the adaptive controller knows about a loaded pair, kept across its generations.

Costs belong to the machine and the pair, not to one reply: a :class:`PairProfile`
holds them for every generation of a loaded pair, with each drafter's typical
acceptance, confidence calibration and held costs; :meth:`PairProfile.for_drafter`
gives one generation its :class:`DrafterProfile` view. :meth:`PairProfile.state`
and :meth:`PairProfile.restore` are its one serialisation: a front end keeps it
on disk per pair and machine (:mod:`app.engine.llama.profile_store`), so that
the first reply after a restart is not the one that learns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.adaptive.cost_model import StepCosts
from app.core.adaptive.estimators import (
    ConfidenceCalibration,
    DraftCostEstimator,
    VerifyCostEstimator,
    checked_numbers,
)
from app.core.adaptive.held_costs import CostHold

PROFILE_VERSION = 1
"""The layout of :meth:`PairProfile.state`; a stored state of another version is not read."""

# A restored figure counts as at most this many observations (a pre-flight seed counts as 3): a
# machine that got slower or busier since corrects it within a few steps.
RESTORED_WEIGHT = 3.0
# A restored calibration bin keeps at most this many tokens' evidence.
RESTORED_TRIALS = 20.0
# No drafter kind or acceptance table is longer than this (a stored file is data, checked as such).
_MAX_POSITIONS = 64


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
            return DrafterProfile(
                verify=self.verify,
                draft=draft,
                acceptance={},
                memory=None,
                key=key,
                calibration=calibration,
                hold=hold,
                draft_share_prior=share,
            )
        known = dict(self.acceptance.get(key, {}))
        return DrafterProfile(
            verify=self.verify,
            draft=draft,
            acceptance=known,
            memory=self.acceptance,
            key=key,
            calibration=calibration,
            hold=hold,
            draft_share_prior=share,
        )

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
        self.seed_acceptance(kind, acceptance, greedy, calibration)

    def seed_acceptance(
        self,
        kind: str,
        acceptance: Sequence[float] | None,
        greedy: bool,
        calibration: Sequence[tuple[float, float]] = (),
    ) -> None:
        """Seed one decoding mode's acceptance and confidence calibration (pre-flight scores both modes)."""
        if acceptance:
            self.acceptance[(kind, greedy)] = {False: list(acceptance), True: list(acceptance)}
        if calibration:
            self.calibrations.setdefault((kind, greedy), ConfidenceCalibration()).seed(calibration)

    def state(self) -> dict[str, Any]:
        """Everything learned, as JSON-ready values: costs, acceptance and calibration (not the held copies)."""
        return {
            "version": PROFILE_VERSION,
            "verify": self.verify.state(),
            "drafts": {kind: draft.state() for kind, draft in self.drafts.items()},
            "acceptance": [
                {"kind": kind, "greedy": greedy, "after_full_draft": streak, "rates": list(rates)}
                for (kind, greedy), table in self.acceptance.items()
                for streak, rates in table.items()
            ],
            "calibrations": [
                {"kind": kind, "greedy": greedy, **calibration.state()}
                for (kind, greedy), calibration in self.calibrations.items()
            ],
        }

    @classmethod
    def restore(cls, state: Any) -> PairProfile:
        """A profile that starts from a stored :meth:`state` (each figure weighing little: see RESTORED_WEIGHT).

        Raises ValueError, KeyError or TypeError for anything that is not a
        state this version wrote: a stored file is data, and a damaged one is
        dropped by its caller, never half read.
        """
        if not isinstance(state, dict) or state.get("version") != PROFILE_VERSION:
            raise ValueError("not a controller profile of this version")
        profile = cls()
        verify, drafts = _table(state["verify"]), _table(state["drafts"])
        profile.verify.restore(verify, RESTORED_WEIGHT)
        for kind, draft in drafts.items():
            profile.drafts.setdefault(_kind(kind), DraftCostEstimator()).restore(_table(draft), RESTORED_WEIGHT)
        for row in _rows(state["acceptance"]):
            rates = checked_numbers(row["rates"])
            if not 0 < len(rates) <= _MAX_POSITIONS or not all(0.0 <= r <= 1.0 for r in rates):
                raise ValueError("acceptance rates must be 1-64 figures between 0 and 1")
            key = (_kind(row["kind"]), _flag(row["greedy"]))
            profile.acceptance.setdefault(key, {})[_flag(row["after_full_draft"])] = rates
        for row in _rows(state["calibrations"]):
            calibration = ConfidenceCalibration()
            calibration.restore(row, RESTORED_TRIALS)
            profile.calibrations[(_kind(row["kind"]), _flag(row["greedy"]))] = calibration
        return profile

    def seed_verify(self, verify_s: Sequence[float]) -> None:
        """Seed the target's verify costs (pre-flight); every drafter decides on them afresh."""
        self.verify.seed(verify_s)
        for hold in self.holds.values():
            hold.release()  # a fresh measurement is not noise: the next decision takes it


def _kind(value: object) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= _MAX_POSITIONS:
        raise ValueError(f"not a drafter kind: {value!r:.40}")
    return value


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"not a true/false flag: {value!r:.40}")
    return value


def _table(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected a table, got {type(value).__name__}")
    return value


def _rows(value: object) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(row, dict) for row in value):
        raise ValueError("expected a list of tables")
    return value
