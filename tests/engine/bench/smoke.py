"""Shared by the benchmark's tests: the smoke suite and the settings that run it quickly. Not a test module."""

from __future__ import annotations

from app.engine.bench.suite import BenchSettings
from tests.paths import REPO_ROOT

SMOKE_SUITE = REPO_ROOT / "resources" / "bench_prompts_smoke.json"


def smoke_settings(**changes: object) -> BenchSettings:
    """The smoke suite once on one thread and a small context, without pre-flight or waiting for a quiet machine.

    CI machines are shared: these runs check the report's shape, not the speed. One thread, because llama.cpp's
    threads wait on each other at every step: on a loaded machine two threads can take many times as long as one.
    Without the synthetic overhead table, which does not depend on the run (the smoke report's fixture has it).
    """
    base: dict[str, object] = {
        "repeats": 1,
        "n_threads": 1,
        "n_ctx": 512,
        "preflight": False,
        "max_wait_s": 0.0,
        "overhead_probe": False,
    }
    return BenchSettings(suite=SMOKE_SUITE, **{**base, **changes})  # type: ignore[arg-type]
