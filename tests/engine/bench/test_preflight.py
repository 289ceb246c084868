"""Pre-flight on the small SmolLM2 pair: shape of the report, consistency, seeding of the controller."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.sampling import SamplingParams
from app.engine.bench.agreement import MAX_VERIFY
from app.engine.bench.cheaper_draft import (
    CHEAPER_DRAFT_MARGIN,
    estimate_cheaper_draft,
    measure_cheaper_draft,
    q4_0_bytes_ratio,
)
from app.engine.bench.preflight import PreflightReport, apply_to, format_report, run_preflight
from app.engine.gguf.header import read_header
from app.engine.llama.quantize import make_cheaper_draft
from app.engine.llama.session import LoadedPair, PairConfig


@pytest.fixture(scope="module")
def pair(small_pair: tuple[Path, Path]) -> Iterator[LoadedPair]:
    target, draft = small_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=512, n_threads=1)) as loaded:
        yield loaded


@pytest.fixture(scope="module")
def report(pair: LoadedPair) -> PreflightReport:
    stages: list[str] = []
    result = run_preflight(pair, lambda stage, _f: stages.append(stage))
    assert stages[-1] == "done" and "verify cost" in stages
    return result


def test_report_measures_costs_and_acceptance(report: PreflightReport) -> None:
    assert len(report.verify_s) == MAX_VERIFY
    assert all(b >= a > 0 for a, b in zip(report.verify_s, report.verify_s[1:], strict=False))
    assert report.draft_per_token_s > 0
    assert len(report.acceptance) == MAX_VERIFY - 1 and all(0 <= a <= 1 for a in report.acceptance)
    assert report.agreement > 0.3  # two quantisations of one model mostly agree
    # One (confidence, acceptance) pair per scored draft token, for the early-stop calibration.
    assert len(report.calibration) >= 16
    assert all(0 < c <= 1 and a in (0.0, 1.0) for c, a in report.calibration)  # greedy: agree or not
    assert sum(a for _, a in report.calibration) / len(report.calibration) == pytest.approx(report.agreement)


def test_predictions_follow_the_cost_model(report: PreflightReport) -> None:
    assert [p.k for p in report.predictions] == list(range(MAX_VERIFY))
    assert report.predictions[0].speedup == pytest.approx(1.0)
    assert report.best in report.predictions
    assert report.best.k == 0 or report.best.speedup >= 1.05
    assert str(report.recommendation) and ("do not draft" in str(report.recommendation)) == (report.best.k == 0)
    text = format_report(report)
    assert "recommendation:" in text and "verify cost" in text
    assert report.to_dict()["best"]["k"] == report.best.k


def test_apply_to_seeds_the_adaptive_controller(pair: LoadedPair, report: PreflightReport) -> None:
    apply_to(pair, report)
    decoder = pair.decoder(SamplingParams(temperature=0.0), AdaptiveDraftLength())
    policy = decoder.policy
    assert isinstance(policy, AdaptiveDraftLength) and policy.attached
    costs = policy.costs()
    assert costs.verify(1) == pytest.approx(report.verify_s[0], rel=1e-6)
    assert costs.draft_per_token_s == pytest.approx(report.draft_per_token_s, rel=1e-6)
    # The calibration starts from the scored tokens: a well-populated bin leaves its prior.
    calibration = policy.profile.calibration
    by_bin: dict[int, list[float]] = {}
    for confidence, accepted in report.calibration:
        by_bin.setdefault(min(9, int(confidence * 10)), []).append(accepted)
    b, seen = max(by_bin.items(), key=lambda item: len(item[1]))
    observed = sum(seen) / len(seen)
    prior = (b + 0.5) / 10
    assert calibration.acceptance((b + 0.5) / 10) == pytest.approx((sum(seen) + 3 * prior) / (len(seen) + 3))
    assert abs(calibration.acceptance((b + 0.5) / 10) - observed) <= abs(prior - observed)
    # With measured costs the first step is already a decision, not exploration.
    expected = report.best.k > 0
    assert (policy.next_length() > 0) == expected or report.best.speedup < 1.1


def test_apply_to_seeds_the_other_decoding_mode_too(pair: LoadedPair, report: PreflightReport) -> None:
    # A greedy pre-flight also scores its continuations as sampled text (the chat default): a chat that
    # samples starts from that measured acceptance, not from the controller's 0.6 prior.
    seed = report.counterpart
    assert seed is not None and seed.temperature == SamplingParams().temperature > 0
    assert len(seed.acceptance) == MAX_VERIFY - 1 and all(0 <= a <= 1 for a in seed.acceptance)
    assert len(seed.calibration) == len(report.calibration)
    # Sampling scores the overlap sum(min(p_target, q_draft)): fractions, not only agree-or-not.
    assert any(0.0 < a < 1.0 for _, a in seed.calibration)
    assert report.to_dict()["counterpart"]["temperature"] == seed.temperature
    apply_to(pair, report)
    sampled = pair.decoder(SamplingParams(temperature=seed.temperature), AdaptiveDraftLength()).policy
    greedy = pair.decoder(SamplingParams(temperature=0.0), AdaptiveDraftLength()).policy
    assert isinstance(sampled, AdaptiveDraftLength) and isinstance(greedy, AdaptiveDraftLength)
    assert sampled.rates(False)[0] == pytest.approx(seed.acceptance[0])
    assert greedy.rates(False)[0] == pytest.approx(report.acceptance[0])


def test_the_decoder_runs_the_policy_it_is_given(pair: LoadedPair) -> None:
    decoder = pair.decoder(SamplingParams(temperature=0.0), FixedDraftLength(3))
    assert decoder.policy.next_length() == 3
    adaptive = AdaptiveDraftLength(7)
    assert pair.decoder(SamplingParams(), adaptive).policy is adaptive and adaptive.attached


def test_a_cheaper_draft_is_estimated_then_measured(pair: LoadedPair, report: PreflightReport, tmp_path: Path) -> None:
    assert pair.draft is not None
    assert 0.5 < q4_0_bytes_ratio(pair.draft.header) < 0.95  # its Q8_0 embeddings/output layer would shrink
    estimate = estimate_cheaper_draft(pair, report)
    assert estimate is not None and not estimate.measured and "estimated" in estimate.text
    assert 0 < estimate.draft_per_token_s < report.draft_per_token_s
    assert estimate.acceptance == report.acceptance  # assumed unchanged until measured
    assert estimate.current_best == report.best
    path = make_cheaper_draft(pair.draft.path, tmp_path)
    verdict = measure_cheaper_draft(pair, report, path)
    assert verdict.measured and verdict.path == str(path)
    assert verdict.draft_per_token_s > 0 and len(verdict.acceptance) == MAX_VERIFY - 1
    # The loaded draft was timed again beside the copy: both costs come from the same minutes.
    assert verdict.own_draft_per_token_s > 0 and verdict.current_best.k in range(MAX_VERIFY)
    margin = CHEAPER_DRAFT_MARGIN * max(verdict.current_best.speedup, 1.0)
    assert verdict.pays == (verdict.best.k > 0 and verdict.best.speedup > margin)
    assert ("choose" in verdict.text) == verdict.pays and "measured" in verdict.text
    assert json.loads(json.dumps(verdict.to_dict()))["best"]["k"] == verdict.best.k
    assert pair.target.kv_tokens == [] and pair.draft.kv_tokens == []  # left as pre-flight leaves them


def test_no_estimate_for_a_draft_that_already_is_the_cheaper_one(
    pair: LoadedPair, report: PreflightReport, tmp_path: Path
) -> None:
    assert pair.draft is not None
    path = make_cheaper_draft(pair.draft.path, tmp_path)
    assert q4_0_bytes_ratio(read_header(path)) > 0.95
