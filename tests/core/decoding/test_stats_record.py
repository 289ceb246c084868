"""GenerationStats.to_dict and from_dict: a stored reply's statistics shown again as they were."""

from __future__ import annotations

from app.core.decoding.stats import GenerationStats


def _stats() -> GenerationStats:
    return GenerationStats(
        steps=4,
        drafted=10,
        accepted=6,
        emitted=11,
        prompt_tokens=30,
        prefill_s=0.25,
        draft_s=0.5,
        verify_s=1.0,
        total_s=2.0,
        position_attempts=[4, 3, 2],
        position_hits=[3, 2, 1],
        last_draft_length=3,
        drafting_steps=4,
        rejection_sampling_sum=5.5,
        sample_and_match_sum=3.25,
        rule_positions=9,
        threads=2,
        threads_auto=True,
        by_source={"model": [8, 5], "lookup": [2, 1]},
        copied={"report.pdf": 3},
    )


def test_round_trip_keeps_every_figure() -> None:
    stats = _stats()
    assert GenerationStats.from_dict(stats.to_dict()) == stats


def test_an_old_record_without_the_sums_keeps_its_counts() -> None:
    data = _stats().to_dict()
    for key in ("position_attempts", "position_hits", "rejection_sampling_sum", "sample_and_match_sum"):
        del data[key]
    stats = GenerationStats.from_dict(data)
    assert (stats.steps, stats.drafted, stats.accepted, stats.emitted) == (4, 10, 6, 11)
    assert stats.per_position_acceptance == [] and stats.rejection_sampling_expected == 0.0


def test_bad_values_read_as_missing() -> None:
    stats = GenerationStats.from_dict(
        {
            "steps": "four",
            "drafted": True,
            "generation_s": None,
            "position_attempts": [1, 2],
            "position_hits": [1],  # unequal lengths: neither is trusted
            "by_source": {"model": {"drafted": "x", "accepted": 1}},
            "copied": {"a": 1, "b": "two"},
        }
    )
    assert stats == GenerationStats(copied={"a": 1})
    assert GenerationStats.from_dict({}) == GenerationStats()
