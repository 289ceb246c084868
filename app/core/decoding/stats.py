"""Acceptance and speed statistics accumulated over verify steps.

Definitions: acceptance rate = accepted / drafted; mean accepted
length = accepted / steps; tokens per target pass = emitted / steps.
The two expected-acceptance figures average, over every draft position the
verifier reached, what exact rejection sampling and sample-and-match would
keep there (:mod:`app.core.decoding.acceptance_rules`); the measured rate to
set beside them is accepted / verified.

The prompt's figures (:class:`~app.core.decoding.events.PromptFigures`: its tokens, how many the target's
KV cache already held, the prefill time and the time to the first token) are
written into the summary by :meth:`PromptFigures.to_dict` and read back from a
stored one by :meth:`PromptFigures.from_dict`, their one serialisation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.core.decoding.events import PromptFigures, StepEvent

__all__ = ["GenerationStats", "PromptFigures"]


@dataclass(slots=True)
class GenerationStats:
    """Running totals for one generation (or one session, if never reset)."""

    steps: int = 0
    drafted: int = 0
    accepted: int = 0
    emitted: int = 0
    prompt_tokens: int = 0
    prompt_reused: int | None = 0  # prompt tokens the target's KV cache already held (None: a server did not say)
    prefill_s: float = 0.0
    time_to_first_token_s: float = 0.0  # from the start to the first verify step's tokens (0: no step yet)
    # Tokens the draft model read to catch its cache up before drafting (the prompt too: it is read
    # lazily, on the first draft): 0 for a reply in which the draft model never drafted.
    draft_caught_up: int = 0
    draft_s: float = 0.0
    verify_s: float = 0.0
    total_s: float = 0.0
    # attempts[i] / hits[i]: how often draft position i was verified / accepted.
    position_attempts: list[int] = field(default_factory=list)
    position_hits: list[int] = field(default_factory=list)
    last_draft_length: int = 0
    drafting_steps: int = 0  # steps that drafted at least one token
    rejection_sampling_sum: float = 0.0
    sample_and_match_sum: float = 0.0
    rule_positions: int = 0
    threads: int = 0  # CPU threads of the latest step (0: not known, e.g. a model without threads)
    threads_auto: bool = False  # chosen by measurement (app.core.adaptive.threads), not forced
    # Per drafter that proposed ("model", "lookup"): [drafted, accepted], so a hybrid's two sources read apart.
    by_source: dict[str, list[int]] = field(default_factory=dict)
    # Accepted lookup tokens per place copied from ("report.pdf, p. 3", "earlier in this chat").
    copied: dict[str, int] = field(default_factory=dict)

    def record(self, event: StepEvent) -> None:
        """Add one verify step."""
        self.steps += 1
        self.drafted += event.drafted
        self.accepted += event.accepted
        self.emitted += len(event.tokens)
        self.draft_s += event.timings.draft_s
        self.draft_caught_up += event.draft_caught_up
        if event.prompt is not None:  # the first step tells how the prompt was read
            self.prompt_tokens = event.prompt.prompt_tokens
            self.prompt_reused = event.prompt.prompt_reused
            self.prefill_s = event.prompt.prefill_ms / 1000.0
            self.time_to_first_token_s = event.prompt.time_to_first_token_ms / 1000.0
        self.verify_s += event.timings.verify_s
        self.total_s += event.timings.total_s
        self.last_draft_length = event.draft_length
        if event.threads:
            self.threads = event.threads
            self.threads_auto = event.threads_auto
        for token in event.tokens:
            if token.copied_from is not None:
                self.copied[token.copied_from] = self.copied.get(token.copied_from, 0) + 1
        if event.drafted:
            self.drafting_steps += 1
            counts = self.by_source.setdefault(event.draft_source or "model", [0, 0])
            counts[0] += event.drafted
            counts[1] += event.accepted
        self.rejection_sampling_sum += sum(event.rejection_sampling_expected)
        self.sample_and_match_sum += sum(event.sample_and_match_expected)
        self.rule_positions += len(event.rejection_sampling_expected)
        while len(self.position_attempts) < event.drafted:
            self.position_attempts.append(0)
            self.position_hits.append(0)
        # Position i is only verified when every earlier position was accepted.
        verified = min(event.drafted, event.accepted + 1)
        for i in range(verified):
            self.position_attempts[i] += 1
            if i < event.accepted:
                self.position_hits[i] += 1

    def prompt_figures_now(self) -> PromptFigures:
        """The prompt's figures as they stand (the decoder puts them on the first step's event)."""
        return PromptFigures(
            self.prompt_tokens, self.prompt_reused, 1000.0 * self.prefill_s, 1000.0 * self.time_to_first_token_s
        )

    @property
    def prompt_figures(self) -> PromptFigures | None:
        """The prompt's figures, once the first step has run (None before, or where no one measured them)."""
        if not self.steps or self.time_to_first_token_s <= 0.0:
            return None
        return self.prompt_figures_now()

    @property
    def acceptance_rate(self) -> float:
        """Accepted drafts over drafted tokens (0 when nothing was drafted)."""
        return self.accepted / self.drafted if self.drafted else 0.0

    @property
    def verified(self) -> int:
        """Draft tokens the target actually judged (those after a rejection never are)."""
        return sum(self.position_attempts)

    @property
    def verified_acceptance_rate(self) -> float:
        """Accepted over verified draft tokens: the measured counterpart of the expected rates below."""
        verified = self.verified
        return self.accepted / verified if verified else 0.0

    @property
    def rejection_sampling_expected(self) -> float:
        """Mean expected acceptance of exact rejection sampling, sum min(p_target, q_draft), per verified draft."""
        return self.rejection_sampling_sum / self.rule_positions if self.rule_positions else 0.0

    @property
    def sample_and_match_expected(self) -> float:
        """Mean expected acceptance of sample-and-match, sum p_target * q_draft, on the same positions."""
        return self.sample_and_match_sum / self.rule_positions if self.rule_positions else 0.0

    def source_acceptance(self, source: str) -> float:
        """Accepted over drafted for the proposals of one drafter (0 when it proposed nothing)."""
        drafted, accepted = self.by_source.get(source, (0, 0))
        return accepted / drafted if drafted else 0.0

    @property
    def mean_accepted_length(self) -> float:
        """Accepted draft tokens per verify step."""
        return self.accepted / self.steps if self.steps else 0.0

    @property
    def tokens_per_step(self) -> float:
        """Emitted tokens per target forward pass."""
        return self.emitted / self.steps if self.steps else 0.0

    @property
    def tokens_per_second(self) -> float:
        """Generation speed, prompt processing excluded."""
        return self.emitted / self.total_s if self.total_s > 0 else 0.0

    @property
    def overhead_ms_per_step(self) -> float:
        """Mean time per step spent outside llama.cpp calls."""
        if not self.steps:
            return 0.0
        return 1000.0 * max(0.0, self.total_s - self.draft_s - self.verify_s) / self.steps

    @property
    def per_position_acceptance(self) -> list[float]:
        """For each draft position, accepted / verified there."""
        return [
            hit / attempt if attempt else 0.0
            for hit, attempt in zip(self.position_hits, self.position_attempts, strict=False)
        ]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (with the prompt's figures once a step has run)."""
        figures = self.prompt_figures
        return {
            "tokens_per_second": self.tokens_per_second,
            "drafted": self.drafted,
            "accepted": self.accepted,
            "steps": self.steps,
            "emitted": self.emitted,
            "acceptance_rate": self.acceptance_rate,
            "mean_accepted_length": self.mean_accepted_length,
            "tokens_per_step": self.tokens_per_step,
            "per_position_acceptance": self.per_position_acceptance,
            "drafting_steps": self.drafting_steps,
            "verified": self.verified,
            "verified_acceptance_rate": self.verified_acceptance_rate,
            "rejection_sampling_expected": self.rejection_sampling_expected,
            "sample_and_match_expected": self.sample_and_match_expected,
            "prompt_tokens": self.prompt_tokens,
            "prefill_s": self.prefill_s,
            "generation_s": self.total_s,
            "draft_s": self.draft_s,
            "verify_s": self.verify_s,
            "overhead_ms_per_step": self.overhead_ms_per_step,
            "threads": self.threads,
            "threads_auto": self.threads_auto,
            "by_source": {source: {"drafted": d, "accepted": a} for source, (d, a) in self.by_source.items()},
            "copied": dict(self.copied),
            # The running sums behind the rates, so a stored reply's statistics can be shown again.
            "position_attempts": list(self.position_attempts),
            "position_hits": list(self.position_hits),
            "rejection_sampling_sum": self.rejection_sampling_sum,
            "sample_and_match_sum": self.sample_and_match_sum,
            "rule_positions": self.rule_positions,
            "last_draft_length": self.last_draft_length,
            "draft_caught_up": self.draft_caught_up,
            **(figures.to_dict() if figures is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GenerationStats:
        """Rebuild statistics from :meth:`to_dict` (a stored reply's); never raises.

        Records stored before the running sums were kept lack the per-position and
        expected-acceptance sums: those read as empty, the counts and times still show.
        A value of the wrong type reads as missing.
        """

        def number(key: str, kind: type[int] | type[float]) -> Any:
            value = data.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float):
                return kind(0)
            return kind(value)

        def counts(key: str) -> list[int]:
            value = data.get(key)
            if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                return []
            return list(value)

        attempts, hits = counts("position_attempts"), counts("position_hits")
        if len(attempts) != len(hits):
            attempts, hits = [], []
        by_source: dict[str, list[int]] = {}
        raw_sources = data.get("by_source")
        if isinstance(raw_sources, Mapping):
            for source, pair in raw_sources.items():
                if (
                    isinstance(pair, Mapping)
                    and isinstance(pair.get("drafted"), int)
                    and isinstance(pair.get("accepted"), int)
                ):
                    by_source[str(source)] = [pair["drafted"], pair["accepted"]]
        raw_copied = data.get("copied")
        copied = (
            {str(k): v for k, v in raw_copied.items() if isinstance(v, int) and not isinstance(v, bool)}
            if isinstance(raw_copied, Mapping)
            else {}
        )
        figures = PromptFigures.from_dict(data)  # None for replies stored before the prompt's figures
        return cls(
            prompt_reused=figures.prompt_reused if figures is not None else 0,
            time_to_first_token_s=figures.time_to_first_token_ms / 1000.0 if figures is not None else 0.0,
            draft_caught_up=number("draft_caught_up", int),
            steps=number("steps", int),
            drafted=number("drafted", int),
            accepted=number("accepted", int),
            emitted=number("emitted", int),
            prompt_tokens=number("prompt_tokens", int),
            prefill_s=number("prefill_s", float),
            draft_s=number("draft_s", float),
            verify_s=number("verify_s", float),
            total_s=number("generation_s", float),
            position_attempts=attempts,
            position_hits=hits,
            last_draft_length=number("last_draft_length", int),
            drafting_steps=number("drafting_steps", int),
            rejection_sampling_sum=number("rejection_sampling_sum", float),
            sample_and_match_sum=number("sample_and_match_sum", float),
            rule_positions=number("rule_positions", int),
            threads=number("threads", int),
            threads_auto=data.get("threads_auto") is True,
            by_source=by_source,
            copied=copied,
        )
