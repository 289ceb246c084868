"""Speculative sampling verification (Leviathan et al. 2023, Chen et al. 2023).

``p_target`` is the target model's distribution, ``q_draft`` the drafter's.
Each drafted token x is kept with probability min(1, p_target(x) / q_draft(x));
the first rejected position is resampled from the normalised residual
max(0, p_target - q_draft); when every draft survives, a bonus token is drawn
from the target's distribution after the last draft. The emitted tokens then
follow p_target exactly, whatever q_draft was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.core.decoding.distribution import TokenDistribution
from app.core.decoding.events import TokenOrigin

# Residual mass below this is float noise: p_target and q_draft agree, so a
# rejection there is itself numerical noise and p_target is the right fallback.
_ZERO_RESIDUAL = 1e-12


@dataclass(frozen=True, slots=True)
class Verdict:
    """Outcome of verifying one draft against the target."""

    n_accepted: int
    next_token: int
    next_origin: TokenOrigin
    rejected_token: int | None
    # The uniform draw of each accept test, in draft order (the last one rejected when
    # ``rejected_token`` is set); the residual's and the bonus's draws are not among them.
    coins: tuple[float, ...] = ()


def acceptance_probability(p_target_x: float, q_draft_x: float) -> float:
    """min(1, p/q) for the drafted token x; q(x) > 0 because x was drawn from q."""
    if q_draft_x <= 0.0:
        return 0.0 if p_target_x <= 0.0 else 1.0
    return min(1.0, p_target_x / q_draft_x)


def probabilities_at(dist: TokenDistribution, ids: np.ndarray) -> np.ndarray:
    """``dist``'s probability of each id in ``ids`` (0 outside its support)."""
    order = np.argsort(dist.ids)
    sorted_ids = dist.ids[order]
    slots = np.searchsorted(sorted_ids, ids)
    slots = np.minimum(slots, sorted_ids.size - 1)
    found = sorted_ids[slots] == ids
    return np.where(found, dist.probs[order][slots], 0.0)


def residual_distribution(p_target: TokenDistribution, q_draft: TokenDistribution) -> TokenDistribution:
    """normalise(max(0, p_target - q_draft)), or p_target itself when that is all zero."""
    residual = p_target.probs - probabilities_at(q_draft, p_target.ids)
    np.maximum(residual, 0.0, out=residual)
    mass = residual.sum()
    if mass <= _ZERO_RESIDUAL:
        return p_target
    keep = residual > 0.0
    return TokenDistribution(p_target.ids[keep], residual[keep] / mass)


def verify_draft(
    draft_tokens: Sequence[int],
    q_draft: Sequence[TokenDistribution],
    p_target: Sequence[TokenDistribution],
    rng: np.random.Generator,
) -> Verdict:
    """Run the accept/reject chain over one draft.

    ``p_target`` has one more row than the draft: row i is the target's
    distribution for position i given the accepted prefix, row K the bonus.
    """
    n_draft = len(draft_tokens)
    if len(q_draft) != n_draft or len(p_target) != n_draft + 1:
        raise ValueError("need K draft distributions and K + 1 target distributions")
    coins: list[float] = []
    for i, token in enumerate(draft_tokens):
        accept = acceptance_probability(p_target[i].prob_of(token), q_draft[i].prob_of(token))
        coin = float(rng.random())
        coins.append(coin)
        if coin < accept:
            continue
        corrected = residual_distribution(p_target[i], q_draft[i]).sample(rng)
        return Verdict(i, corrected, TokenOrigin.CORRECTED, int(token), tuple(coins))
    origin = TokenOrigin.BONUS if n_draft else TokenOrigin.TARGET
    return Verdict(n_draft, p_target[n_draft].sample(rng), origin, None, tuple(coins))
