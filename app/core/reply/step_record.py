"""One verify step of a reply as it is kept for replay: what was drafted, what the target made of it, the coin.

A :class:`StepRecord` holds what the step view, ``chats steps`` and the
consistency tests need, and nothing the reply's tokens already hold twice:

- who proposed (``drafter``: "model", "lookup" or None when nothing was
  drafted; for a lookup the length of the match it copied after), the draft
  length the policy asked for and the policy's reason in words;
- each drafted token with ``q_draft`` (the drafter's probability of it),
  ``p_target`` (the target's, at the same position) and, at T > 0, the
  uniform ``coin`` the accept test drew: kept when ``coin < min(1, p/q)``.
  A greedy step draws no coin: a token is kept when it is the target's
  argmax, which the record names (``target_top``) where it was not kept;
- the outcome: on a rejection the largest entries of the residual
  distribution normalise(max(0, p_target - q_draft)) with the token sampled
  from it; after a fully accepted draft (or with no draft) the target's own
  largest entries with the token drawn from them (the bonus);
- the step's draft and verify time.

Probabilities are the warped distributions the decoder used (temperature,
top-k/p, penalties), so the accept test can be re-checked from the record.
:meth:`StepRecord.to_json` / :meth:`StepRecord.from_json` are the stored
spelling (the store, exports, the HTML export): short keys keep a
1,000-token reply's records small. :meth:`StepRecord.to_public_json` is the
spelling handed to scripts (``chats steps --json``): the same content under
descriptive keys (``p_target``, ``q_draft``, ``accepted``, ``coin``), every
key present; it is output only, never read back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# How many of a distribution's largest entries a record keeps.
TOP_ENTRIES = 5


def _num(raw: Mapping[str, Any], key: str, what: str, optional: bool = False) -> float | None:
    value = raw.get(key)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
        raise ValueError(f"{what} has a {key!r} that is not a number")
    return float(value)


def _text(raw: Mapping[str, Any], key: str, what: str, optional: bool = False) -> str | None:
    value = raw.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{what} has a {key!r} that is not text")
    return value


def _items(raw: Mapping[str, Any], key: str, what: str) -> list[Any]:
    value = raw.get(key, [])
    if not isinstance(value, list):
        raise ValueError(f"{what} has a {key!r} that is not a list")
    return value


@dataclass(frozen=True, slots=True)
class TopEntry:
    """One entry of a distribution: a token's text and its probability."""

    text: str
    p: float

    def to_json(self) -> list[Any]:
        """``[text, p]``."""
        return [self.text, round(self.p, 6)]

    def to_public_json(self) -> dict[str, Any]:
        """``{"text", "p"}``: the spelling for scripts."""
        return {"text": self.text, "p": round(self.p, 6)}

    @classmethod
    def from_json(cls, raw: object, what: str) -> TopEntry:
        """The inverse of :meth:`to_json`."""
        if not isinstance(raw, list) or len(raw) != 2 or not isinstance(raw[0], str):
            raise ValueError(f"{what} is not a [text, p] pair")
        p = _num({"p": raw[1]}, "p", what)
        assert p is not None
        return cls(raw[0], p)


@dataclass(frozen=True, slots=True)
class DraftedRecord:
    """One drafted token and the accept test it met."""

    text: str
    q_draft: float
    p_target: float
    accepted: bool
    coin: float | None = None  # the uniform draw at T > 0; None for a greedy step
    target_top: str | None = None  # greedy: the target's argmax where it differed from the draft

    @property
    def accept_probability(self) -> float:
        """min(1, p_target / q_draft): the chance this token had of being kept."""
        if self.q_draft <= 0.0:
            return 0.0 if self.p_target <= 0.0 else 1.0
        return min(1.0, self.p_target / self.q_draft)

    def to_json(self) -> dict[str, Any]:
        """The stored object (absent keys are None)."""
        out: dict[str, Any] = {"t": self.text, "q": round(self.q_draft, 6), "p": round(self.p_target, 6)}
        out["a"] = 1 if self.accepted else 0
        if self.coin is not None:
            out["u"] = round(self.coin, 6)
        if self.target_top is not None:
            out["top"] = self.target_top
        return out

    def to_public_json(self) -> dict[str, Any]:
        """The spelling for scripts: descriptive keys, all present (``coin`` and ``target_top`` may be null)."""
        return {
            "text": self.text,
            "q_draft": round(self.q_draft, 6),
            "p_target": round(self.p_target, 6),
            "accepted": self.accepted,
            "coin": None if self.coin is None else round(self.coin, 6),
            "target_top": self.target_top,
        }

    @classmethod
    def from_json(cls, raw: object, what: str) -> DraftedRecord:
        """The inverse of :meth:`to_json`; :class:`ValueError` naming ``what`` for anything else."""
        if not isinstance(raw, Mapping):
            raise ValueError(f"{what} is not an object")
        text = _text(raw, "t", what)
        q = _num(raw, "q", what)
        p = _num(raw, "p", what)
        accepted = raw.get("a")
        if accepted not in (0, 1) or isinstance(accepted, float):
            raise ValueError(f"{what} has an 'a' that is not 0 or 1")
        assert text is not None and q is not None and p is not None
        return cls(text, q, p, bool(accepted), _num(raw, "u", what, True), _text(raw, "top", what, True))


