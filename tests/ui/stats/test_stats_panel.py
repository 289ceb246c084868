"""The statistics panel's wording for the draft length the adaptive controller chose."""

from __future__ import annotations

import pytest

from app.core.decoding.stats import GenerationStats
from app.ui.stats.stats_panel import StatsPanel


@pytest.mark.parametrize(
    ("drafter", "adaptive", "expected"),
    [
        ("model", True, "0: off, drafting is slower than the target alone here"),
        ("ngram", True, "0: off for now, recent lookups were rejected"),
        ("model", False, "0"),  # a fixed length of 0 is the user's own choice: no explanation
        ("none", True, "0"),
    ],
)
def test_draft_length_explains_an_adaptive_off(qapp: object, drafter: str, adaptive: bool, expected: str) -> None:
    panel = StatsPanel()
    try:
        panel.reset(drafter, adaptive)
        assert panel.draft_length.text() == "–"
        stats = GenerationStats(steps=3, emitted=3, last_draft_length=0)
        panel.update_stats(stats)
        text = panel.draft_length.text()
        assert text.startswith(expected) if expected != "0" else text == "0", text
        assert ("adaptive" in panel.drafter.text()) == (adaptive and drafter != "none")
        panel.update_stats(GenerationStats(steps=4, emitted=8, last_draft_length=5))
        assert panel.draft_length.text() == "5"
    finally:
        panel.deleteLater()


def test_rules_row_shows_both_expected_rates_and_no_second_acceptance(qapp: object) -> None:
    panel = StatsPanel()
    try:
        panel.reset("model", False)
        assert panel.rules.text() == "–"
        stats = GenerationStats(
            steps=2,
            drafted=8,
            accepted=5,
            emitted=7,
            position_attempts=[2, 2, 2],
            position_hits=[2, 2, 1],
            rejection_sampling_sum=4.5,
            sample_and_match_sum=3.0,
            rule_positions=6,
        )
        panel.update_stats(stats)
        text = panel.rules.text()
        assert "exact 75%" in text and "sample-and-match 50%" in text and "over 6 judged draft tokens" in text
        # One acceptance figure in the tab: the Acceptance row's; no "measured 83%" beside "acceptance 62%".
        assert "measured" not in text and "%" not in text.replace("75%", "").replace("50%", "")
        assert panel.acceptance.text().startswith("62%")
    finally:
        panel.deleteLater()


@pytest.mark.parametrize(
    ("threads", "auto", "expected"),
    [(1, True, "1 (auto: fastest measured here)"), (2, False, "2 (set in Settings)"), (0, True, "–")],
)
def test_threads_row_says_the_count_and_who_chose_it(qapp: object, threads: int, auto: bool, expected: str) -> None:
    panel = StatsPanel()
    try:
        panel.reset("model", True)
        assert panel.threads.text() == "–"
        panel.update_stats(GenerationStats(steps=3, emitted=3, threads=threads, threads_auto=auto))
        assert panel.threads.text() == expected
    finally:
        panel.deleteLater()


def test_thinking_and_answer_acceptance_show_apart_only_for_a_reasoning_reply(qapp: object) -> None:
    from app.core.reply.reasoning import ReasoningTally

    panel = StatsPanel()
    try:
        panel.show()
        panel.reset("model", False)
        assert not panel.parts.isVisible() and not panel.parts_label.isVisible()
        tally = ReasoningTally()
        stream = [("<think>", "target"), ("a", "draft"), ("b", "draft"), ("c", "corrected"), ("</think>", "bonus")]
        stream += [("\n", "target"), ("Hi", "corrected"), ("!", "target")]
        for text, origin in stream:
            tally.add(text, origin)
        tally.finish()
        panel.set_parts(tally.split())
        assert panel.parts.isVisible()
        assert panel.parts.text() == "thinking 67% (2/3, 5 tokens) | answer 0% (0/1, 3 tokens)"
        plain = ReasoningTally()
        plain.add("Hello", "draft")
        panel.set_parts(plain.split() if plain.has_block else None)
        assert not panel.parts.isVisible()
        panel.reset("model", False)  # a new reply starts without the row
        assert not panel.parts_label.isVisible()
    finally:
        panel.deleteLater()


