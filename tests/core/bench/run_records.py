"""Benchmark run records built by hand, with only the fields a test cares about.

Not a test module.
"""

from __future__ import annotations

from typing import Any

from app.core.bench.stats import RunRecord


def run(
    config: str,
    prompt_id: str,
    repeat: int,
    *,
    emitted: int = 10,
    generation_s: float = 1.0,
    tokens: tuple[int, ...] | None = None,
    category: str = "code",
    regime: str = "q4",
    temperature: float = 0.0,
    **fields: Any,
) -> RunRecord:
    """A record with only the fields a test cares about; tokens default to ``range(emitted)``."""
    defaults: dict[str, Any] = {"steps": 1, "drafted": 0, "accepted": 0, "prefill_s": 0.0, "overhead_s": 0.0}
    return RunRecord(
        regime=regime,
        config=config,
        category=category,
        prompt_id=prompt_id,
        temperature=temperature,
        repeat=repeat,
        tokens=tuple(range(emitted)) if tokens is None else tokens,
        generation_s=generation_s,
        **(defaults | fields),
    )