@dataclass(frozen=True, slots=True, kw_only=True)
class StepRecord:
    """One verify step, as the module's docstring describes."""

    index: int  # the step's place in the reply, from 0
    first_token: int  # the index among the reply's tokens of the first token this step emitted
    n_emitted: int  # how many tokens the step added to the reply
    drafter: str | None  # "model", "lookup", or None when nothing was drafted
    draft_length: int  # the length the policy asked for
    reason: str  # the policy's reason for that length, in words
    greedy: bool
    drafted: tuple[DraftedRecord, ...] = ()
    lookup_match: int | None = None  # a lookup's match length (tokens) when the drafter was "lookup"
    # On a rejection: the residual's largest entries and the token drawn from it (the correction).
    residual_top: tuple[TopEntry, ...] = ()
    correction: TopEntry | None = None
    # After a fully accepted draft, or with none: the target's largest entries and the token drawn.
    bonus_top: tuple[TopEntry, ...] = ()
    bonus: TopEntry | None = None
    draft_ms: float = 0.0
    verify_ms: float = 0.0

    @property
    def n_accepted(self) -> int:
        """Drafted tokens kept."""
        return sum(1 for token in self.drafted if token.accepted)

    @property
    def rejected_at(self) -> int | None:
        """The draft position the target turned down, or None when every drafted token was kept."""
        for i, token in enumerate(self.drafted):
            if not token.accepted:
                return i
        return None

    def to_json(self) -> dict[str, Any]:
        """The stored object: short keys, defaults left out."""
        out: dict[str, Any] = {
            "i": self.index,
            "f": self.first_token,
            "n": self.n_emitted,
            "k": self.draft_length,
            "why": self.reason,
        }
        if self.drafter is not None:
            out["by"] = self.drafter
        if self.greedy:
            out["g"] = 1
        if self.drafted:
            out["d"] = [token.to_json() for token in self.drafted]
        if self.lookup_match is not None:
            out["m"] = self.lookup_match
        if self.residual_top:
            out["r"] = [entry.to_json() for entry in self.residual_top]
        if self.correction is not None:
            out["c"] = self.correction.to_json()
        if self.bonus_top:
            out["b"] = [entry.to_json() for entry in self.bonus_top]
        if self.bonus is not None:
            out["x"] = self.bonus.to_json()
        out["ms"] = [round(self.draft_ms, 3), round(self.verify_ms, 3)]
        return out

    def to_public_json(self) -> dict[str, Any]:
        """The spelling for scripts (``chats steps --json``): descriptive keys, every one present."""
        return {
            "index": self.index,
            "first_token": self.first_token,
            "emitted": self.n_emitted,
            "drafter": self.drafter,
            "draft_length": self.draft_length,
            "reason": self.reason,
            "greedy": self.greedy,
            "drafted": [token.to_public_json() for token in self.drafted],
            "kept": self.n_accepted,
            "lookup_match": self.lookup_match,
            "residual_top": [entry.to_public_json() for entry in self.residual_top],
            "correction": None if self.correction is None else self.correction.to_public_json(),
            "bonus_top": [entry.to_public_json() for entry in self.bonus_top],
            "bonus": None if self.bonus is None else self.bonus.to_public_json(),
            "draft_ms": round(self.draft_ms, 3),
            "verify_ms": round(self.verify_ms, 3),
        }

    @classmethod
    def from_json(cls, raw: object, what: str = "a step") -> StepRecord:
        """The inverse of :meth:`to_json`; :class:`ValueError` naming ``what`` for anything that is not one."""
        if not isinstance(raw, Mapping):
            raise ValueError(f"{what} is not an object")
        numbers: dict[str, int] = {}
        for key in ("i", "f", "n", "k"):
            value = raw.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{what} has a {key!r} that is not a whole number")
            numbers[key] = value
        reason = _text(raw, "why", what)
        drafter = _text(raw, "by", what, True)
        match = raw.get("m")
        if match is not None and (isinstance(match, bool) or not isinstance(match, int)):
            raise ValueError(f"{what} has an 'm' that is not a whole number")
        times = raw.get("ms", [0.0, 0.0])
        if not isinstance(times, list) or len(times) != 2:
            raise ValueError(f"{what} has an 'ms' that is not [draft, verify]")
        draft_ms = _num({"ms": times[0]}, "ms", what)
        verify_ms = _num({"ms": times[1]}, "ms", what)
        assert reason is not None and draft_ms is not None and verify_ms is not None
        return cls(
            index=numbers["i"],
            first_token=numbers["f"],
            n_emitted=numbers["n"],
            drafter=drafter,
            draft_length=numbers["k"],
            reason=reason,
            greedy=raw.get("g") == 1,
            drafted=tuple(
                DraftedRecord.from_json(item, f"drafted token {n} of {what}")
                for n, item in enumerate(_items(raw, "d", what))
            ),
            lookup_match=match,
            residual_top=_entries(raw, "r", what),
            correction=_entry(raw, "c", what),
            bonus_top=_entries(raw, "b", what),
            bonus=_entry(raw, "x", what),
            draft_ms=draft_ms,
            verify_ms=verify_ms,
        )


def _entries(raw: Mapping[str, Any], key: str, what: str) -> tuple[TopEntry, ...]:
    return tuple(TopEntry.from_json(item, f"an entry of {what}") for item in _items(raw, key, what))


def _entry(raw: Mapping[str, Any], key: str, what: str) -> TopEntry | None:
    value = raw.get(key)
    return None if value is None else TopEntry.from_json(value, f"the {key!r} entry of {what}")


def step_of_token(steps: Sequence[StepRecord], token_index: int) -> StepRecord | None:
    """The step that emitted the reply's token ``token_index`` (steps in order), or None."""
    for step in steps:
        if step.first_token <= token_index < step.first_token + step.n_emitted:
            return step
    return None
