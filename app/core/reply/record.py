"""What a stored reply records: typed, with one serialisation (the message's ``meta`` JSON) each way.

:class:`Provenance` is what produced the reply (pair, drafter, draft-length
policy, sampling, system prompt, seed, the output format a grammar held it
to), stored under ``meta["produced_by"]``;
:class:`ReplyRecord` is the whole of a reply's metadata (its provenance, the
prompt numbers, the statistics and how it ended). Both read whatever an older
Tandem, an import or a damaged row left there without raising: a missing or
mistyped value becomes its default, because a chat must always open. Keys
this module does not know (the store's own ``continued_at_token``) are kept
by :meth:`ReplyRecord.to_meta` when the caller passes the old metadata on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.core.attachments.record import AttachmentUse, uses_from_json
from app.core.conversation.output_format import OutputFormat, OutputKind
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.events import FinishReason
from app.core.decoding.sampling import (
    MAX_TOKENS,
    MIN_P,
    REPEAT_PENALTY,
    TEMPERATURE,
    TOP_K,
    TOP_P,
    SamplingParams,
)
from app.core.decoding.stats import GenerationStats, PromptFigures

# Replies that can be continued: cut at the token limit or stopped (by the user or a crash).
CONTINUABLE_REASONS = frozenset({FinishReason.MAX_TOKENS.value, FinishReason.CANCELLED.value})
# The finish reason of a reply stopped because the store refused to save it.
STORE_ERROR_REASON = "store-error"
# The key of a reply's reasoning-block duration in its metadata (written at the end, with the statistics).
THINKING_SECONDS = "thinking_seconds"


def _int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _opt_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: object, default: float = 0.0) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(float(value)):
        return float(value)
    return default


def _str(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _opt_seconds(value: object) -> float | None:
    """A duration read back: a finite, non-negative number, else None."""
    seconds = _float(value, -1.0)
    return seconds if seconds >= 0 else None


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class SamplingRecord:
    """The sampling settings a reply ran with (the seed is :attr:`Provenance.seed`)."""

    temperature: float = TEMPERATURE.default
    top_k: int = TOP_K.default
    top_p: float = TOP_P.default
    min_p: float = MIN_P.default
    repeat_penalty: float = REPEAT_PENALTY.default
    max_tokens: int = MAX_TOKENS.default

    def to_dict(self) -> dict[str, Any]:
        """The stored form."""
        return {
            "temperature": self.temperature,
            "top_k": self.top_k,
            "top_p": self.top_p,
            "min_p": self.min_p,
            "repeat_penalty": self.repeat_penalty,
            "max_tokens": self.max_tokens,
        }

    @classmethod
    def of(cls, params: SamplingParams, max_tokens: int) -> SamplingRecord:
        """What a reply run with ``params`` and ``max_tokens`` records."""
        return cls(params.temperature, params.top_k, params.top_p, params.min_p, params.repeat_penalty, max_tokens)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SamplingRecord:
        """Read back tolerantly: what is missing or mistyped takes the default."""
        default = cls()
        return cls(
            temperature=_float(data.get("temperature"), default.temperature),
            top_k=_int(data.get("top_k"), default.top_k),
            top_p=_float(data.get("top_p"), default.top_p),
            min_p=_float(data.get("min_p"), default.min_p),
            repeat_penalty=_float(data.get("repeat_penalty"), default.repeat_penalty),
            max_tokens=_int(data.get("max_tokens"), default.max_tokens),
        )


@dataclass(frozen=True, slots=True)
class OutputRecord:
    """The output format a reply was held to: JSON mode, or a schema by its name and the SHA-256 of its canonical JSON.

    The schema itself is not stored (it may be large; the chat's settings or
    the client have it): the hash is enough to tell whether a given schema is
    the one (:meth:`app.core.conversation.output_format.OutputFormat.schema_sha256`).
    """

    kind: OutputKind
    name: str = ""
    sha256: str = ""
    strict: bool = False

    @classmethod
    def of(cls, output: OutputFormat) -> OutputRecord | None:
        """What a reply under ``output`` records (None: free text, recorded as before)."""
        if not output.constrained:
            return None
        if output.kind is OutputKind.JSON_OBJECT:
            return cls(OutputKind.JSON_OBJECT)
        return cls(output.kind, output.name, output.schema_sha256(), output.strict)

    def to_dict(self) -> dict[str, Any]:
        """The stored form (``produced_by["output_format"]``); JSON mode is its kind alone."""
        if self.kind is OutputKind.JSON_OBJECT:
            return {"kind": self.kind.value}
        return {"kind": self.kind.value, "name": self.name, "sha256": self.sha256, "strict": self.strict}

    @classmethod
    def from_dict(cls, data: object) -> OutputRecord | None:
        """Read back tolerantly; None for free text, an older row or anything that is not a known format."""
        if not isinstance(data, Mapping):
            return None
        kind = data.get("kind")
        if kind == OutputKind.JSON_OBJECT.value:
            return cls(OutputKind.JSON_OBJECT)
        if kind != OutputKind.JSON_SCHEMA.value:
            return None
        sha = _str(data.get("sha256"))
        valid = len(sha) == 64 and all(c in "0123456789abcdef" for c in sha)
        return cls(OutputKind.JSON_SCHEMA, _str(data.get("name")), sha if valid else "", data.get("strict") is True)

    def words(self) -> str:
        """The format in words, as the reply's Info shows it."""
        if self.kind is OutputKind.JSON_OBJECT:
            return "JSON object (JSON mode)"
        name = f"“{self.name}”" if self.name else "(unnamed)"
        strict = ", strict" if self.strict else ""
        sha = f", SHA-256 {self.sha256[:16]}…" if self.sha256 else ", SHA-256 not recorded"
        return f"JSON schema {name}{strict}{sha}"


