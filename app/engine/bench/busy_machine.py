"""The thread benchmark: auto against fixed thread counts with CPU-bound processes running beside.

llama.cpp's threads spin-wait, so a busy core slows every thread (issue 17);
the auto policy (:mod:`app.core.adaptive.threads`) should find the faster
count by itself. This bench starts ``background`` CPU-bound child processes
for the whole run, then runs one loaded pair under each setting (auto, and
each fixed count) in turn, the order rotated every repeat so a change in the
machine's load falls on all settings alike, and reports medians. The settings
share one loaded pair: a fixed count is set with ``llama_set_n_threads``, and
the auto policy is created once, as a loaded pair's is, so its first reply
includes its first exploration, as a user's first reply does.

The main benchmark (:mod:`app.engine.bench.runner`) waits for a quiet machine;
this one needs the load, so it is separate.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from app.core.adaptive.threads import AdaptiveThreads, FixedThreads
from app.core.conversation.chat import Message
from app.core.decoding.decoder import GenerationRequest, ThreadCount
from app.core.decoding.events import FinishedEvent
from app.core.decoding.sampling import SamplingParams
from app.core.reply.plan import DraftPlan
from app.engine.llama.session import LoadedPair

AUTO = "auto"
PROMPTS = (
    "Write a Python function that parses a date like 2024-03-01 and returns the weekday name.",
    "Explain in a few paragraphs why the sky is blue, for a curious twelve-year-old.",
    "Write a shell script that renames every .jpeg file in a folder to .jpg, with comments.",
)
# The untimed reply before the measured ones.
WARM_UP_TOKENS = 16
# A child that keeps one CPU busy until killed, the competing program of the measurement.
# It also ends when its parent has gone (killed without cleaning up), so no spinner outlives the bench.
SPIN_MARKER = "# tandem background load"
_SPIN = f"""{SPIN_MARKER}
import os
parent = os.getppid()
while os.getppid() == parent:
    for _ in range(200_000):
        pass
"""


@dataclass(slots=True)
class BusyRun:
    """One reply under one setting."""

    setting: str
    repeat: int
    tokens_per_second: float
    emitted: int
    threads_at_end: int
    text: str


@dataclass(slots=True)
class BusyReport:
    """All runs, with the machine's state around them."""

    background: int
    cpus: int
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    runs: list[BusyRun] = field(default_factory=list)
    auto_rounds: int = 0

    @property
    def same_text(self) -> bool:
        """Whether every setting wrote the same greedy reply in each repeat (threads must not change the output)."""
        repeats = {r.repeat for r in self.runs}
        return all(len({r.text for r in self.runs if r.repeat == i}) == 1 for i in repeats)

    def median(self, setting: str) -> float:
        """Median tokens per second of ``setting``'s runs."""
        return statistics.median(r.tokens_per_second for r in self.runs if r.setting == setting)

    @property
    def settings(self) -> list[str]:
        """The settings in the order they first ran."""
        return list(dict.fromkeys(r.setting for r in self.runs))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready report: medians, ratios to each fixed setting, every run."""
        medians = {s: self.median(s) for s in self.settings}
        auto = medians.get(AUTO)
        ratios = {f"auto_vs_{s}": auto / m for s, m in medians.items() if s != AUTO and auto and m > 0}
        return {
            "background_processes": self.background,
            "cpus": self.cpus,
            "load_average_before": list(self.load_before),
            "load_average_after": list(self.load_after),
            "medians_tokens_per_second": medians,
            "ratios": ratios,
            "auto_exploration_rounds": self.auto_rounds,
            "same_text_in_every_repeat": self.same_text,
            "runs": [
                {
                    "setting": r.setting,
                    "repeat": r.repeat,
                    "tokens_per_second": r.tokens_per_second,
                    "emitted": r.emitted,
                    "threads_at_end": r.threads_at_end,
                }
                for r in self.runs
            ],
        }


@contextmanager
def background_load(processes: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``processes`` CPU-bound children for the duration of the block; always killed afterwards."""
    children: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(processes):
            children.append(subprocess.Popen([sys.executable, "-c", _SPIN], stdin=subprocess.DEVNULL))
        if children:
            time.sleep(0.5)  # let them start spinning before the first measurement
        yield children
    finally:
        for child in children:
            child.kill()
        for child in children:
            child.wait()


