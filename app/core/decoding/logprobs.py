"""Each emitted token's log-probability under the target, with the most likely alternatives (OpenAI's ``logprobs``).

They come from the target's logits row that verification already holds for
the token's position (no extra model work), read at temperature 1 after the
logit bias (:meth:`~app.core.decoding.sampling.LogitsWarper.log_probabilities`):
the model's own distribution, as OpenAI reports it, not the sampling
transform's truncated one that ``p_target`` in a token's record describes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

MAX_TOP_LOGPROBS = 20  # OpenAI's bound on top_logprobs


@dataclass(frozen=True, slots=True)
class TokenChoice:
    """One token id with its bytes and log-probability."""

    id: int
    piece: bytes
    logprob: float


@dataclass(frozen=True, slots=True)
class TokenLogprobs:
    """An emitted token's own log-probability and the ``top`` most likely tokens at its position, best first."""

    token: TokenChoice
    top: tuple[TokenChoice, ...] = ()


def token_logprobs(
    log_probs: npt.NDArray[np.float64], token: int, n_top: int, token_bytes: Callable[[int], bytes]
) -> TokenLogprobs:
    """The record of ``token`` from its position's log-probabilities over the vocabulary."""
    n_top = max(0, min(n_top, MAX_TOP_LOGPROBS, log_probs.size))
    top: tuple[TokenChoice, ...] = ()
    if n_top:
        best = np.argpartition(-log_probs, n_top - 1)[:n_top]
        # Highest first; equal values in id order, so the list does not depend on the partition's whims.
        best = best[np.lexsort((best, -log_probs[best]))]
        top = tuple(TokenChoice(int(i), token_bytes(int(i)), float(log_probs[i])) for i in best)
    own = TokenChoice(token, token_bytes(token), float(log_probs[token]))
    return TokenLogprobs(own, top)
