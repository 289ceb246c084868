"""The statistics panel's wording for the draft length the adaptive controller chose."""

from __future__ import annotations

import pytest

from app.core.decoding.stats import GenerationStats
from app.ui.stats_panel import StatsPanel


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