@dataclass(frozen=True, slots=True)
class Provenance:
    """What produced a reply: which pair, which drafter and draft-length policy, which settings, which seed.

    ``drafter`` is what actually drafted (a :class:`DrafterKind` value, or a
    remote server's label such as "server (Tandem)"); ``draft`` is named only
    when the draft model took part; ``seed`` is None only for a reply whose
    server drew from fresh entropy it did not report. ``attachments`` says how
    each attached file entered the prompt (whole, which chunks, or left out);
    ``output_format`` the JSON format a grammar held every token to.
    """

    target: str
    draft: str | None
    drafter: str
    draft_policy: str
    sampling: SamplingRecord | None
    system_prompt: str = ""
    seed: int | None = None
    attachments: tuple[AttachmentUse, ...] = ()
    output_format: OutputRecord | None = None  # the grammar's format (None: free text)

    def __post_init__(self) -> None:
        if self.drafter not in (DrafterKind.MODEL, DrafterKind.HYBRID) and self.draft is not None:
            object.__setattr__(self, "draft", None)  # the draft model did not take part

    def to_dict(self) -> dict[str, Any]:
        """The stored form (``meta["produced_by"]``, also in exports and ``chat --json``)."""
        out: dict[str, Any] = {
            "target": self.target,
            "draft": self.draft,
            "drafter": self.drafter,
            "draft_policy": self.draft_policy,
            "sampling": self.sampling.to_dict() if self.sampling is not None else None,
            "system_prompt": self.system_prompt,
            "seed": self.seed,
        }
        if self.attachments:  # a reply without attachments is stored as before
            out["attachments"] = [use.to_json() for use in self.attachments]
        if self.output_format is not None:  # so is a free-text reply
            out["output_format"] = self.output_format.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: object) -> Provenance | None:
        """Read back tolerantly; None when ``data`` is not a provenance at all."""
        if not isinstance(data, Mapping):
            return None
        sampling = data.get("sampling")
        return cls(
            target=_str(data.get("target")),
            draft=_opt_str(data.get("draft")),
            drafter=_str(data.get("drafter"), DrafterKind.NONE.value),
            draft_policy=_str(data.get("draft_policy"), "none"),
            sampling=SamplingRecord.from_dict(sampling) if isinstance(sampling, Mapping) else None,
            system_prompt=_str(data.get("system_prompt")),
            seed=_opt_int(data.get("seed")),
            attachments=uses_from_json(data.get("attachments")),
            output_format=OutputRecord.from_dict(data.get("output_format")),
        )


def stats_record(stats: GenerationStats) -> dict[str, Any]:
    """A reply's statistics as stored: the summary plus the draft length the last step used."""
    return {**stats.to_dict(), "last_draft_length": stats.last_draft_length}


