"""The CPUs this process may use, and how many of them other processes leave free right now.

The thread policy (:mod:`app.core.adaptive.threads`) starts each exploration
from the free CPUs. Our own llama.cpp threads spin-wait and look busy, so the
load that counts is the machine's busy time minus this process's own, over
the interval since the previous reading (psutil's CPU times; the load average
would count our threads too and lags by a minute).
"""

from __future__ import annotations

import os
import time

import psutil


def usable_cpus() -> int:
    """Logical CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS and Windows have no sched_getaffinity
        return max(1, os.cpu_count() or 1)


# Caps the threads below for processes that share the machine on purpose (the test suite's workers, several
# Tandem processes side by side): llama.cpp's threads spin-wait at each step's barrier, so two processes that
# each take every core slow each other far more than the cores they share.
MAX_THREADS_ENV = "TANDEM_MAX_THREADS"


def thread_cap() -> int | None:
    """``TANDEM_MAX_THREADS`` when it is a whole number from 1, else None (no cap)."""
    cap = os.environ.get(MAX_THREADS_ENV, "")
    return int(cap) if cap.isdigit() and int(cap) >= 1 else None


def capped_threads(n_threads: int) -> int:
    """``n_threads`` lowered to the cap, if one is set: a count asked for in settings or code is capped too."""
    cap = thread_cap()
    return n_threads if cap is None else min(n_threads, cap)


def max_useful_threads() -> int:
    """Physical cores within the usable CPUs (llama.cpp's kernels gain nothing from hyper-threads).

    ``TANDEM_MAX_THREADS``, a whole number from 1, lowers it; any other value is ignored.
    """
    physical = psutil.cpu_count(logical=False) or usable_cpus()
    return capped_threads(max(1, min(physical, usable_cpus())))


class CpuLoad:
    """Free CPUs since the previous reading; create it early so the first reading has an interval behind it."""

    # Shorter intervals are mostly scheduler noise; the reading then waits this long once.
    MIN_INTERVAL_S = 0.05

    def __init__(self) -> None:
        self._process = psutil.Process()
        self._last = self._sample()

    def free_cpus(self) -> float:
        """Usable CPUs minus what other processes used since the last call (a float, 0 to all of them)."""
        wall, busy, own = self._sample()
        if wall - self._last[0] < self.MIN_INTERVAL_S:
            time.sleep(self.MIN_INTERVAL_S)
            wall, busy, own = self._sample()
        last_wall, last_busy, last_own = self._last
        self._last = (wall, busy, own)
        others = max(0.0, (busy - last_busy) - (own - last_own)) / max(wall - last_wall, 1e-9)
        cpus = usable_cpus()
        return min(float(cpus), max(0.0, cpus - others))

    def _sample(self) -> tuple[float, float, float]:
        """Wall time, the machine's busy CPU seconds and this process's CPU seconds."""
        times = psutil.cpu_times()
        # guest time is already inside user time on Linux; waiting for I/O leaves the CPU free.
        idle = times.idle + sum(getattr(times, name, 0.0) for name in ("iowait", "guest", "guest_nice"))
        busy = sum(times) - idle
        mine = self._process.cpu_times()
        return time.monotonic(), busy, mine.user + mine.system