def run_busy_bench(
    pair: LoadedPair,
    auto: AdaptiveThreads,
    fixed: Sequence[int],
    background: int,
    repeats: int = 3,
    max_tokens: int = 160,
    progress: Callable[[str], None] | None = None,
) -> BusyReport:
    """Interleaved runs of auto and each fixed count on ``pair``, with ``background`` busy processes beside."""
    settings: dict[str, ThreadCount] = {AUTO: auto, **{str(n): FixedThreads(n) for n in fixed}}
    names = list(settings)
    params = SamplingParams(temperature=0.0)
    report = BusyReport(background, os.cpu_count() or 1, os.getloadavg())
    with background_load(background):
        # One short reply first, untimed, at the smallest fixed count (the auto policy is not touched): the
        # process's first reply pays for cold weights and caches, and the rotation would charge that to
        # whichever setting happened to run first (auto, 0.74x of a fixed count in issue 31's first run).
        warm = FixedThreads(min(fixed, default=1))
        pair.set_threads(warm.threads)
        pair.threads = warm
        _generate(pair, params, pair.template.render([Message("user", PROMPTS[0])]), WARM_UP_TOKENS)
        for repeat in range(repeats):
            prompt = pair.template.render([Message("user", PROMPTS[repeat % len(PROMPTS)])])
            # Rotate the order so no setting always runs first (or always right after another).
            for name in names[repeat % len(names) :] + names[: repeat % len(names)]:
                policy = settings[name]
                pair.set_threads(policy.threads)
                pair.threads = policy
                finished = _generate(pair, params, prompt, max_tokens)
                stats = finished.stats
                run = BusyRun(name, repeat, stats.tokens_per_second, stats.emitted, stats.threads, finished.text)
                report.runs.append(run)
                if progress is not None:
                    progress(f"repeat {repeat + 1}/{repeats} {name:>4}: {run.tokens_per_second:5.1f} tok/s")
    report.load_after = os.getloadavg()
    report.auto_rounds = auto.rounds
    return report


def _generate(pair: LoadedPair, params: SamplingParams, prompt: list[int], max_tokens: int) -> FinishedEvent:
    decoder = pair.decoder(params, DraftPlan.for_run(pair.config.drafter, None).policy())
    for event in decoder.generate(GenerationRequest(prompt, max_tokens=max_tokens)):
        if isinstance(event, FinishedEvent):
            return event
    raise RuntimeError("the decoder ended without a FinishedEvent")


def format_busy_report(report: BusyReport) -> str:
    """A Markdown table of medians and ratios, with the load average beside them."""
    data = report.to_dict()
    medians: dict[str, float] = data["medians_tokens_per_second"]
    auto = medians.get(AUTO, 0.0)
    lines = [
        f"Threads with {report.background} CPU-bound background process(es), {report.cpus} CPUs; "
        f"load average before {report.load_before[0]:.2f}, after {report.load_after[0]:.2f}; "
        f"medians of {len(report.runs) // max(1, len(medians))} interleaved repeats.",
        "",
        "| setting | tok/s (median) | auto vs this | threads at end of each run |",
        "|---|---|---|---|",
    ]
    for name, median in medians.items():
        ratio = "–" if name == AUTO or median <= 0 else f"{auto / median:.2f}x"
        ends = ", ".join(str(r.threads_at_end) for r in report.runs if r.setting == name)
        lines.append(f"| {name if name == AUTO else 'fixed ' + name} | {median:.1f} | {ratio} | {ends} |")
    lines.append("")
    same = "the same" if report.same_text else "NOT the same"
    lines.append(f"auto explored {report.auto_rounds} time(s); the greedy replies were {same} in every setting.")
    return "\n".join(lines)
