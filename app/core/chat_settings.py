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
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.core.decoding.sampling import SamplingParams

DRAFTERS = ("hybrid", "model", "ngram", "none")
MAX_DRAFT_LENGTH = 32


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(float(value))  # type: ignore[arg-type]


# Each field's test of a value; a value that fails it is replaced by the default.
_VALID: dict[str, Callable[[Any], bool]] = {
    "system_prompt": lambda v: isinstance(v, str),
    "temperature": lambda v: _is_number(v) and 0.0 <= float(v) <= 100.0,
    "top_k": lambda v: _is_int(v) and v >= 0,
    "top_p": lambda v: _is_number(v) and 0.0 < float(v) <= 1.0,
    "min_p": lambda v: _is_number(v) and 0.0 <= float(v) < 1.0,
    "repeat_penalty": lambda v: _is_number(v) and 0.0 < float(v) <= 100.0,
    "seed": lambda v: _is_int(v) and -1 <= v < 2**63,
    "max_tokens": lambda v: _is_int(v) and v >= 1,
    "drafter": lambda v: v in DRAFTERS,
    "draft_length": lambda v: _is_int(v) and 1 <= v <= MAX_DRAFT_LENGTH,
    "adaptive": lambda v: isinstance(v, bool),
}
_FLOATS = frozenset({"temperature", "top_p", "min_p", "repeat_penalty"})


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """One chat's generation settings; ``seed == -1`` means a fresh random seed for every reply.

    Constructing one with an invalid value raises :class:`ValueError`;
    :meth:`from_dict` is the tolerant way in.
    """

    system_prompt: str = ""
    temperature: float = 0.0
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    repeat_penalty: float = 1.0
    seed: int = -1
    max_tokens: int = 512
    drafter: str = "hybrid"  # "hybrid" (lookup where trusted, else the draft model) | "model" | "ngram" | "none"
    draft_length: int = 4  # fixed length, or the adaptive controller's upper bound
    adaptive: bool = True

    def __post_init__(self) -> None:
        for name, valid in _VALID.items():
            if not valid(getattr(self, name)):
                raise ValueError(f"invalid chat setting {name}={getattr(self, name)!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, every field present."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> ChatSettings:
        """Settings from a stored dict: unknown keys ignored, bad or missing values defaulted; never raises."""
        if not isinstance(data, Mapping):
            return cls()
        values: dict[str, Any] = {}
        for name, valid in _VALID.items():
            value: Any = data.get(name)
            try:
                ok = value is not None and valid(value)
            except (TypeError, ValueError, OverflowError):
                ok = False
            if ok:
                values[name] = float(value) if name in _FLOATS else value
        return cls(**values)

    def with_changes(self, **changes: Any) -> ChatSettings:
        """A copy with some fields changed (validated like the constructor)."""
        return dataclasses.replace(self, **changes)

    def sampling_params(self) -> SamplingParams:
        """The sampling transform's parameters; seed -1 becomes None (a fresh random seed)."""
        return SamplingParams(
            temperature=self.temperature,
            top_k=self.top_k,
            top_p=self.top_p,
            min_p=self.min_p,
            repeat_penalty=self.repeat_penalty,
            seed=None if self.seed == -1 else self.seed,
        )
