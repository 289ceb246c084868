"""Choosing llama.cpp's CPU thread count while replies run.

llama.cpp's CPU threads spin-wait for each other at every barrier of the
compute graph, so one thread that shares its core with another busy process
holds all the others back: on the 2-core development machine with one
CPU-bound process beside it, 2 threads decoded at half the speed of 1
(issue 17). Neither the core count nor the load average says which count is
fastest, so :class:`AdaptiveThreads` measures:

* a **round** tries each candidate count for a short window of verify steps
  (after one warm-up step, since the first step after a change also pays for
  it), starting from the count the free CPUs suggest and moving outwards. It
  skips counts more than half a CPU above the free CPUs (``HEADROOM``): on a
  machine busy all over, 2 threads ran 20 times slower than 1, and beside one
  CPU-bound process 3-6 times slower, so even a short window there costs more
  than it can tell (issue 31 measured a first reply at 0.68x of a fixed count
  from that window alone); the first round, read just after loading, allows a
  whole CPU. It leaves a count after two steps when it runs
  slower than the best count so far by more than ``margin``: such a count
  could not be chosen, and on a quiet 2-core machine the look at 1 thread
  (0.6-0.65x the speed of 2, just above ``drop_ratio``) otherwise ran a whole
  window, a few per cent of a short reply (issue 31);
* it then keeps the fastest, preferring the suggested count unless another
  is clearly faster (``margin``), so timing noise does not move it;
* a new round starts every ``recheck_every`` steps, when a window runs well
  below what the chosen count measured (``drop_ratio``: another process
  started), and at the start of a reply when the free CPUs suggest another
  count than the last round did (a process started or ended between replies).
  A periodic round whose free-CPU reading suggests the same count as before
  does not try again the counts the last full round found clearly slower
  (``margin``), and when it keeps the count it doubles the interval to the
  next one, up to ``MAX_RECHECK_FACTOR`` times, where every round looks at
  all counts again: on a quiet 2-core machine a round spent a window of
  steps at 1 thread, 0.6x the speed of 2, which fell inside every third
  reply of a benchmark and was the largest part of its run-to-run spread
  (issue 31). A drop or a changed reading starts a full round and brings the
  interval back to ``recheck_every``.

Speed is what the target verified per second of its verify calls, each batch
counted at its cost relative to one token (``batch_cost``: the pair's learned
verify curve), so every window of every reply is measured on one scale.
Emitted tokens per second, the number the user sees, moves with acceptance
too: a window of fully accepted lookups runs 2-3x faster than one of misses,
and a plain reply after a drafted one runs at half its rate. Measured that
way (it still is without ``batch_cost``), acceptance swings started rounds
and won them: on an F16 target's code edits, 7-13 of a reply's 20-25 steps
ran at 1 thread, 0.6x the speed of 2, and a target-only reply that followed a
drafted one dropped to 1 thread too (issue 31). The margin keeps small
differences from counting.

The policy is arithmetic on step timings. The engine supplies two callables:
``free_cpus`` (how many CPUs other processes leave free right now, a plain
float) and ``apply`` (set the count on the loaded models without reloading).
:class:`FixedThreads` is the same interface for a count the user forced.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.decoding.events import StepEvent

DEFAULT_WINDOW = 6
DEFAULT_RECHECK_EVERY = 256
# A window this far below the chosen count's measured speed means the machine changed
# (acceptance swings alone rarely halve the speed over a whole window).
DEFAULT_DROP_RATIO = 0.6
# Another count must be this much faster than the suggested one to replace it.
DEFAULT_MARGIN = 1.1
# A count is tried only when the free CPUs reach it within this much: a thread without a free core of its own
# spin-waits behind another process's, and every other thread waits for it.
HEADROOM = 0.5
# ...except in a policy's first round, whose reading follows the models' loading (see _start_round).
FIRST_ROUND_HEADROOM = 1.0
# Steps a count runs in a round before it may be left early for being slower than the best by the margin.
_EARLY_EXIT_STEPS = 2
# Periodic rounds that confirm the chosen count space themselves out up to this many times recheck_every.
MAX_RECHECK_FACTOR = 16


class FixedThreads:
    """A thread count the user chose: nothing is measured or changed."""

    auto = False

    def __init__(self, threads: int) -> None:
        if threads < 1:
            raise ValueError("the thread count must be >= 1")
        self._threads = threads

    @property
    def threads(self) -> int:
        """The forced count."""
        return self._threads

    def begin(self) -> None:
        """Nothing to re-check for a forced count."""

    def observe(self, event: StepEvent) -> None:
        """Nothing is learned for a forced count."""


def candidate_counts(max_threads: int) -> tuple[int, ...]:
    """The counts worth trying on ``max_threads`` usable cores: 1, the powers of two below, and all of them."""
    if max_threads < 1:
        raise ValueError("at least one CPU is needed")
    counts = {max_threads}
    n = 1
    while n < max_threads:
        counts.add(n)
        n *= 2
    return tuple(sorted(counts))


def suggested_count(free_cpus: float, candidates: Sequence[int]) -> int:
    """The candidate nearest to the free CPUs; ties go to fewer threads (a busy core costs more than an idle one)."""
    target = max(1.0, free_cpus)
    return min(candidates, key=lambda c: (abs(c - target), c))


@dataclass(slots=True)
class _Window:
    """Work (tokens, or one-token verify equivalents) and seconds over the steps measured so far at one count."""

    tokens: float = 0.0
    seconds: float = 0.0
    steps: int = 0

    def add(self, tokens: float, seconds: float) -> None:
        self.tokens += tokens
        self.seconds += seconds
        self.steps += 1

    @property
    def rate(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0


class AdaptiveThreads:
    """Explore the candidate counts, exploit the fastest, explore again when things change."""

    auto = True

    def __init__(
        self,
        candidates: Sequence[int],
        apply: Callable[[int], None],
        free_cpus: Callable[[], float],
        window: int = DEFAULT_WINDOW,
        recheck_every: int = DEFAULT_RECHECK_EVERY,
        drop_ratio: float = DEFAULT_DROP_RATIO,
        margin: float = DEFAULT_MARGIN,
        warmup: int = 1,
        batch_cost: Callable[[int], float] | None = None,
    ) -> None:
        if not candidates or min(candidates) < 1:
            raise ValueError("candidate thread counts must be >= 1")
        if window < 1 or recheck_every < window or not 0.0 < drop_ratio < 1.0 or margin < 1.0 or warmup < 0:
            raise ValueError("window >= 1, recheck_every >= window, 0 < drop_ratio < 1, margin >= 1, warmup >= 0")
        self.candidates = tuple(sorted(set(candidates)))
        self._apply = apply
        self._free_cpus = free_cpus
        self.window = window
        self.recheck_every = recheck_every
        self.drop_ratio = drop_ratio
        self.margin = margin
        self.warmup = warmup
        self._batch_cost = batch_cost
        self.rounds = 0  # exploration rounds started
        self.measured: dict[int, float] = {}  # speed per count in the latest round (see the module docstring)
        self._queue: list[int] = []
        self._suggested = self.candidates[-1]
        self._threads = 0
        self._skip = 0
        self._current = _Window()
        self._chosen_rate = 0.0
        self._since_round = 0
        self._recheck_interval = recheck_every
        self._max_interval = MAX_RECHECK_FACTOR * recheck_every
        self._periodic = False  # the round under way was started by the interval alone
        self._threads_before_round = 0
        self._slow: set[int] = set()  # counts the last full round found clearly slower (skipped by periodic rounds)
        self._expected_rate = 0.0  # a restored round's speed to compare with (0: none, see restore)
        self._start_round()

    @property
    def threads(self) -> int:
        """The count in use now."""
        return self._threads

    @property
    def exploring(self) -> bool:
        """Whether a round is still trying counts."""
        return bool(self._queue)

    def begin(self) -> None:
        """A reply starts: explore again if the free CPUs now suggest another count than the last round did."""
        if not self.exploring and self._suggest() != self._suggested:
            self._start_round()

    @property
    def recheck_interval(self) -> int:
        """Steps from the last round to the next periodic one."""
        return self._recheck_interval

    def observe(self, event: StepEvent) -> None:
        """Time one verify step at the current count; switch counts when a window closes."""
        if self._skip:
            self._skip -= 1
            return
        if self._batch_cost is not None and event.timings.verify_s > 0:
            self._current.add(self._batch_cost(event.drafted + 1), event.timings.verify_s)
        else:
            self._current.add(len(event.tokens), event.timings.total_s)
        if self._current.steps < self.window and not self._clearly_losing():
            return
        rate = self._current.rate
        self._current = _Window()
        if self.exploring:
            self.measured[self._queue.pop(0)] = rate
            if self._queue:
                self._switch(self._queue[0])
            else:
                self._settle()
            return
        self._since_round += self.window
        if rate < self.drop_ratio * self._chosen_rate:
            self._start_round()
        elif self._since_round >= self._recheck_interval:
            self._start_round(periodic=True)

    def state(self) -> dict[str, Any]:
        """What the rounds learned, for the next process on this machine: see :meth:`restore`."""
        return {
            "candidates": list(self.candidates),
            "suggested": self._suggested,
            "slow": sorted(self._slow),
            "recheck_interval": self._recheck_interval,
            "rate": self._chosen_rate,
        }

    def restore(self, state: Any) -> bool:
        """Start from a :meth:`state` of an earlier process, before the first step; whether it was taken.

        The first round of a new process otherwise looks at every count
        again: on a quiet 2-core machine, 3 steps of the first reply at 1
        thread, 0.6x the speed of 2. When the free CPUs suggest the count they
        suggested when ``state`` was kept, the round is taken as a periodic
        one: it skips the counts that were clearly slower and only confirms
        the suggested count, and the interval to the next full look carries
        on doubling from where it was, so every count still gets a fresh look
        in time. If the count now runs well below the speed it had then
        (``drop_ratio``: a busy core the reading misses), the round looks at
        every count after all. Anything else (another reading, other
        candidates, a state that is not one this class wrote) is refused, and
        the round explores.
        """
        if self.rounds != 1 or self.measured or self._current.steps or self._skip < self.warmup:
            return False  # only before the first step
        try:
            candidates, suggested = state["candidates"], state["suggested"]
            slow, interval, rate = state["slow"], state["recheck_interval"], state["rate"]
        except (KeyError, TypeError):
            return False
        if type(rate) not in (int, float) or not (math.isfinite(rate) and rate > 0):
            return False
        if candidates != list(self.candidates) or suggested != self._suggested:
            return False
        if not isinstance(slow, list) or not all(c in self.candidates for c in slow) or suggested in slow:
            return False
        if type(interval) is not int or not self.recheck_every <= interval < self._max_interval:
            return False  # at the longest interval every count is due a fresh look: this round gives it
        self._slow = set(slow)
        self._recheck_interval = interval
        self._expected_rate = float(rate)
        self._periodic = True
        self._threads_before_round = self._threads
        self._queue = [c for c in self._queue if c not in self._slow]
        return True

    def _clearly_losing(self) -> bool:
        """While exploring: this count is already slower than the best one so far by more than the margin."""
        if not self.exploring or not self.measured or self._current.steps < _EARLY_EXIT_STEPS:
            return False
        return self._current.rate * self.margin < max(self.measured.values())

    def _suggest(self) -> int:
        free = self._free_cpus()
        return suggested_count(free if math.isfinite(free) else float(self.candidates[-1]), self.candidates)

    def _start_round(self, periodic: bool = False) -> None:
        self.rounds += 1
        self._periodic = periodic
        self._threads_before_round = self._threads
        free = self._free_cpus()
        free = free if math.isfinite(free) else float(self.candidates[-1])
        suggested = suggested_count(free, self.candidates)
        if not (periodic and suggested == self._suggested) or self._recheck_interval >= self._max_interval:
            # The machine changed, or the rounds are as far apart as they get (a reading that misses a
            # busy core never changes): every count gets a fresh look.
            self._slow = set()
        self._suggested = suggested
        self.measured = {}
        # The first reading comes right after the models were read from disk, when the kernel's I/O threads
        # count as other processes: the first round still tries one more CPU than it sees free.
        headroom = FIRST_ROUND_HEADROOM if self.rounds == 1 else HEADROOM
        worth_trying = [c for c in self.candidates if c <= free + headroom or c == self._suggested]
        # A periodic round on an unchanged reading skips the counts the last full round found clearly slower:
        # it only confirms the chosen count.
        worth_trying = [c for c in worth_trying if c not in self._slow] or worth_trying
        # Nearest counts first: if the round is cut short by a short reply, the nearest were measured.
        self._queue = sorted(worth_trying, key=lambda c: (abs(c - self._suggested), c))
        self._switch(self._queue[0])

    def _settle(self) -> None:
        expected, self._expected_rate = self._expected_rate, 0.0
        if expected and max(self.measured.values()) < self.drop_ratio * expected:
            self._start_round()  # a restored round ran far below the last process's speed: look at every count
            return
        best = max(self.measured, key=lambda c: self.measured[c])
        suggested_rate = self.measured.get(self._suggested, 0.0)
        chosen = best if self.measured[best] > self.margin * suggested_rate else self._suggested
        if len(self.measured) > 1:
            self._slow = {c for c, rate in self.measured.items() if rate * self.margin < self.measured[best]}
        confirmed = self._periodic and chosen == self._threads_before_round
        self._recheck_interval = (
            min(2 * self._recheck_interval, self._max_interval) if confirmed else self.recheck_every
        )
        self._chosen_rate = self.measured[chosen]
        self._since_round = 0
        self._switch(chosen)

    def _switch(self, threads: int) -> None:
        if threads != self._threads:
            self._apply(threads)
            self._threads = threads
            self._skip = self.warmup
        self._current = _Window()
