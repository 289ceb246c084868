"""What one chat is generated with: its system prompt, sampling settings and drafter.

A chat's settings belong to the chat (stored with the conversation as the
dict of :meth:`ChatSettings.to_dict`), so changing them for one chat never
silently changes an old one. :meth:`ChatSettings.from_dict` reads whatever a
database, an import or an older Tandem left there and never raises: an
unknown key is ignored, and a missing, mistyped or out-of-range value falls
back to its default, because a chat must always open.

What a reply records of what produced it is :mod:`app.core.reply.record`'s
(:class:`~app.core.reply.record.Provenance`), planned from these settings by
:mod:`app.engine.reply`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.core.decoding.drafters import DrafterKind
from app.core.decoding.sampling import (
    MAX_TOKENS,
    MIN_P,
    REPEAT_PENALTY,
    SEED,
    TEMPERATURE,
    TOP_K,
    TOP_P,
    SamplingField,
    SamplingParams,
    seed_from_setting,
)

MAX_DRAFT_LENGTH = 32

# The chat's numeric generation settings, each with its one range and default (app.core.decoding.sampling).
SAMPLING_FIELDS: tuple[SamplingField[Any], ...] = (TEMPERATURE, TOP_K, TOP_P, MIN_P, REPEAT_PENALTY, SEED, MAX_TOKENS)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# The other fields' tests of a value; a value that fails its test is replaced by the default.
_VALID: dict[str, Callable[[Any], bool]] = {
    "system_prompt": lambda v: isinstance(v, str),
    "drafter": lambda v: isinstance(v, DrafterKind),
    "draft_length": lambda v: _is_int(v) and 1 <= v <= MAX_DRAFT_LENGTH,
    "adaptive": lambda v: isinstance(v, bool),
    "json_schema": lambda v: isinstance(v, str),
}


def _drafter_of(value: object) -> DrafterKind | None:
    """The drafter a stored name means (None: not one of the names)."""
    try:
        return DrafterKind(value) if isinstance(value, str) else None
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """One chat's generation settings; ``seed == -1`` means a fresh random seed for every reply.

    Constructing one with an invalid value raises :class:`ValueError`;
    :meth:`from_dict` is the tolerant way in.
    """

    system_prompt: str = ""
    temperature: float = TEMPERATURE.default
    top_k: int = TOP_K.default
    top_p: float = TOP_P.default
    min_p: float = MIN_P.default
    repeat_penalty: float = REPEAT_PENALTY.default
    seed: int = SEED.default
    max_tokens: int = MAX_TOKENS.default
    drafter: DrafterKind = DrafterKind.HYBRID  # hybrid: prompt lookup where trusted, else the draft model
    draft_length: int = 4  # fixed length, or the adaptive controller's upper bound
    adaptive: bool = True
    # Structured output: a JSON schema (its text) every reply must match; empty: free text
    # (app.core.conversation.output_format).
    json_schema: str = ""

    def __post_init__(self) -> None:
        for spec in SAMPLING_FIELDS:
            spec.check(getattr(self, spec.name))
        for name, valid in _VALID.items():
            if not valid(getattr(self, name)):
                raise ValueError(f"invalid chat setting {name}={getattr(self, name)!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, every field present (the drafter as its name)."""
        return {**dataclasses.asdict(self), "drafter": self.drafter.value}

    @classmethod
    def from_dict(cls, data: object) -> ChatSettings:
        """Settings from a stored dict: unknown keys ignored, bad or missing values defaulted; never raises."""
        if not isinstance(data, Mapping):
            return cls()
        values: dict[str, Any] = {}
        for spec in SAMPLING_FIELDS:
            number = spec.coerce(data.get(spec.name))  # None when missing, mistyped or out of range
            if number is not None:
                values[spec.name] = number
        for name, valid in _VALID.items():
            value: Any = data.get(name)
            if name == "drafter":  # stored as its name
                value = _drafter_of(value)
            try:
                ok = value is not None and valid(value)
            except (TypeError, ValueError, OverflowError):
                ok = False
            if ok:
                values[name] = value
        return cls(**values)

    def with_changes(self, **changes: Any) -> ChatSettings:
        """A copy with some fields changed (validated like the constructor)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_sampling(cls, params: SamplingParams, **others: Any) -> ChatSettings:
        """Settings with ``params``' sampling (its seed, None meaning random) and ``others`` for the rest."""
        return cls(
            temperature=params.temperature,
            top_k=params.top_k,
            top_p=params.top_p,
            min_p=params.min_p,
            repeat_penalty=params.repeat_penalty,
            seed=params.seed if params.seed is not None else -1,
            **others,
        )

    def sampling_params(self) -> SamplingParams:
        """The sampling transform's parameters; seed -1 becomes None (a fresh random seed)."""
        return SamplingParams(
            temperature=self.temperature,
            top_k=self.top_k,
            top_p=self.top_p,
            min_p=self.min_p,
            repeat_penalty=self.repeat_penalty,
            seed=seed_from_setting(self.seed),
        )