def test_a_servers_missing_figures_read_not_reported(qapp: object) -> None:
    panel = StatsPanel()
    try:
        # A server's steps: counts it sent, no timings, threads or expected-acceptance rows.
        stats = GenerationStats(steps=3, drafted=6, accepted=4, emitted=7, total_s=1.0)
        panel.set_remote(True)
        panel.reset("server (llama-server)", False)
        panel.update_stats(stats)
        assert panel.timing.text() == "not reported" and "ms" not in panel.timing.text()
        assert panel.threads.text() == "not reported"
        assert panel.rules.text() == "not reported"
        assert "(4/6)" in panel.acceptance.text()
        # The local pair again: the same empty figures are its own measurements of nothing.
        panel.set_remote(False)
        panel.update_stats(stats)
        assert panel.timing.text().startswith("draft 0 ms")
        assert panel.threads.text() == "–" and panel.rules.text() == "–"
    finally:
        panel.deleteLater()


def test_prompt_rows_show_first_token_speed_and_cache(qapp: object) -> None:
    panel = StatsPanel()
    try:
        panel.reset("hybrid", True)
        assert panel.first_token.text() == panel.prompt_rate.text() == panel.prompt_cached.text() == "–"
        stats = GenerationStats(
            steps=1, emitted=1, prompt_tokens=4001, prompt_reused=1000, prefill_s=1.5, time_to_first_token_s=1.75
        )
        panel.update_stats(stats)
        assert panel.first_token.text() == "1,750 ms"
        assert panel.prompt_rate.text() == "2,000 tok/s"  # 3,000 tokens read in 1.5 s (the last one by the first step)
        assert panel.prompt_cached.text() == "1,000 of 4,001 prompt tokens"
        panel.update_stats(GenerationStats())  # a new reply: dashes again
        assert panel.first_token.text() == "–"
    finally:
        panel.deleteLater()


def test_an_adaptive_reply_with_drafting_off_says_why(qapp: object) -> None:
    panel = StatsPanel()
    try:
        panel.reset("hybrid", True)
        panel.update_stats(GenerationStats(steps=5, emitted=5, last_draft_length=0))
        assert panel.draft_length.text().startswith("0: off, drafting is slower than the target alone here")
        panel.reset("ngram", True)
        panel.update_stats(GenerationStats(steps=5, emitted=5, last_draft_length=0))
        assert panel.draft_length.text().startswith("0: off for now, recent lookups were rejected")
        panel.reset("hybrid", False)  # a fixed length of 0 is the user's setting: no explanation
        panel.update_stats(GenerationStats(steps=5, emitted=5, last_draft_length=0))
        assert panel.draft_length.text() == "0"
    finally:
        panel.deleteLater()


def test_mean_accepted_counts_the_steps_that_drafted(qapp: object) -> None:
    panel = StatsPanel()
    try:
        panel.reset("model", True)
        # 9 of 9 drafted tokens kept in the 2 steps that drafted, of 23: not "0.39 per step" beside 100 %.
        panel.update_stats(GenerationStats(steps=23, drafting_steps=2, drafted=9, accepted=9, emitted=32))
        assert panel.acceptance.text().startswith("100%  (9/9)")
        assert panel.mean_length.text() == "4.50 per drafting step (2 of 23 steps drafted)"
        panel.update_stats(GenerationStats(steps=5, emitted=5))
        assert panel.mean_length.text() == "– (no step drafted)"
    finally:
        panel.deleteLater()


def test_a_speedup_below_one_says_slower_and_a_new_baseline_says_what_it_replaced(qapp: object) -> None:
    panel = StatsPanel()
    try:
        panel.reset("model", False)
        panel.set_baseline(10.0, "measured here")
        panel.update_stats(GenerationStats(steps=4, emitted=33, total_s=5.0))  # 6.6 tok/s
        # Said in words (the figure big, the words in the body's size), also to a screen reader.
        assert panel.speedup.accessibleName() == "0.66×: slower than the target alone"
        assert panel.speedup.text().startswith("0.66×<span") and "slower than the target alone" in panel.speedup.text()
        assert panel.baseline_note.text() == "vs 10.0 tok/s target-only (measured here)"
        panel.set_baseline(4.8, "measured here")
        assert panel.speedup.text() == panel.speedup.accessibleName() == "1.38×"
        note = panel.baseline_note.text()
        assert note.startswith("vs 4.8 tok/s target-only (measured here); changed from 10.0 tok/s at "), note
        panel.set_baseline(4.8, "measured here")  # the same rate again: the last change is still what is said
        assert panel.baseline_note.text() == note
    finally:
        panel.deleteLater()
