"""What the decoder reports: tokens tagged by origin, one event per verify step.

The view decides how each origin looks; these types only say where a token
came from, so the CLI, the GUI and the tests all read the same facts. Each
token is a :class:`~app.core.reply.token_record.TokenRecord`, the one record
of a token the store, the view and every JSON format share. A
reply's first step also says how its prompt was read (:class:`PromptFigures`,
with its one serialisation into a statistics summary and back).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

from app.core.decoding.logprobs import TokenLogprobs
from app.core.display.wording import QT_TRANSLATE_NOOP, Words

if TYPE_CHECKING:
    from app.core.decoding.stats import GenerationStats
    from app.core.reply.step_record import StepRecord
    from app.core.reply.token_record import TokenRecord


class TokenOrigin(enum.StrEnum):
    """Where an emitted token came from."""

    DRAFT = "draft"  # proposed by the drafter and accepted by the target
    CORRECTED = "corrected"  # sampled by the target after it rejected a draft token
    BONUS = "bonus"  # sampled by the target after it accepted the whole draft
    TARGET = "target"  # plain target decoding, no draft this step


@dataclass(frozen=True, slots=True)
class StepTimings:
    """Wall time of one verify step, split by where it went (seconds)."""

    draft_s: float
    verify_s: float
    total_s: float

    @property
    def overhead_s(self) -> float:
        """Time spent outside the two models' llama.cpp calls: Python bookkeeping."""
        return max(0.0, self.total_s - self.draft_s - self.verify_s)


# The prompt figures' line (the footer, the Stats tab), said in the window's language there.
_FIGURES = QT_TRANSLATE_NOOP("PromptFigures", "first token {ms:,.0f} ms  ·  {speed}  ·  {cache}")
_PROMPT_SPEED = QT_TRANSLATE_NOOP("PromptFigures", "prompt {rate:,.0f} tok/s")
_PROMPT_UNKNOWN = QT_TRANSLATE_NOOP("PromptFigures", "prompt —")
_FROM_CACHE = QT_TRANSLATE_NOOP("PromptFigures", "{reused:,} of {tokens:,} prompt tokens from cache")
_CACHE_UNKNOWN = QT_TRANSLATE_NOOP(
    "PromptFigures", "{tokens:,} prompt tokens (the server does not say how many it had cached)"
)


