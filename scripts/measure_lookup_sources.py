"""Measure prompt lookup's per-step Python time with and without a 100k-token attachment as an extra source.

Each step with no copy under way searches the context (find_match) and every
extra source (its n-gram index: a binary search, then the candidates extended
backwards). This times ``NgramDrafter.propose`` in that worst case, on a
context of ``--context`` tokens and a source of ``--source`` tokens drawn from
a Zipf-like distribution over a 49k vocabulary (so common n-grams recur, as
in real text), and the one-off cost of building the source's index.

    .venv/bin/python scripts/measure_lookup_sources.py [--context 2000] [--source 100000] [--steps 400]

Pure Python and numpy: no model is loaded. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from app.core.decoding.lookup import LookupSource
from app.core.decoding.lookup_drafters import NgramDrafter

VOCAB = 49_152


def _tokens(rng: np.random.Generator, n: int) -> list[int]:
    return [int(t) for t in np.minimum(rng.zipf(1.3, size=n), VOCAB - 1)]


def _per_step_ms(drafter: NgramDrafter, contexts: list[list[int]]) -> list[float]:
    times = []
    for context in contexts:
        drafter.begin(context)  # no copy under way: the full search runs
        started = time.perf_counter()
        drafter.propose(context, 0, None, 16)
        times.append(1000 * (time.perf_counter() - started))
    return times


def main() -> None:
    """Print the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", type=int, default=2000)
    parser.add_argument("--source", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=400)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    source_tokens = _tokens(rng, args.source)
    started = time.perf_counter()
    source = LookupSource("doc", source_tokens, list(range(args.source)), lambda at: f"doc @{at}", 3)
    build_ms = 1000 * (time.perf_counter() - started)
    contexts = [_tokens(rng, args.context) for _ in range(args.steps)]
    plain = _per_step_ms(NgramDrafter(32, 3, lookup_length=16), contexts)
    with_source = _per_step_ms(NgramDrafter(32, 3, lookup_length=16, sources=[source]), contexts)
    print(f"index of a {args.source:,}-token source built in {build_ms:.1f} ms (once per attachment and target)")
    for label, times in (("context only", plain), (f"+ {args.source:,}-token source", with_source)):
        p95 = statistics.quantiles(times, n=20)[-1]
        print(f"{label:>24}: median {statistics.median(times):.3f} ms, p95 {p95:.3f} ms per lookup step")


if __name__ == "__main__":
    main()
