"""The overhead probe's rows per drafter: synthetic models, so no weights and no timing asserted."""

from __future__ import annotations

from app.core.decoding.drafters import DrafterKind
from app.engine.bench.overhead import measure_overhead


def test_lookup_rows_copy_from_a_long_prompt_and_the_hybrid_drafts_with_both() -> None:
    lookup = measure_overhead(20_000, None, 0.0, 120, drafter=DrafterKind.NGRAM, prompt_tokens=1500)
    hybrid = measure_overhead(20_000, 4, 0.0, 120, drafter=DrafterKind.HYBRID, prompt_tokens=1500)
    plain = measure_overhead(20_000, 0, 0.0, 120)
    assert (lookup.drafter, hybrid.drafter, plain.drafter) == ("ngram", "hybrid", "none")
    # The reply repeats the prompt, so lookup proposes and fewer verify steps than tokens are needed.
    assert lookup.tokens == hybrid.tokens == plain.tokens == 120
    assert plain.steps == 120
    assert lookup.steps < 60 and hybrid.steps < 60
