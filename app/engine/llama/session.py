"""A loaded target/drafter pair, ready to generate replies.

This is the one place that turns user choices (files, drafter kind, context
size, threads, GPU layers, sampling settings) into a :class:`SpeculativeDecoder`. The
CLI, the GUI's worker thread and the benchmarks all go through it, so the
baseline and the speculative runs always share the same code.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.adaptive.controller import AdaptiveDraftLength, PairProfile
from app.core.adaptive.threads import AdaptiveThreads, FixedThreads, candidate_counts
from app.core.chat import FittedPrompt, Message, fit_conversation
from app.core.decoding.decoder import SpeculativeDecoder, ThreadCount
from app.core.decoding.draft_policy import DraftLengthPolicy, FixedDraftLength
from app.core.decoding.drafters import Drafter, ModelDrafter, NgramDrafter, NoDrafter
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.core.errors import IncompatiblePairError, TandemError
from app.engine.cpu import CpuLoad, max_useful_threads
from app.engine.gguf.header import read_header
from app.engine.gguf.vocab import check_files
from app.engine.llama.chat_template import ChatTemplate
from app.engine.llama.model import LlamaModel, LoadOptions


class DrafterKind(enum.StrEnum):
    """Which drafter proposes tokens."""

    MODEL = "model"
    NGRAM = "ngram"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class PairConfig:
    """Everything needed to load a pair."""

    target: Path
    draft: Path | None = None
    drafter: DrafterKind = DrafterKind.MODEL
    n_ctx: int = 4096
    n_threads: int | None = None  # None: chosen and re-checked while decoding (app.core.adaptive.threads)
    n_gpu_layers: int = 0
    n_gpu_layers_draft: int = 0

    def __post_init__(self) -> None:
        if self.drafter is DrafterKind.MODEL and self.draft is None:
            raise TandemError("a draft model is needed for model drafting (or choose the n-gram drafter or none)")


class LoadedPair:
    """Both models loaded, compatibility checked, chat template ready."""

    def __init__(self, config: PairConfig) -> None:
        self.config = config
        # Created before loading so its first reading has an interval behind it.
        cpu_load = CpuLoad() if config.n_threads is None else None
        target_header = read_header(config.target)
        draft_header = None
        if config.drafter is DrafterKind.MODEL and config.draft is not None:
            draft_header = read_header(config.draft)
            report = check_files(target_header, draft_header)
            if not report.compatible:
                raise IncompatiblePairError(
                    f"{config.draft.name} cannot draft for {config.target.name}: "
                    + "; ".join(str(p) for p in report.problems)
                )
        self.target = LlamaModel(
            config.target,
            LoadOptions(config.n_ctx, n_threads=config.n_threads, n_gpu_layers=config.n_gpu_layers),
            target_header,
        )
        self.draft: LlamaModel | None = None
        try:
            if config.drafter is DrafterKind.MODEL and config.draft is not None:
                self.draft = LlamaModel(
                    config.draft,
                    LoadOptions(config.n_ctx, n_threads=config.n_threads, n_gpu_layers=config.n_gpu_layers_draft),
                    draft_header,
                )
        except BaseException:
            self.target.close()
            raise
        self.template = ChatTemplate(self.target)
        # What the adaptive controller learns about this pair on this machine
        # (costs, typical acceptance): shared by every generation, seeded by pre-flight.
        self.profile = PairProfile()
        # Like the profile, the thread count belongs to the machine: one policy for every reply.
        self.threads: ThreadCount
        if cpu_load is None:
            self.threads = FixedThreads(self.target.threads)
        else:
            candidates = candidate_counts(max_useful_threads())
            self.threads = AdaptiveThreads(candidates, self.set_threads, cpu_load.free_cpus)

    def set_threads(self, n_threads: int) -> None:
        """Both contexts at once: drafting and verifying alternate, so each may use every thread."""
        self.target.set_threads(n_threads)
        if self.draft is not None:
            self.draft.set_threads(n_threads)

    def prompt_tokens(self, messages: Sequence[Message], reserve: int = 0) -> FittedPrompt:
        """Render ``messages``, dropping the oldest turns if the prompt plus ``reserve`` would not fit."""
        return fit_conversation(messages, self.template.render, self.target.n_ctx - max(1, reserve))

    def decoder(
        self,
        params: SamplingParams,
        policy: DraftLengthPolicy | None = None,
        drafter: DrafterKind | None = None,
        draft_length: int | None = None,
        adaptive: bool = True,
    ) -> SpeculativeDecoder:
        """A decoder for one generation; ``drafter`` may override the configured kind (A/B runs).

        The draft length comes from ``policy`` when given, else is fixed at
        ``draft_length`` when given, else is chosen each step by the adaptive
        controller (``adaptive=False`` falls back to a fixed 4). An adaptive
        policy is attached to this pair's shared :attr:`profile`.
        """
        kind = drafter or self.config.drafter
        rng = np.random.default_rng(params.seed)
        if policy is None:
            if kind is DrafterKind.NONE:
                policy = FixedDraftLength(0)
            elif draft_length is not None:
                policy = FixedDraftLength(draft_length)
            elif adaptive:
                policy = AdaptiveDraftLength()
            else:
                policy = FixedDraftLength(4)
        if isinstance(policy, AdaptiveDraftLength) and not policy.attached:
            policy.attach(self.profile.for_drafter(kind.value, params.greedy, remember=kind is DrafterKind.MODEL))
        chosen: Drafter
        if kind is DrafterKind.MODEL:
            if self.draft is None:
                raise TandemError("no draft model is loaded")
            chosen = ModelDrafter(self.draft, LogitsWarper(params, self.draft.n_vocab), rng)
        elif kind is DrafterKind.NGRAM:
            # Matches of three or more tokens: on a CPU a wrong proposal costs a real verify
            # slot, and one- or two-token matches guess wrong most of the time.
            chosen = NgramDrafter(max_ngram=6, min_ngram=3)
        else:
            chosen = NoDrafter()
        return SpeculativeDecoder(self.target, chosen, params, policy, rng, self.threads)

    def close(self) -> None:
        """Free both models."""
        if self.draft is not None:
            self.draft.close()
        self.target.close()

    def __enter__(self) -> LoadedPair:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