@dataclass(frozen=True, slots=True)
class ReplyRecord:
    """A reply's metadata as the store keeps it (the ``meta`` JSON of an assistant message)."""

    pair: str = ""  # what answered, as headers show it ("target + draft", a server's model @ host)
    drafter: str = ""  # what drafted, as the footer words it ("hybrid", "none", "server (vLLM)"...)
    produced_by: Provenance | None = None
    prompt_tokens: int | None = None
    prompt_reused: int = 0  # prompt tokens the target's cache already held
    draft_prompt_reused: int | None = None  # the same for the draft model (None: no draft model)
    dropped_messages: int = 0  # oldest turns left out to fit the context
    adaptive: bool = False  # the controller chose the draft length
    demo_length: int = 0  # "show speculation anyway" drafted this many tokens every step (0: off)
    continued: int = 0  # how many times Continue grew the reply
    stats: Mapping[str, Any] | None = None  # :func:`stats_record` of the last generation
    finish_reason: str | None = None  # a FinishReason value, or STORE_ERROR_REASON
    error: str | None = None
    reasoning_inside: bool = False  # the prompt opened the reasoning block: the reply starts as thinking
    thinking_seconds: float | None = None  # how long its reasoning block took (the verify steps' time)
    edited_from: int | None = None  # the reply whose text the user changed into this one (its sibling)
    extra: Mapping[str, Any] = field(default_factory=dict)  # keys kept for others (the store's own)

    _KNOWN = (
        "pair",
        "drafter",
        "produced_by",
        "prompt_tokens",
        "prompt_reused",
        "draft_prompt_reused",
        "dropped_messages",
        "adaptive",
        "demo_length",
        "continued",
        "stats",
        "finish_reason",
        "error",
        "reasoning_inside",
        THINKING_SECONDS,
        "edited_from",
    )

    @property
    def finished(self) -> bool:
        """The reply ended with statistics (done or stopped, not failed or cut by a crash)."""
        return self.stats is not None

    @property
    def continuable(self) -> bool:
        """Cut at the token limit or stopped: Continue may grow it."""
        return self.finish_reason in CONTINUABLE_REASONS

    def stat(self, name: str, default: float = 0.0) -> float:
        """One number of the statistics (``default`` when absent or not a number)."""
        return _float((self.stats or {}).get(name), default)

    @property
    def prompt_figures(self) -> PromptFigures | None:
        """Time to first token, prefill, prompt tokens and those reused (None: a reply from before they were kept)."""
        return PromptFigures.from_dict(self.stats)

    def offers_demo(self) -> bool:
        """A finished reply in which the adaptive controller kept a model draft off at the end."""
        return (
            self.drafter in (DrafterKind.MODEL, DrafterKind.HYBRID)
            and self.adaptive
            and not self.demo_length
            and self.stat("steps") > 0
            and self.stat("last_draft_length", 1.0) == 0
        )

    def to_meta(self) -> dict[str, Any]:
        """The stored form; unset optional values are left out, as older Tandems wrote them."""
        meta: dict[str, Any] = dict(self.extra)
        meta.update(
            pair=self.pair,
            drafter=self.drafter,
            prompt_reused=self.prompt_reused,
            dropped_messages=self.dropped_messages,
            adaptive=self.adaptive,
            demo_length=self.demo_length,
        )
        if self.produced_by is not None:
            meta["produced_by"] = self.produced_by.to_dict()
        if self.prompt_tokens is not None:
            meta["prompt_tokens"] = self.prompt_tokens
        if self.draft_prompt_reused is not None:
            meta["draft_prompt_reused"] = self.draft_prompt_reused
        if self.continued:
            meta["continued"] = self.continued
        if self.stats is not None:
            meta["stats"] = dict(self.stats)
        if self.finish_reason is not None:
            meta["finish_reason"] = self.finish_reason
        if self.error is not None:
            meta["error"] = self.error
        if self.reasoning_inside:  # a reply without a block the prompt opened is stored as before
            meta["reasoning_inside"] = True
        if self.thinking_seconds is not None:
            meta[THINKING_SECONDS] = self.thinking_seconds
        if self.edited_from is not None:
            meta["edited_from"] = self.edited_from
        return meta

    @classmethod
    def from_meta(cls, meta: object) -> ReplyRecord:
        """Read a stored reply's metadata; never raises."""
        if not isinstance(meta, Mapping):
            return cls()
        stats = meta.get("stats")
        return cls(
            pair=_str(meta.get("pair")),
            drafter=_str(meta.get("drafter")),
            produced_by=Provenance.from_dict(meta.get("produced_by")),
            prompt_tokens=_opt_int(meta.get("prompt_tokens")),
            prompt_reused=_int(meta.get("prompt_reused")),
            draft_prompt_reused=_opt_int(meta.get("draft_prompt_reused")),
            dropped_messages=_int(meta.get("dropped_messages")),
            adaptive=meta.get("adaptive") is True,
            demo_length=_int(meta.get("demo_length")),
            continued=_int(meta.get("continued")),
            stats=dict(stats) if isinstance(stats, Mapping) else None,
            finish_reason=_opt_str(meta.get("finish_reason")),
            error=_opt_str(meta.get("error")),
            reasoning_inside=meta.get("reasoning_inside") is True,
            thinking_seconds=_opt_seconds(meta.get(THINKING_SECONDS)),
            edited_from=_opt_int(meta.get("edited_from")),
            extra={key: value for key, value in meta.items() if key not in cls._KNOWN},
        )
