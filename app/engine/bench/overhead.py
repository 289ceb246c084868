"""Per-step Python overhead of the decoder at a real vocabulary size, without real models.

:class:`SyntheticLM` answers ``decode`` with ready-made logits rows of any
vocabulary size (152k for Qwen) in microseconds, so a generation's
``StepTimings.overhead_s`` (time outside the models' calls) is measured
without llama.cpp's seconds of compute drowning it, and without the noise of
other processes slowing the models. The next token is a fixed function of
the previous one; the draft agrees with the target on a chosen share of
positions, so drafts are accepted and rejected as in real use.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import DraftLengthPolicy, FixedDraftLength
from app.core.decoding.drafters import Drafter, DrafterKind, ModelDrafter
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.lookup_drafters import HybridDrafter
from app.core.decoding.model_port import Outputs
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.engine.llama.session import lookup_drafter

QWEN_VOCAB = 151_936


class SyntheticLM:
    """A causal LM whose logits are noise plus a peak on a fixed successor of the previous token."""

    def __init__(self, n_vocab: int, agreement: float = 1.0, seed: int = 0, n_ctx: int = 4096) -> None:
        rng = np.random.default_rng(seed)
        self._n_vocab = n_vocab
        self._n_ctx = n_ctx
        self._noise = (rng.normal(size=(16, n_vocab)) * 2).astype(np.float32)
        self._out = np.empty((17, n_vocab), dtype=np.float32)
        self._tokens: list[int] = []
        # Where this model's peak differs from the true successor (a draft that is sometimes wrong).
        self._wrong = rng.random(n_vocab) >= agreement

    @property
    def n_vocab(self) -> int:
        """Logits per row."""
        return self._n_vocab

    @property
    def n_ctx(self) -> int:
        """Cache capacity."""
        return self._n_ctx

    @property
    def kv_tokens(self) -> Sequence[int]:
        """Tokens in the simulated cache."""
        return self._tokens

    def successor(self, token: int) -> int:
        """The token the target predicts after ``token``."""
        return (token * 7919 + 13) % self._n_vocab

    def decode(self, tokens: Sequence[int], outputs: Outputs) -> npt.NDArray[np.float32]:
        """Rows for the last token (``"last"``) or every token (``"all"``)."""
        self._tokens.extend(int(t) for t in tokens)
        if outputs == "none":
            return self._out[:0]
        chosen = list(tokens) if outputs == "all" else [tokens[-1]]
        rows = self._out[: len(chosen)]
        for i, token in enumerate(chosen):
            np.copyto(rows[i], self._noise[(len(self._tokens) + i) % len(self._noise)])
            peak = self.successor(int(token))
            if self._wrong[token]:
                peak = (peak + 1) % self._n_vocab
            rows[i, peak] += 12.0
        return rows

    def truncate(self, n_keep: int) -> None:
        """Drop cached positions."""
        del self._tokens[n_keep:]

    def token_bytes(self, token: int) -> bytes:
        """A short ASCII piece per token."""
        return b" t%d" % token

    def is_eog(self, token: int) -> bool:
        """Never ends: generations run to their token limit."""
        return False


@dataclass(frozen=True, slots=True)
class OverheadResult:
    """Per-step Python overhead of one setting."""

    label: str
    drafter: str
    n_vocab: int
    temperature: float
    draft_length: int | str
    steps: int
    tokens: int
    median_ms: float
    mean_ms: float
    p90_ms: float


def measure_overhead(
    n_vocab: int = QWEN_VOCAB,
    draft_length: int | None = 4,
    temperature: float = 0.0,
    tokens: int = 200,
    agreement: float = 0.7,
    trace: bool = False,
    drafter: DrafterKind = DrafterKind.MODEL,
    prompt_tokens: int = 3,
) -> OverheadResult:
    """Generate ``tokens`` tokens with synthetic models and report ``StepTimings.overhead_s`` per step.

    ``draft_length`` 0 is target-only, None the adaptive controller; ``trace`` builds each step's record
    (what the window and ``chat --chat`` pay for replay). ``drafter`` picks the draft model, prompt
    lookup or the hybrid of both; ``prompt_tokens`` > 3 makes a prompt of that length holding the
    reply the target is about to write (its chain of successors, from 100 tokens in), so lookup has a
    copy to follow across a context the size of a real one.
    """
    params = SamplingParams(temperature=temperature, seed=0)
    rng = np.random.default_rng(0)
    target = SyntheticLM(n_vocab, 1.0, seed=1)
    policy: DraftLengthPolicy = AdaptiveDraftLength() if draft_length is None else FixedDraftLength(draft_length)
    prompt = [1, 2, 3]
    if prompt_tokens > len(prompt):
        chain = [5]
        while len(chain) < prompt_tokens - 1:
            chain.append(target.successor(chain[-1]))
        prompt = [*chain, chain[min(100, len(chain) - 1)]]
    chosen: Drafter | None = None
    if draft_length != 0:
        # The app's own lookup (its n-gram sizes, and the adaptive policy's judge where there is one).
        lookup = lookup_drafter(policy if isinstance(policy, AdaptiveDraftLength) else None)
        if drafter is DrafterKind.NGRAM:
            chosen = lookup
        else:
            draft = SyntheticLM(n_vocab, agreement, seed=2)
            chosen = ModelDrafter(draft, LogitsWarper(params, n_vocab), rng)
            if drafter is DrafterKind.HYBRID:
                chosen = HybridDrafter(chosen, lookup)
    decoder = SpeculativeDecoder(target, chosen, params, policy, rng, trace=trace)
    overheads = []
    emitted = 0
    for event in decoder.generate(GenerationRequest(prompt, max_tokens=tokens)):
        if isinstance(event, StepEvent):
            overheads.append(event.timings.overhead_s * 1000)
            emitted += len(event.tokens)
        elif isinstance(event, FinishedEvent):
            break
    ordered = sorted(overheads)
    label = "target only" if draft_length == 0 else ("adaptive" if draft_length is None else f"K={draft_length}")
    return OverheadResult(
        label=label,
        drafter="none" if draft_length == 0 else drafter.value,
        n_vocab=n_vocab,
        temperature=temperature,
        draft_length="adaptive" if draft_length is None else draft_length,
        steps=len(overheads),
        tokens=emitted,
        median_ms=statistics.median(overheads),
        mean_ms=statistics.fmean(overheads),
        p90_ms=ordered[int(0.9 * (len(ordered) - 1))],
    )
