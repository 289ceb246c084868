"""Logits computed the slow, sure way, to check what a reused cache gives.

Not a test module.
"""

from __future__ import annotations

import numpy as np

from app.engine.llama.model import LlamaModel


def fresh_next_logits(model: LlamaModel, prefix: list[int]) -> np.ndarray:
    """Next-token logits for ``prefix`` computed from an empty cache."""
    model.truncate(0)
    model.decode(prefix[:-1], "none")
    return model.decode([prefix[-1]], "last")[0].copy()
