"""Benchmark arithmetic: per-run records to summaries and targets, checked against hand-computed numbers.

Every expected figure is worked out in the comments next to it, with numbers
chosen so that the plausible wrong formulas (mean instead of median, ratio of
medians instead of median of paired ratios, mean of per-run rates instead of
pooled rates) give a different answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.core.bench.report import render_markdown
from app.core.bench.stats import (
    ALL_CATEGORIES,
    BASELINE,
    DivergenceCheck,
    RunRecord,
    Summary,
    TargetCheck,
    baselines,
    check_targets,
    is_peer,
    matched_tokens,
    spreads,
    summarize,
)
from tests.core.bench.run_records import run

DRAFT = "draft K=4"
MIB = 2**20


def pick(summaries: list[Summary], category: str, config: str, **keys: Any) -> Summary:
    """The one summary for ``category`` and ``config`` (and any other field given)."""
    found = [
        s
        for s in summaries
        if s.category == category and s.config == config and all(getattr(s, k) == v for k, v in keys.items())
    ]
    assert len(found) == 1, found
    return found[0]


# -- tokens/s and paired speedup ----------------------------------------------------------


def test_speedup_is_the_median_of_paired_ratios() -> None:
    # One prompt, three repeats; the machine drifts between repeats.
    #   repeat         0     1     2
    #   target tok/s  10    20     5   (100 tokens in 10 s, 5 s, 20 s)
    #   draft tok/s   20    50    20   (100 tokens in 5 s, 2 s, 5 s)
    #   ratio        2.0   2.5   4.0
    # median of ratios 2.5; mean of ratios 2.83; ratio of medians 20 / 10 = 2.0.
    records = [
        run(BASELINE, "p1", 0, emitted=100, generation_s=10.0),
        run(BASELINE, "p1", 1, emitted=100, generation_s=5.0),
        run(BASELINE, "p1", 2, emitted=100, generation_s=20.0),
        run(DRAFT, "p1", 0, emitted=100, generation_s=5.0),
        run(DRAFT, "p1", 1, emitted=100, generation_s=2.0),
        run(DRAFT, "p1", 2, emitted=100, generation_s=5.0),
    ]
    summaries = summarize(records)
    draft = pick(summaries, "code", DRAFT)
    assert draft.speedup == pytest.approx(2.5)
    assert draft.speedup != pytest.approx(draft.tokens_per_s / pick(summaries, "code", BASELINE).tokens_per_s)
    assert draft.speedup_range == pytest.approx((2.0, 4.0))
    # tokens/s is the median over repeats too: median(20, 50, 20) = 20, not the mean 30.
    assert draft.tokens_per_s == pytest.approx(20.0)
    assert (draft.repeats, draft.prompts) == (3, 1)
    target = pick(summaries, "code", BASELINE)
    assert target.tokens_per_s == pytest.approx(10.0)  # median(10, 20, 5)
    assert target.speedup == pytest.approx(1.0)  # paired with itself
    assert target.speedup_range == pytest.approx((1.0, 1.0))


def two_categories() -> list[RunRecord]:
    """Two prompts in two categories, two repeats, target-only and one drafter."""
    return [
        run(BASELINE, "p1", 0, emitted=20, generation_s=1.0, category="code"),
        run(BASELINE, "p2", 0, emitted=20, generation_s=4.0, category="chat"),
        run(DRAFT, "p1", 0, emitted=20, generation_s=0.5, category="code"),
        run(DRAFT, "p2", 0, emitted=20, generation_s=1.5, category="chat"),
        run(BASELINE, "p1", 1, emitted=20, generation_s=1.0, category="code"),
        run(BASELINE, "p2", 1, emitted=20, generation_s=3.0, category="chat"),
        run(DRAFT, "p1", 1, emitted=20, generation_s=1.0, category="code"),
        run(DRAFT, "p2", 1, emitted=20, generation_s=1.0, category="chat"),
    ]


def test_all_category_pools_the_prompts_of_a_repeat() -> None:
    summaries = summarize(two_categories())
    # Repeat 0: target pools 40 tokens over 1 + 4 s = 8 tok/s (the mean of its per-prompt
    # rates 20 and 5 would be 12.5); the drafter 40 over 0.5 + 1.5 s = 20 tok/s; ratio 2.5.
    # Repeat 1: target 40 / (1 + 3) = 10, drafter 40 / (1 + 1) = 20; ratio 2.0.
    draft = pick(summaries, ALL_CATEGORIES, DRAFT)
    assert draft.tokens_per_s == pytest.approx(20.0)  # median(20, 20)
    assert draft.speedup == pytest.approx(2.25)  # median(2.5, 2.0)
    assert draft.speedup_range == pytest.approx((2.0, 2.5))
    assert (draft.repeats, draft.prompts) == (2, 2)
    assert pick(summaries, ALL_CATEGORIES, BASELINE).tokens_per_s == pytest.approx(9.0)  # median(8, 10)


def test_each_category_pairs_only_its_own_prompts() -> None:
    summaries = summarize(two_categories())
    # code (p1): target 20, 20 tok/s; drafter 40, 20 tok/s; ratios 2.0, 1.0.
    code = pick(summaries, "code", DRAFT)
    assert code.tokens_per_s == pytest.approx(30.0)
    assert code.speedup == pytest.approx(1.5)
    assert code.prompts == 1
    # chat (p2): target 5, 6.67 tok/s; drafter 13.33, 20 tok/s; ratios 8/3, 3.0.
    chat = pick(summaries, "chat", DRAFT)
    assert chat.tokens_per_s == pytest.approx(50 / 3)
    assert chat.speedup == pytest.approx((8 / 3 + 3.0) / 2)
    assert chat.speedup_range == pytest.approx((8 / 3, 3.0))


def test_summaries_are_ordered_by_regime_temperature_then_first_appearance() -> None:
    # Categories and configurations keep the order of the records (the report's column
    # order), with "all" last; regimes and temperatures are sorted.
    records = [
        run(DRAFT, "p1", 0, regime="q4", temperature=0.7, category="zeta"),
        run(BASELINE, "p1", 0, regime="q4", temperature=0.0, category="zeta"),
        run(DRAFT, "p2", 0, regime="q4", temperature=0.0, category="alpha"),
        run(BASELINE, "p1", 0, regime="f16", temperature=0.0, category="zeta"),
    ]
    order = [(s.regime, s.temperature, s.category, s.config) for s in summarize(records)]
    assert order == [
        ("f16", 0.0, "zeta", BASELINE),
        ("f16", 0.0, ALL_CATEGORIES, BASELINE),
        ("q4", 0.0, "zeta", BASELINE),
        ("q4", 0.0, "alpha", DRAFT),
        ("q4", 0.0, ALL_CATEGORIES, DRAFT),
        ("q4", 0.0, ALL_CATEGORIES, BASELINE),
        ("q4", 0.7, "zeta", DRAFT),
        ("q4", 0.7, ALL_CATEGORIES, DRAFT),
    ]


# -- missing baselines --------------------------------------------------------------------


def test_a_repeat_with_a_missing_baseline_gives_no_ratio() -> None:
    # Target-only ran p1 and p2 in repeat 0, only p1 in repeat 1, nothing in repeat 2.
    # Repeat 0: target 20 tokens / 2 s = 10, drafter 20 / 1 s = 20: ratio 2.0.
    # Repeat 1 is dropped whole: pairing only p1 would give 40 / 10 = 4.0 and a speedup of 3.0.
    records = [
        run(BASELINE, "p1", 0),
        run(BASELINE, "p2", 0),
        run(BASELINE, "p1", 1),
        run(DRAFT, "p1", 0, generation_s=0.5),
        run(DRAFT, "p2", 0, generation_s=0.5),
        run(DRAFT, "p1", 1, generation_s=0.25, tokens=(0, 1, 2, 3, 4, 9, 9, 9, 9, 9)),
        run(DRAFT, "p2", 1, generation_s=0.25),
        run(DRAFT, "p1", 2, generation_s=0.2, tokens=(9,) * 10),
        run(DRAFT, "p2", 2, generation_s=0.2),
    ]
    draft = pick(summarize(records), "code", DRAFT)
    assert draft.speedup == pytest.approx(2.0)
    assert draft.speedup_range == pytest.approx((2.0, 2.0))
    # tokens/s still uses every repeat: median(20, 40, 50).
    assert (draft.repeats, draft.tokens_per_s) == (3, pytest.approx(40.0))
    # Greedy match counts only runs that have a reference: repeat 0 (10 + 10 of 20) and
    # repeat 1's p1 (5 of 10); repeat 2's p1, wholly different, has none to compare with.
    assert draft.match_rate == pytest.approx(25 / 30)
    assert draft.divergences == 1


def test_without_a_matching_baseline_there_is_no_speedup_or_match_rate() -> None:
    # Baselines pair only within the same regime and temperature.
    records = [
        run(BASELINE, "p1", 0, regime="q4", temperature=0.7),
        run(BASELINE, "p1", 0, regime="f16", temperature=0.0),
        run(DRAFT, "p1", 0, regime="q4", temperature=0.0, generation_s=0.5, tokens=(9,) * 10),
    ]
    draft = pick(summarize(records), "code", DRAFT, regime="q4", temperature=0.0)
    assert (draft.speedup, draft.speedup_range) == (0.0, (0.0, 0.0))
    assert draft.tokens_per_s == pytest.approx(20.0)
    assert (draft.match_rate, draft.divergences) == (None, 0)


def test_a_baseline_that_took_no_time_gives_no_ratio() -> None:
    records = [run(BASELINE, "p1", 0, generation_s=0.0), run(DRAFT, "p1", 0)]
    summaries = summarize(records)
    assert pick(summaries, "code", BASELINE).tokens_per_s == 0.0
    assert pick(summaries, "code", DRAFT).speedup == 0.0


def test_baselines_are_keyed_by_regime_prompt_temperature_and_repeat() -> None:
    target = run(BASELINE, "p1", 3, regime="f16", temperature=0.5)
    assert baselines([target, run(DRAFT, "p1", 3, regime="f16", temperature=0.5)]) == {("f16", "p1", 0.5, 3): target}


# -- greedy match rate and divergences ----------------------------------------------------


def divergence_check(prompt_id: str, repeat: int, explained: bool, config: str = DRAFT) -> DivergenceCheck:
    """A near-tie verdict; only the key and ``explained`` matter to the summary."""
    return DivergenceCheck("q4", config, prompt_id, repeat, 2, 0.1, (3, 9), (3, 9), explained)


def greedy_records() -> list[RunRecord]:
    """Four prompts: a substitution, an exact match, a run that ends early and one that runs on."""
    reference = (1, 2, 3, 4)
    return [
        run(BASELINE, "p1", 0, tokens=reference),
        run(BASELINE, "p2", 0, tokens=(5, 6, 7, 8, 9, 10)),
        run(BASELINE, "p3", 0, tokens=reference),
        run(BASELINE, "p4", 0, tokens=reference),
        run(DRAFT, "p1", 0, tokens=(1, 2, 9, 4)),  # 2 of 4 before the divergence
        run(DRAFT, "p2", 0, tokens=(5, 6, 7, 8, 9, 10)),  # 6 of 6
        run(DRAFT, "p3", 0, tokens=(1, 2, 3)),  # 3 of 4: stopping early is a divergence
        run(DRAFT, "p4", 0, tokens=(1, 2, 3, 4, 5)),  # 4 of 5: so is running on
    ]


GREEDY_CHECKS = (
    divergence_check("p1", 0, explained=True),
    divergence_check("p3", 0, explained=False),
    # None of these may count: p2 did not diverge, and the other two belong to another
    # repeat and another configuration.
    divergence_check("p2", 0, explained=True),
    divergence_check("p4", 1, explained=True),
    divergence_check("p4", 0, explained=True, config="ngram n=3"),
)


def test_greedy_match_rate_pools_tokens_and_counts_near_ties() -> None:
    summaries = summarize(greedy_records(), GREEDY_CHECKS)
    for category in ("code", ALL_CATEGORIES):
        draft = pick(summaries, category, DRAFT)
        # (2 + 6 + 3 + 4) / (4 + 6 + 4 + 5); the mean of per-run rates would be 0.7625.
        assert draft.match_rate == pytest.approx(15 / 19)
        assert (draft.divergences, draft.explained) == (3, 1)
        target = pick(summaries, category, BASELINE)
        assert (target.match_rate, target.divergences, target.explained) == (None, 0, 0)
    # The "all" rows repeat the categories' divergences, so the target check skips them.
    assert check_targets(summaries)[-1] == TargetCheck(
        "every greedy divergence of Tandem's is a near-tie", "1/3 explained", False
    )


def test_sampled_runs_have_no_match_rate() -> None:
    records = [
        run(BASELINE, "p1", 0, temperature=0.7, tokens=(1, 2, 3)),
        run(DRAFT, "p1", 0, temperature=0.7, tokens=(1, 9, 9)),
    ]
    draft = pick(summarize(records), "code", DRAFT)
    assert (draft.match_rate, draft.divergences) == (None, 0)


# -- acceptance ---------------------------------------------------------------------------


def test_acceptance_and_per_position_acceptance_pool_every_step() -> None:
    # Three runs whose drafts reach 3, 1 and 5 positions:
    #   run  steps drafted accepted emitted drafting  overhead  hits        attempts
    #   a      4     8       6       10       4        4 ms     3 2 1       4 3 1
    #   b      6     2       0        6       2        2 ms     0           2
    #   c      2     6       5        7       2        6 ms     2 2 1 0 0   2 2 1 1 0
    records = [
        run(DRAFT, "p1", 0, emitted=10, steps=4, drafted=8, accepted=6, drafting_steps=4, overhead_s=0.004,
            position_hits=(3, 2, 1), position_attempts=(4, 3, 1), peak_rss_bytes=100 * MIB),
        run(DRAFT, "p2", 0, emitted=6, steps=6, drafted=2, accepted=0, drafting_steps=2, overhead_s=0.002,
            position_hits=(0,), position_attempts=(2,), peak_rss_bytes=300 * MIB),
        run(DRAFT, "p1", 1, emitted=7, steps=2, drafted=6, accepted=5, drafting_steps=2, overhead_s=0.006,
            position_hits=(2, 2, 1, 0, 0), position_attempts=(2, 2, 1, 1, 0), peak_rss_bytes=200 * MIB),
    ]  # fmt: skip
    draft = pick(summarize(records), "code", DRAFT)
    # 11 accepted of 16 drafted; the mean of per-run rates would be (0.75 + 0 + 0.83) / 3 = 0.53.
    assert draft.acceptance_rate == pytest.approx(11 / 16)
    assert draft.mean_accepted_length == pytest.approx(11 / 12)
    assert draft.tokens_per_step == pytest.approx(23 / 12)
    assert draft.drafting_share == pytest.approx(8 / 12)
    assert draft.overhead_ms_per_step == pytest.approx(1.0)  # 12 ms over 12 steps
    assert draft.peak_rss_mb == pytest.approx(300.0)  # the largest, not the sum
    # Position 0: 5 hits of 8 tries (the per-run mean would be 0.58); 1: 4 of 5; 2: 2 of 2;
    # 3: 0 of 1; 4: never tried, reported as 0 rather than dropped.
    assert draft.per_position_acceptance == pytest.approx([5 / 8, 4 / 5, 1.0, 0.0, 0.0])


def test_a_configuration_that_never_drafts_reports_zeros() -> None:
    draft = pick(summarize([run(DRAFT, "p1", 0, steps=0, generation_s=0.0, emitted=0)]), "code", DRAFT)
    assert draft.tokens_per_s == 0.0
    assert (draft.acceptance_rate, draft.mean_accepted_length, draft.tokens_per_step) == (0.0, 0.0, 0.0)
    assert (draft.drafting_share, draft.overhead_ms_per_step) == (0.0, 0.0)
    assert draft.per_position_acceptance == []


# -- empty input and the JSON form --------------------------------------------------------


def test_no_records_no_summaries() -> None:
    assert summarize([]) == []
    assert summarize([], GREEDY_CHECKS) == []


def test_summary_round_trips_through_json() -> None:
    draft = pick(summarize(two_categories()), ALL_CATEGORIES, DRAFT)
    loaded = json.loads(json.dumps(draft.to_dict()))
    assert loaded["speedup"] == pytest.approx(2.25)
    assert loaded["speedup_range"] == pytest.approx([2.0, 2.5])  # report.py unpacks it as low, high
    assert loaded["match_rate"] == 1.0


# -- the targets ------------------------------------------------------------------


def row(
    regime: str,
    category: str,
    config: str,
    speedup: float,
    *,
    temperature: float = 0.0,
    divergences: int = 0,
    explained: int = 0,
) -> Summary:
    """A summary with only what check_targets reads filled in."""
    return Summary(
        regime=regime,
        temperature=temperature,
        category=category,
        config=config,
        repeats=1,
        prompts=1,
        tokens_per_s=10.0,
        speedup=speedup,
        speedup_range=(speedup, speedup),
        acceptance_rate=0.0,
        mean_accepted_length=0.0,
        tokens_per_step=1.0,
        per_position_acceptance=[],
        drafting_share=0.0,
        overhead_ms_per_step=0.0,
        peak_rss_mb=0.0,
        divergences=divergences,
        explained=explained,
    )


def test_targets_on_hand_made_summaries() -> None:
    summaries = [
        row("f16", "code-edit", BASELINE, 1.0),
        row("f16", "code-edit", "hybrid adaptive", 2.3, divergences=2, explained=1),  # the default is checked
        row("f16", "code-edit", "draft adaptive", 1.5),
        row("f16", "code-edit", "llama-server K=4", 1.9),
        row("f16", "code-edit", "llama-server K=8", 2.0),  # llama.cpp's best: 2.3 / 2.0 = 1.15, exactly met
        row("f16", "code-write", "draft K=4", 2.0),
        row("f16", "code-write", "draft adaptive", 1.79),  # without the hybrid, the draft model alone
        row("f16", "code-write", "llama-server K=8", 1.6),
        row("f16", ALL_CATEGORIES, "hybrid adaptive", 5.0),
        # Sampled runs are ignored however good they look.
        row("f16", "code-write", "draft adaptive", 9.0, temperature=0.7, divergences=5),
        row("q4", "code-write", "draft K=4", 1.0),
        row("q4", "code-write", "draft adaptive", 0.97),  # exactly at 0.97x: met
        row("q4", "code-edit", "hybrid adaptive", 0.96),
        row("q4", "code-edit", "ngram adaptive", 1.15, divergences=1, explained=1),  # exactly at 1.15x: met
        row("q4", "code-edit", "llama-server ngram-simple", 1.05),
        row("q4", "code-edit", "llama-server ngram-mod", 1.15),  # equal is not above
        row("q4", "prose", "ngram K=4", 0.5),  # only the adaptive lookup is held to the bars
        row("q4", ALL_CATEGORIES, "draft adaptive", 0.5, divergences=3),  # "all" repeats the categories
    ]
    assert check_targets(summaries) == [
        TargetCheck("f16 code-edit: hybrid adaptive >= 2.0x", "2.30x", True),
        TargetCheck(
            "f16 code-edit: hybrid adaptive >= 1.15x llama-server's best draft length",
            "1.15x (2.30x vs llama-server K=8 2.00x)",
            True,
        ),
        TargetCheck("f16 code-write: draft adaptive >= 1.8x", "1.79x", False),
        TargetCheck(
            "f16 code-write: draft adaptive >= 1.15x llama-server's best draft length",
            "1.12x (1.79x vs llama-server K=8 1.60x)",
            False,
        ),
        TargetCheck("q4 code-write: draft adaptive >= 0.97x", "0.97x", True),
        TargetCheck("q4 code-edit: hybrid adaptive >= 0.97x", "0.96x", False),
        TargetCheck("q4 code-edit: ngram adaptive >= 0.97x", "1.15x", True),
        TargetCheck("q4 code-edit: ngram adaptive >= 1.15x", "1.15x", True),
        TargetCheck(
            "q4 code-edit: ngram adaptive above llama.cpp's best n-gram mode",
            "1.15x vs llama-server ngram-mod 1.15x",
            False,
        ),
        TargetCheck(
            "f16 code-write: adaptive within 5% of the best fixed length", "adaptive 1.79x vs draft K=4 2.00x", False
        ),
        TargetCheck(
            "q4 code-write: adaptive within 5% of the best fixed length", "adaptive 0.97x vs draft K=4 1.00x", True
        ),
        # f16 code-edit's 2 (1 explained) and q4 code-edit's 1 (1 explained).
        TargetCheck("every greedy divergence of Tandem's is a near-tie", "2/3 explained", False),
    ]


def test_the_cheaper_draft_is_held_to_the_same_bars_against_llama_cpp_with_the_same_file() -> None:
    cheaper = " (cheaper draft)"
    summaries = [
        row("f16", "code-edit", BASELINE, 1.0),
        row("f16", "code-edit", "hybrid adaptive", 1.8),
        row("f16", "code-edit", "hybrid adaptive" + cheaper, 2.4),
        row("f16", "code-edit", "llama-server K=4", 1.5),
        row("f16", "code-edit", "llama-server K=4" + cheaper, 2.2),  # not the default draft's peer
        row("f16", "code-edit", "llama-server K=8" + cheaper, 2.0),
        row("q4", "code-edit", "hybrid adaptive" + cheaper, 0.96),  # an adaptive configuration like the others
    ]
    assert check_targets(summaries)[:5] == [
        TargetCheck("f16 code-edit: hybrid adaptive >= 2.0x", "1.80x", False),
        TargetCheck(
            "f16 code-edit: hybrid adaptive >= 1.15x llama-server's best draft length",
            "1.20x (1.80x vs llama-server K=4 1.50x)",
            True,
        ),
        TargetCheck("f16 code-edit: hybrid adaptive (cheaper draft) >= 2.0x", "2.40x", True),
        TargetCheck(
            "f16 code-edit: hybrid adaptive (cheaper draft) >= 1.15x llama-server's best draft length",
            "1.09x (2.40x vs llama-server K=4 (cheaper draft) 2.20x)",
            False,
        ),
        TargetCheck("q4 code-edit: hybrid adaptive (cheaper draft) >= 0.97x", "0.96x", False),
    ]


def test_targets_without_data() -> None:
    # This pins what the code does: a target with no rows is left out, although the
    # docstring says absent data is "reported, not passed"; only the divergence line
    # is always there, and with nothing to explain it passes.
    assert check_targets([]) == [
        TargetCheck("every greedy divergence of Tandem's is a near-tie", "0/0 explained", True)
    ]
    assert check_targets([row("q4", "chat", BASELINE, 1.0)]) == check_targets([])


# -- token comparison ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("baseline", "candidate", "matched"),
    [
        ((1, 2, 3), (1, 2, 3), (3, 3)),
        ((1, 2, 3), (1, 9, 3), (1, 3)),
        # A run that ends early, or runs on, diverges where the shorter one ends, and the
        # longer length is what was compared.
        ((1, 2, 3), (1, 2), (2, 3)),
        ((1, 2), (1, 2, 3), (2, 3)),
        ((), (), (0, 0)),
        ((), (4,), (0, 1)),
    ],
)
def test_matched_tokens(baseline: tuple[int, ...], candidate: tuple[int, ...], matched: tuple[int, int]) -> None:
    assert matched_tokens(baseline, candidate) == matched


def test_llama_servers_own_divergences_are_shown_but_not_held_against_tandem() -> None:
    summaries = [
        row("q4", "prose", "hybrid adaptive", 1.0, divergences=2, explained=2),
        row("q4", "prose", "llama-server target", 1.05, divergences=3, explained=2),
        row("q4", ALL_CATEGORIES, "llama-server target", 1.05, divergences=3, explained=2),
    ]
    assert check_targets(summaries)[-1] == TargetCheck(
        "every greedy divergence of Tandem's is a near-tie",
        "2/2 explained (llama.cpp's own: 2/3, not counted)",
        True,
    )
    summaries[0] = row("q4", "prose", "hybrid adaptive", 1.0, divergences=2, explained=1)
    assert not check_targets(summaries)[-1].passed


def test_overhead_targets_judge_the_adaptive_lookup_and_hybrid_rows_only() -> None:
    from app.core.bench.stats import overhead_targets

    def row(drafter: str, length: object, median: float) -> dict[str, object]:
        return {
            "drafter": drafter,
            "draft_length": length,
            "temperature": 0.0,
            "median_ms": median,
            "mean_ms": median,
            "steps": 10,
        }

    rows = [
        row("model", "adaptive", 5.0),
        row("ngram", 4, 9.0),
        row("ngram", "adaptive", 0.21),
        row("hybrid", "adaptive", 0.45),
    ]
    checks = overhead_targets(rows)
    assert [(c.name.split(",")[1].split(" at")[0].strip(), c.passed) for c in checks] == [
        ("ngram adaptive", True),
        ("hybrid adaptive", False),
    ]
    assert "0.45 ms" in checks[1].measured


# -- run-to-run spread and llama.cpp's programs ----------------------------------------------


def test_spread_is_the_range_of_one_prompts_speed_over_its_median() -> None:
    records = [
        # a: 10, 12, 9 tok/s in repeats 0-2 -> median 10, spread (12 - 9) / 10 = 0.30
        run("hybrid adaptive", "a", 0, emitted=20, generation_s=2.0, steps=8),
        run("hybrid adaptive", "a", 2, emitted=18, generation_s=2.0, steps=7),
        run("hybrid adaptive", "a", 1, emitted=24, generation_s=2.0, steps=11),
        # b ran once: no spread to tell
        run("hybrid adaptive", "b", 0),
        # a run that generated nothing has no speed
        run(BASELINE, "a", 0, generation_s=0.0),
        run(BASELINE, "a", 1),
    ]
    (only,) = spreads(records)
    assert (only.config, only.prompt_id, only.tokens_per_s) == ("hybrid adaptive", "a", (10.0, 12.0, 9.0))
    assert only.steps == (8, 11, 7)  # in repeat order, beside the speeds
    assert only.median == 10.0
    assert only.spread == pytest.approx(0.30)
    data = json.loads(json.dumps(only.to_dict()))
    assert data["spread"] == pytest.approx(0.30) and data["steps"] == [8, 11, 7]
    table = render_markdown({"spreads": [data], "summaries": [], "regimes": {}, "runs": []})
    assert "| q4 | 0 | hybrid adaptive | a | 10.0, 12.0, 9.0 | 10.0 | 30% | 8, 11, 7 |" in table


def test_llama_cpp_s_example_is_a_peer_held_to_the_same_bar_as_llama_server() -> None:
    assert is_peer("llama-speculative-simple K=4") and is_peer("llama-server ngram-mod")
    assert not is_peer("hybrid adaptive")
    summaries = [
        row("f16", "code-write", "hybrid adaptive", 1.50),
        row("f16", "code-write", "llama-server K=4", 1.25),
        row("f16", "code-write", "llama-speculative-simple K=4", 1.40),
        row("f16", "code-write", "llama-speculative-simple K=8", 1.20),
    ]
    names = {t.name: t for t in check_targets(summaries)}
    server = names["f16 code-write: hybrid adaptive >= 1.15x llama-server's best draft length"]
    simple = names["f16 code-write: hybrid adaptive >= 1.15x llama-speculative-simple's best draft length"]
    # 1.50 / 1.25 = 1.20 passes; against the example's best length (K=4, 1.40): 1.07 does not.
    assert (server.measured, server.passed) == ("1.20x (1.50x vs llama-server K=4 1.25x)", True)
    assert (simple.measured, simple.passed) == ("1.07x (1.50x vs llama-speculative-simple K=4 1.40x)", False)