@dataclass(frozen=True, slots=True)
class PromptFigures:
    """How a reply's prompt was read: the numbers its footer, the Stats tab and ``chat --json`` show."""

    prompt_tokens: int
    prompt_reused: int | None  # prompt tokens the target's KV cache already held (None: a server did not say)
    prefill_ms: float  # the target reading the rest of the prompt
    time_to_first_token_ms: float  # from the reply's start to its first verify step's tokens

    @property
    def prompt_read(self) -> int | None:
        """Prompt tokens the target read in the prefill (the last one is read by the first step; None: not known)."""
        if self.prompt_reused is None:
            return None
        return max(0, self.prompt_tokens - self.prompt_reused - 1)

    @property
    def prompt_tokens_per_second(self) -> float | None:
        """The prefill's speed (None when it read nothing, took no measurable time or is not known)."""
        read = self.prompt_read
        if read is None or read <= 0 or self.prefill_ms <= 0.0:
            return None
        return read / (self.prefill_ms / 1000.0)

    @property
    def cache_words(self) -> str:
        """How many prompt tokens came from the cache, of how many."""
        return str(self._cache_sentence())

    def _cache_sentence(self) -> Words:
        if self.prompt_reused is None:
            return _CACHE_UNKNOWN.fill(tokens=self.prompt_tokens)
        return _FROM_CACHE.fill(reused=self.prompt_reused, tokens=self.prompt_tokens)

    def words(self) -> str:
        """The footer's and the Stats tab's line: time to first token, prompt speed, what the cache gave."""
        return str(self.sentence())

    def sentence(self) -> Words:
        """:meth:`words` translatable, its numbers kept for the window's locale."""
        rate = self.prompt_tokens_per_second
        speed = _PROMPT_SPEED.fill(rate=rate) if rate is not None else _PROMPT_UNKNOWN
        return _FIGURES.fill(ms=self.time_to_first_token_ms, speed=speed, cache=self._cache_sentence())

    def to_dict(self) -> dict[str, Any]:
        """The keys a statistics summary carries (``chat --json``, the stored reply)."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "prompt_reused": self.prompt_reused,
            "prefill_ms": self.prefill_ms,
            "time_to_first_token_ms": self.time_to_first_token_ms,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> PromptFigures | None:
        """Read back from a summary; None for one written before these figures were kept (or damaged)."""
        if not isinstance(data, Mapping):
            return None
        tokens, reused = data.get("prompt_tokens"), data.get("prompt_reused")
        prefill, first = data.get("prefill_ms"), data.get("time_to_first_token_ms")
        if not (_is_count(tokens) and (reused is None or _is_count(reused)) and _is_ms(prefill) and _is_ms(first)):
            return None
        return cls(tokens, reused, float(prefill), float(first))


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_ms(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


@dataclass(frozen=True, slots=True, kw_only=True)
class StepEvent:
    """Everything one draft-and-verify step produced; built with keywords only (fourteen fields, several alike)."""

    tokens: tuple[TokenRecord, ...]  # a corrected token carries the draft proposal it replaced
    drafted: int
    accepted: int
    draft_length: int  # the length the drafter was asked for this step
    timings: StepTimings
    # The model drafter's own top probability before each proposal (empty when
    # not measured): what the adaptive controller calibrates its early stop on.
    draft_confidence: tuple[float, ...] = ()
    # For each draft position the verifier reached: the expected acceptance of exact
    # rejection sampling, sum min(p_target, q_draft), and of sample-and-match,
    # sum p_target * q_draft (app.core.decoding.acceptance_rules), from the same rows.
    rejection_sampling_expected: tuple[float, ...] = ()
    sample_and_match_expected: tuple[float, ...] = ()
    # The CPU threads the step ran with (0: not known) and whether a policy chose them by measurement.
    threads: int = 0
    threads_auto: bool = False
    draft_source: str | None = None  # which drafter proposed this step's draft ("model", "lookup"); None: no draft
    # Tokens the draft model read to catch its cache up before this step's draft: usually 1-2, the whole
    # prompt (less what its cache held) on its first draft of a reply, since the draft's prefill is lazy.
    draft_caught_up: int = 0
    # On a reply's first step only: how its prompt was read (tokens, reused, prefill, time to first token).
    prompt: PromptFigures | None = None
    # The step as kept for replay (app.core.reply.step_record); only a decoder made with trace=True builds it.
    record: StepRecord | None = None
    # One per token, in order, when the request asked for log-probabilities (app.core.decoding.logprobs).
    logprobs: tuple[TokenLogprobs, ...] = ()

    @property
    def text(self) -> str:
        """The text this step added to the reply."""
        return "".join(token.text for token in self.tokens)

    @property
    def token_ids(self) -> list[int]:
        """The ids of this step's tokens (all of them from a local decoder; a token without one is left out)."""
        return [token.id for token in self.tokens if token.id is not None]


class FinishReason(enum.StrEnum):
    """Why generation ended; :meth:`to_openai` and :meth:`from_openai` are the one mapping to OpenAI's words."""

    EOG = "eog"  # the target produced an end-of-generation token
    STOP_STRING = "stop"
    MAX_TOKENS = "length"
    CONTEXT_FULL = "context"
    CANCELLED = "cancelled"

    def to_openai(self) -> str:
        """OpenAI's ``finish_reason``: "length" when a limit cut the reply (the context is one), else "stop".

        OpenAI has no word for a cancelled reply; the client that cancelled knows,
        and "stop" is what llama-server sends for it too.
        """
        return "length" if self in (FinishReason.MAX_TOKENS, FinishReason.CONTEXT_FULL) else "stop"

    @classmethod
    def from_openai(cls, text: str) -> FinishReason:
        """Our reason for an OpenAI ``finish_reason``: "length" is the token limit, anything else the model's end.

        The way back loses what OpenAI's words do not say: a stop string and
        the model's own end both arrive as "stop" and read as EOG, a full
        context as "length". "tool_calls", "content_filter" and unknown words
        mean the server ended the reply itself, which reads as EOG too.
        """
        return cls.MAX_TOKENS if text == "length" else cls.EOG


@dataclass(frozen=True, slots=True)
class FinishedEvent:
    """The last event of a generation."""

    reason: FinishReason
    text: str
    stats: GenerationStats
