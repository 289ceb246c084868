"""The thread-count policy on hand-built timings: a simulated machine whose speed depends on the count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from app.core.adaptive.threads import (
    MAX_RECHECK_FACTOR,
    AdaptiveThreads,
    FixedThreads,
    candidate_counts,
    suggested_count,
)
from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.events import FinishedEvent, StepEvent, StepTimings, TokenOrigin
from app.core.decoding.sampling import SamplingParams
from app.core.decoding.stats import GenerationStats
from app.core.reply.token_record import TokenRecord
from tests.core.fakes import BigramLM, random_table

# Tokens per second by thread count, as measured on the 2-core machine (issue 17).
QUIET = {1: 15.0, 2: 27.0}
ONE_BUSY = {1: 16.0, 2: 8.5}


def step_event(tokens: int, seconds: float) -> StepEvent:
    emitted = tuple(TokenRecord(id=1, text="x", origin=TokenOrigin.TARGET, p_target=1.0) for _ in range(tokens))
    return StepEvent(tokens=emitted, drafted=0, accepted=0, draft_length=0, timings=StepTimings(0.0, seconds, seconds))


class Machine:
    """Records the counts applied and times each step at the speed the current table gives."""

    def __init__(self, speeds: dict[int, float], free: float) -> None:
        self.speeds = speeds
        self.free = free
        self.applied: list[int] = []

    def policy(self, **kwargs: object) -> AdaptiveThreads:
        return AdaptiveThreads(sorted(self.speeds), self.applied.append, lambda: self.free, **kwargs)  # type: ignore[arg-type]


def run(policy: AdaptiveThreads, machine: Machine, steps: int, tokens: int = 1, slow_first: bool = False) -> list[int]:
    """Run ``steps`` verify steps; returns the count each one ran with."""
    used = []
    last = policy.threads
    for _ in range(steps):
        n = policy.threads
        seconds = tokens / machine.speeds[n]
        if slow_first and n != last:
            seconds *= 50  # the first step after a change: not what the count is worth
        last = n
        used.append(n)
        policy.observe(step_event(tokens, seconds))
    return used


def test_one_thread_wins_beside_a_busy_process() -> None:
    machine = Machine(ONE_BUSY, free=1.5)  # half of the other core is free: two threads are worth one look
    policy = machine.policy()
    used = run(policy, machine, 200)
    assert policy.threads == 1
    assert Counter(used[50:]) == {1: 150}
    assert policy.measured[2] < policy.measured[1]


def test_a_whole_busy_core_is_not_shared_even_for_a_look() -> None:
    # One CPU-bound process beside: the second thread would have no core of its own, and a window there
    # cost a first reply a third of its speed on the 2-core machine (issue 31).
    # The first round, whose reading follows loading the models (the kernel's I/O counts as other
    # processes), still takes one look at two threads; the re-checks after it do not.
    machine = Machine(ONE_BUSY, free=1.0)
    policy = machine.policy(recheck_every=24)
    used = run(policy, machine, 200)
    assert machine.applied == [1, 2, 1]
    assert policy.rounds > 2 and set(used[40:]) == {1}  # the periodic re-checks ran and did not try two


def test_all_cores_win_on_a_quiet_machine() -> None:
    machine = Machine(QUIET, free=2.0)
    policy = machine.policy()
    used = run(policy, machine, 200)
    assert policy.threads == 2
    assert Counter(used[50:]) == {2: 150}


def test_a_machine_busy_all_over_does_not_try_more_threads() -> None:
    machine = Machine({1: 5.0, 2: 0.26}, free=0.2)  # the heavy-load numbers
    policy = machine.policy()
    used = run(policy, machine, 40)
    assert set(used) == {1} and machine.applied == [1] and set(policy.measured) == {1}


def test_a_far_slower_count_is_left_after_two_steps() -> None:
    machine = Machine({1: 16.0, 2: 2.0}, free=1.5)
    policy = machine.policy(window=6, warmup=1)
    used = run(policy, machine, 40)
    assert used.count(2) == 1 + 2  # the warm-up step and two measured ones, not a whole window
    assert policy.threads == 1


@pytest.mark.parametrize(
    ("one_thread", "steps_at_one"),
    [
        # The EPYC's F16 target: 1 thread at 0.65x the speed of 2, above drop_ratio. The look at one thread is
        # the warm-up step and two measured ones: a count slower than the best by the margin is not chosen.
        (7.5, 1 + 2),
        (11.0, 1 + 6),  # within the margin of 2 threads' 11.5: the whole window
    ],
)
def test_a_count_is_left_early_only_when_it_is_slower_by_the_margin(one_thread: float, steps_at_one: int) -> None:
    machine = Machine({1: one_thread, 2: 11.5}, free=2.0)
    policy = machine.policy(window=6, warmup=1)
    used = run(policy, machine, 60)
    assert used.count(1) == steps_at_one
    assert policy.threads == 2


def test_measured_speed_overrules_a_wrong_free_cpu_reading() -> None:
    # The reading says both CPUs are free, yet two threads run at half speed (a busy core the reading missed).
    machine = Machine(ONE_BUSY, free=2.0)
    policy = machine.policy()
    run(policy, machine, 100)
    assert policy.threads == 1


@pytest.mark.parametrize("free", [1.0, 2.0])
def test_a_small_difference_keeps_the_suggested_count(free: float) -> None:
    machine = Machine({1: 20.0, 2: 21.0}, free=free)
    policy = machine.policy(margin=1.1)
    run(policy, machine, 100)
    assert policy.threads == int(free)


def test_a_process_starting_mid_reply_moves_to_fewer_threads() -> None:
    machine = Machine(dict(QUIET), free=2.0)
    policy = machine.policy(recheck_every=10_000)
    run(policy, machine, 60)
    assert policy.threads == 2
    rounds = policy.rounds
    machine.speeds, machine.free = dict(ONE_BUSY), 1.0
    used = run(policy, machine, 60)
    assert policy.rounds == rounds + 1  # the drop, not the periodic re-check, started the round
    assert policy.threads == 1
    assert used[-20:] == [1] * 20


def test_a_process_ending_is_found_by_the_periodic_recheck() -> None:
    machine = Machine(dict(ONE_BUSY), free=1.0)
    policy = machine.policy(recheck_every=48)
    run(policy, machine, 40)
    assert policy.threads == 1
    machine.speeds, machine.free = dict(QUIET), 2.0  # faster at 1 too: no drop to react to
    run(policy, machine, 48 + 3 * policy.window)
    assert policy.threads == 2


def test_without_a_recheck_a_process_ending_goes_unnoticed() -> None:
    # The counterpart of the test above: the periodic round is what finds the faster count.
    machine = Machine(dict(ONE_BUSY), free=1.0)
    policy = machine.policy(recheck_every=10_000)
    run(policy, machine, 40)
    machine.speeds = dict(QUIET)
    run(policy, machine, 100)
    assert policy.threads == 1


def test_a_new_reply_explores_again_only_when_the_free_cpus_changed() -> None:
    machine = Machine(dict(QUIET), free=2.0)
    policy = machine.policy(recheck_every=10_000)
    run(policy, machine, 40)
    rounds = policy.rounds
    policy.begin()
    assert policy.rounds == rounds and not policy.exploring
    machine.free = 0.9
    policy.begin()
    assert policy.rounds == rounds + 1 and policy.exploring
    assert policy.threads == 1  # the round starts at the count the free CPUs suggest


def test_the_step_after_a_change_is_not_counted() -> None:
    machine = Machine(QUIET, free=2.0)
    policy = machine.policy(warmup=1)
    run(policy, machine, 60, slow_first=True)
    assert policy.threads == 2
    assert policy.measured[2] == pytest.approx(27.0)


def test_apply_is_called_only_when_the_count_changes() -> None:
    machine = Machine(ONE_BUSY, free=1.5)
    policy = machine.policy()
    run(policy, machine, 200)
    assert machine.applied == [1, 2, 1]


def test_candidates_and_suggestions() -> None:
    assert candidate_counts(1) == (1,)
    assert candidate_counts(2) == (1, 2)
    assert candidate_counts(6) == (1, 2, 4, 6)
    assert candidate_counts(8) == (1, 2, 4, 8)
    assert suggested_count(1.5, (1, 2, 4)) == 1  # a tie goes to fewer threads
    assert suggested_count(3.4, (1, 2, 4)) == 4
    assert suggested_count(0.0, (1, 2)) == 1
    with pytest.raises(ValueError):
        candidate_counts(0)


@pytest.mark.parametrize(
    "kwargs",
    [{"window": 0}, {"recheck_every": 2, "window": 4}, {"drop_ratio": 1.0}, {"margin": 0.9}, {"warmup": -1}],
)
def test_bad_settings_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        AdaptiveThreads((1, 2), lambda n: None, lambda: 2.0, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        FixedThreads(0)


def _decoder(threads: FixedThreads | AdaptiveThreads) -> SpeculativeDecoder:
    return SpeculativeDecoder(BigramLM(random_table(12, seed=0)), None, SamplingParams(temperature=0), threads=threads)


def _finish(decoder: SpeculativeDecoder, max_tokens: int = 30) -> FinishedEvent:
    *_, finished = decoder.generate(GenerationRequest([1, 2, 3], max_tokens=max_tokens))
    assert isinstance(finished, FinishedEvent)
    return finished


def test_the_decoder_reports_a_forced_count() -> None:
    stats = _finish(_decoder(FixedThreads(3))).stats
    assert (stats.threads, stats.threads_auto) == (3, False)
    assert stats.to_dict()["threads"] == 3


def test_each_step_carries_its_count_so_live_statistics_show_it() -> None:
    # The window builds its live statistics from the step events, not from the decoder's totals.
    applied: list[int] = []
    policy = AdaptiveThreads((1, 2), applied.append, lambda: 2.0, window=2, warmup=0)
    events = list(_decoder(policy).generate(GenerationRequest([1, 2, 3], max_tokens=20)))
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert {e.threads for e in steps} == {1, 2} and all(e.threads_auto for e in steps)
    live = GenerationStats()
    for event in steps:
        live.record(event)
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    assert (live.threads, live.threads_auto) == (steps[-1].threads, True) == (finished.stats.threads, True)


def test_the_decoder_tells_the_policy_every_step() -> None:
    seen: list[StepEvent] = []
    applied: list[int] = []
    policy = AdaptiveThreads((1, 2), applied.append, lambda: 2.0, window=2)
    original: Callable[[StepEvent], None] = policy.observe
    policy.observe = lambda event: (seen.append(event), original(event))[1]  # type: ignore[method-assign]
    stats = _finish(_decoder(policy)).stats
    assert len(seen) == stats.steps == 30
    assert stats.threads_auto and stats.threads in (1, 2)
    assert applied[0] == 2 and len(applied) >= 2  # the round tried both counts


def _next_round(policy: AdaptiveThreads, machine: Machine) -> None:
    """Run until a round starts, then until it settles."""
    rounds = policy.rounds
    while policy.rounds == rounds:
        run(policy, machine, 1)
    while policy.exploring:
        run(policy, machine, 1)


def test_periodic_rounds_on_an_unchanged_reading_only_confirm_the_count_and_space_out() -> None:
    # Quiet 2 cores: a periodic round used to spend a window at 1 thread (0.6x) every time, which fell
    # inside every third reply of a benchmark (issue 31's spread). Now it skips the count the first
    # round found clearly slower, and each round that keeps the count comes twice as late as the last;
    # at the longest interval every round looks at both counts again.
    machine = Machine(dict(QUIET), free=2.0)
    policy = machine.policy(recheck_every=48)
    run(policy, machine, 30)
    assert machine.applied == [2, 1, 2]
    intervals = []
    for _ in range(4):
        _next_round(policy, machine)
        assert policy.threads == 2
        intervals.append(policy.recheck_interval)
    assert intervals == [96, 192, 384, 768] and MAX_RECHECK_FACTOR * 48 == 768
    assert machine.applied == [2, 1, 2]  # four rounds, and not one step at 1 thread
    _next_round(policy, machine)
    assert machine.applied == [2, 1, 2, 1, 2] and policy.recheck_interval == 768
    # A process starts: the drop starts a full round, which moves to 1 thread and resets the interval.
    machine.speeds, machine.free = dict(ONE_BUSY), 1.0
    run(policy, machine, 60)
    assert policy.threads == 1 and policy.recheck_interval == 48


def test_a_count_found_slower_despite_the_reading_is_retried_only_at_the_longest_interval() -> None:
    machine = Machine(dict(ONE_BUSY), free=2.0)  # the reading misses a busy core
    policy = machine.policy(recheck_every=24)
    run(policy, machine, 30)
    assert policy.threads == 1 and machine.applied == [2, 1]
    for _ in range(4):
        _next_round(policy, machine)
    assert policy.threads == 1 and machine.applied == [2, 1]  # the periodic rounds confirmed 1 alone
    machine.speeds = dict(QUIET)  # the other process ends; the reading said 2 free all along
    _next_round(policy, machine)
    assert policy.threads == 2


def _verify_event(n: int, accepted: int, seconds: float) -> StepEvent:
    """A step that verified a batch of ``n`` (n - 1 drafts) in ``seconds`` and emitted ``accepted + 1`` tokens."""
    emitted = tuple(TokenRecord(id=1, text="x", origin=TokenOrigin.TARGET, p_target=1.0) for _ in range(accepted + 1))
    return StepEvent(
        tokens=emitted,
        drafted=n - 1,
        accepted=accepted,
        draft_length=n - 1,
        timings=StepTimings(0.0, seconds, seconds),
    )


def _shape(n: int) -> float:
    return 1.0 + 0.2 * (n - 1)


def _swinging_acceptance(policy: AdaptiveThreads, machine: Machine, windows: int) -> list[int]:
    """Windows of fully accepted 8-token drafts alternating with windows of misses: the same verify work."""
    used = []
    for window in range(windows):
        accepted = 8 if window % 2 == 0 else 0
        for _ in range(policy.window):
            used.append(policy.threads)
            policy.observe(_verify_event(9, accepted, _shape(9) / machine.speeds[policy.threads]))
    return used


def test_acceptance_swings_do_not_move_the_count_when_windows_are_weighed_in_verify_work() -> None:
    machine = Machine(QUIET, free=2.0)
    policy = machine.policy(batch_cost=_shape)
    _swinging_acceptance(policy, machine, 4)  # the first round settles
    rounds = policy.rounds
    used = _swinging_acceptance(policy, machine, 20)
    assert policy.rounds == rounds and set(used) == {2}


def test_a_plain_reply_after_a_drafted_one_keeps_the_count() -> None:
    machine = Machine(QUIET, free=2.0)
    policy = machine.policy(batch_cost=_shape)
    _swinging_acceptance(policy, machine, 6)
    rounds = policy.rounds
    policy.begin()
    used = run(policy, machine, 60)  # one token a step: a fraction of the drafted reply's tokens per second
    assert policy.rounds == rounds and set(used) == {2}
    # Weighed in emitted tokens per second, the plain reply looks like a slower machine: a round, 1 thread tried.
    machine = Machine(QUIET, free=2.0)
    by_tokens = machine.policy()
    _swinging_acceptance(by_tokens, machine, 6)
    rounds = by_tokens.rounds
    by_tokens.begin()
    used = run(by_tokens, machine, 60)
    assert by_tokens.rounds > rounds and 1 in used


def test_a_process_starting_is_still_found_when_windows_are_weighed_in_verify_work() -> None:
    machine = Machine(QUIET, free=2.0)
    policy = machine.policy(batch_cost=_shape)
    _swinging_acceptance(policy, machine, 6)
    machine.speeds, machine.free = ONE_BUSY, 1.0
    used = _swinging_acceptance(policy, machine, 8)
    assert used[-6:] == [1] * 6


def test_a_new_process_on_the_same_reading_does_not_look_at_a_count_found_slower() -> None:
    # Quiet 2 cores: each new process's first round spent 3 steps of its first reply at 1 thread (0.6x).
    # Restored from the last process's rounds, the first round only confirms 2 threads.
    machine = Machine(dict(QUIET), free=2.0)
    first = machine.policy(recheck_every=48)
    run(first, machine, 30)
    assert machine.applied == [2, 1, 2]
    kept = first.state()
    assert kept == {"candidates": [1, 2], "suggested": 2, "slow": [1], "recheck_interval": 48, "rate": QUIET[2]}
    machine.applied.clear()
    second = machine.policy(recheck_every=48)
    assert second.restore(kept)
    assert run(second, machine, 30) == [2] * 30 and machine.applied == [2]
    # The round counted as a confirmation: the interval doubles across processes as within one, and at the
    # longest interval a new process refuses the shortcut and looks at every count again.
    assert second.recheck_interval == 96
    longest = {**kept, "recheck_interval": MAX_RECHECK_FACTOR * 48}
    machine.applied.clear()
    third = machine.policy(recheck_every=48)
    assert not third.restore(longest)
    run(third, machine, 30)
    assert machine.applied == [2, 1, 2]


def test_a_kept_state_is_refused_when_the_machine_reads_otherwise_or_it_is_not_one() -> None:
    machine = Machine(dict(QUIET), free=2.0)
    kept = {"candidates": [1, 2], "suggested": 2, "slow": [1], "recheck_interval": 48, "rate": QUIET[2]}
    busy = Machine(dict(ONE_BUSY), free=1.0)  # another process now holds a core: explore
    assert not busy.policy(recheck_every=48).restore(kept)
    damaged: list[object] = [
        None,
        [],
        {**kept, "candidates": [1, 2, 4]},
        {**kept, "slow": [2]},  # the count it suggests can not be the slow one
        {**kept, "slow": [3]},
        {**kept, "slow": "1"},
        {**kept, "recheck_interval": 12},
        {**kept, "recheck_interval": 48.0},
        {**kept, "recheck_interval": True},
        {k: v for k, v in kept.items() if k != "slow"},
        {**kept, "rate": 0.0},
        {**kept, "rate": float("nan")},
        {**kept, "rate": "27"},
    ]
    for state in damaged:
        policy = machine.policy(recheck_every=48)
        assert not policy.restore(state), state
    started = machine.policy(recheck_every=48)
    run(started, machine, 2)
    assert not started.restore(kept)  # only before the first step


def test_a_restored_round_that_runs_far_below_the_kept_speed_looks_at_every_count() -> None:
    # A core the reading misses is busy now: 2 threads run at a third of the speed they had. The
    # shortcut must not keep them there until the longest interval.
    kept = {"candidates": [1, 2], "suggested": 2, "slow": [1], "recheck_interval": 48, "rate": QUIET[2]}
    machine = Machine(dict(ONE_BUSY), free=2.0)
    policy = machine.policy(recheck_every=48)
    assert policy.restore(kept)
    run(policy, machine, 30)
    assert machine.applied == [2, 1] and policy.threads == 1
    # The same restore on a machine as fast as before keeps the shortcut.
    quiet = Machine(dict(QUIET), free=2.0)
    again = quiet.policy(recheck_every=48)
    assert again.restore(kept)
    run(again, quiet, 30)
    assert quiet.applied == [2]
