"""Expected acceptance of one draft position under two verification rules.

Exact rejection sampling (Leviathan et al. 2023, :mod:`app.core.decoding.verification`)
keeps a drafted token x ~ q_draft with probability min(1, p_target(x) / q_draft(x)),
so its expected acceptance is the overlap of the two distributions,
sum over x of min(p_target(x), q_draft(x)) = 1 - total variation distance.

Sample-and-match (what llama.cpp's ``llama-speculative-simple`` does) draws the
target's own token y ~ p_target independently and keeps the draft only when
y == x, so its expected acceptance is sum over x of p_target(x) * q_draft(x).
That is never above the overlap, and it falls quickly as temperature spreads
both distributions: the seeds' "temperature kills acceptance". Both are
computed from the same sparse rows the verifier already holds.
"""

from __future__ import annotations

import numpy as np

from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.verification import probabilities_at


def rejection_sampling_acceptance(p_target: TokenDistribution, q_draft: TokenDistribution) -> float:
    """Sum over x of min(p_target(x), q_draft(x)): the chance exact verification keeps a draft from q_draft."""
    # Outside q's support min(p, q) is 0, so q's support is enough.
    p_at_q = probabilities_at(p_target, q_draft.ids)
    return float(np.minimum(p_at_q, q_draft.probs).sum())


def sample_and_match_acceptance(p_target: TokenDistribution, q_draft: TokenDistribution) -> float:
    """Sum over x of p_target(x) * q_draft(x): the chance an independent target sample equals the draft's."""
    p_at_q = probabilities_at(p_target, q_draft.ids)
    return float(np.dot(p_at_q, q_draft.probs))
