"""A pair's learned profile through its one serialisation: what comes back, how little it weighs, what is refused."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.adaptive.profile import PROFILE_VERSION, RESTORED_TRIALS, PairProfile
from tests.core.adaptive.policy_runs import MEMORY_BOUND, learned_profile, run_policy


def _round_trip(profile: PairProfile) -> PairProfile:
    return PairProfile.restore(json.loads(json.dumps(profile.state())))


def test_what_a_pair_learned_comes_back_the_same() -> None:
    learned = learned_profile()
    restored = _round_trip(learned)
    for n in (1, 2, 5, 9):
        assert restored.verify.predict(n) == pytest.approx(learned.verify.predict(n))
    assert restored.verify.one_token_measured == learned.verify.one_token_measured
    one = learned.verify.one_token_s
    assert restored.drafts["model"].per_token_s(one) == pytest.approx(learned.drafts["model"].per_token_s(one))
    assert restored.drafts["model"].fixed_s == pytest.approx(learned.drafts["model"].fixed_s)
    assert restored.acceptance == learned.acceptance and restored.acceptance[("model", True)]
    assert restored.calibrations[("model", True)].acceptance(0.95) == pytest.approx(
        learned.calibrations[("model", True)].acceptance(0.95), abs=0.05
    )
    # A restored profile's next reply decides at once: no step spent measuring what a draft costs.
    policy = AdaptiveDraftLength(12, restored.for_drafter("model", True))
    policy.next_length()
    assert policy.reason and "measuring what a draft costs" not in policy.reason
    fresh = AdaptiveDraftLength(12, PairProfile().for_drafter("model", True))
    fresh.next_length()
    assert "measuring what a draft costs" in fresh.reason


def test_a_restored_cost_weighs_little_so_a_slower_machine_corrects_it_within_a_few_steps() -> None:
    restored = _round_trip(learned_profile())
    before = restored.verify.one_token_s
    for _ in range(4):
        restored.verify.observe(1, before * 1.4)  # the machine got busier since the costs were kept
    assert restored.verify.one_token_s > before * 1.25
    calibration = restored.calibrations[("model", True)].state()
    assert max(calibration["trials"]) <= RESTORED_TRIALS + 1e-9


def test_an_empty_profile_round_trips_to_an_empty_one() -> None:
    restored = _round_trip(PairProfile())
    assert not restored.verify.known and restored.drafts == {} and restored.acceptance == {}


def _broken(change: Any) -> dict[str, Any]:
    state = json.loads(json.dumps(learned_profile().state()))
    change(state)
    return state


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.update(version=PROFILE_VERSION + 1),
        lambda s: s.pop("verify"),
        lambda s: s["verify"].update(one_token=[-0.1, 3.0]),
        lambda s: s["verify"].update(one_token=[math.nan, 3.0]),
        lambda s: s["verify"].update(one_token=["0.07", 3.0]),
        lambda s: s["verify"].update(one_token_guessed="no"),
        lambda s: s["verify"]["ratios"].update({"500": [1.0, 1.0]}),
        lambda s: s["drafts"]["model"].update(per_token=[0.2]),
        lambda s: s["acceptance"][0].update(rates=[1.5]),
        lambda s: s["acceptance"][0].update(rates=[0.5] * 1000),
        lambda s: s["acceptance"][0].update(greedy=1),
        lambda s: s["calibrations"][0].update(hits=[5.0] * 10, trials=[1.0] * 10),
        lambda s: s["calibrations"][0].update(trials=[1.0] * 3),
        lambda s: s["drafts"].update({"x" * 500: s["drafts"]["model"]}),
        lambda s: s.update(drafts=[1, 2]),
        lambda s: s.update(verify=[0.07]),
        lambda s: s["drafts"].update(model="fast"),
        lambda s: s.update(acceptance={"kind": "model"}),
        lambda s: s.update(calibrations=["bins"]),
    ],
)
def test_a_damaged_or_foreign_state_is_refused_whole(change: Any) -> None:
    with pytest.raises((ValueError, KeyError, TypeError)):
        PairProfile.restore(_broken(change))


def test_a_state_that_is_not_a_mapping_is_refused() -> None:
    for junk in (None, [], "profile", 3):
        with pytest.raises(ValueError):
            PairProfile.restore(junk)


def test_a_restored_profile_drafts_from_its_first_step_as_the_learned_one_does() -> None:
    learned = learned_profile()
    restored = _round_trip(learned)
    fresh = run_policy(AdaptiveDraftLength(12, PairProfile().for_drafter("model", True)), MEMORY_BOUND, 0.8, 40)
    again = run_policy(AdaptiveDraftLength(12, restored.for_drafter("model", True)), MEMORY_BOUND, 0.8, 40)
    # A fresh pair spends its first draft measuring at the exploration length; the restored one plans at once.
    assert np.median(again[:10]) >= 3 and min(again[:10]) > 0
    assert abs(np.median(again[-20:]) - np.median(fresh[-20:])) <= 2
