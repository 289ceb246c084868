"""One token of a reply as JSON, and back: the one spelling ``chat --json``, ``serve`` and exports share.

``{"id", "text", "origin", "p_target", "q_draft", "source"}``, ``"copied_from"`` for a token prompt lookup copied
(where from: "report.pdf, p. 3" or "earlier in this chat") and, for a
corrected token whose draft the target turned down, ``"rejected": {"text",
"p_target", "q_draft"}``. ``p_target`` is ``null`` where nobody knows it (a
remote server's tokens; JSON has no NaN), ``id`` where the token id is not
kept (the store keeps text, not ids). :meth:`TokenRecord.from_json` is the
inverse; it reads older files (no ``id``, ``source`` or ``copied_from``) and refuses anything
else with a :class:`ValueError` naming what is wrong, so a reader can say so
in one line.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.core.decoding.events import EmittedToken, RejectedProposal, StepEvent, TokenOrigin

UNKNOWN_P = float("nan")  # p_target nobody reported


def _number(raw: Mapping[str, Any], key: str, what: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
        raise ValueError(f"{what} has a {key} that is not a number")
    return float(value)


@dataclass(frozen=True, slots=True)
class RejectedRecord:
    """The draft proposal a corrected token replaced."""

    text: str
    p_target: float | None
    q_draft: float | None

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"text": self.text, "p_target": self.p_target, "q_draft": self.q_draft}


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """A token as the JSON formats carry it (see the module's docstring)."""

    text: str
    origin: TokenOrigin | str  # an origin this Tandem does not know stays text (a hand-edited file)
    p_target: float = UNKNOWN_P
    q_draft: float | None = None
    id: int | None = None
    source: str | None = None  # which drafter proposed an accepted draft token: "model" or "lookup"
    rejected: RejectedRecord | None = None
    copied_from: str | None = None  # where prompt lookup copied an accepted token from

    @classmethod
    def of(cls, token: EmittedToken, rejected: RejectedProposal | None = None) -> TokenRecord:
        """The record of a generated token (and of the proposal it replaced, if any)."""
        proposal = None
        if rejected is not None:
            proposal = RejectedRecord(rejected.text, float(rejected.p_target), float(rejected.q_draft))
        q = None if token.q_draft is None else float(token.q_draft)
        return cls(
            token.text, token.origin, float(token.p_target), q, token.id, token.source, proposal, token.copied_from
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON object; ``rejected`` only where there is one."""
        out: dict[str, Any] = {
            "id": self.id,
            "text": self.text,
            "origin": str(self.origin),
            "p_target": None if math.isnan(self.p_target) else self.p_target,
            "q_draft": self.q_draft,
            "source": self.source,
        }
        if self.copied_from is not None:  # only a token prompt lookup copied has one
            out["copied_from"] = self.copied_from
        if self.rejected is not None:
            out["rejected"] = self.rejected.to_json()
        return out

    @classmethod
    def from_json(cls, raw: object, what: str = "a token", known_origins_only: bool = True) -> TokenRecord:
        """Read one token back; :class:`ValueError` (naming ``what``) for anything that is not one.

        ``known_origins_only=False`` keeps an unknown origin as text instead of refusing it.
        """
        if not isinstance(raw, Mapping):
            raise ValueError(f"{what} is not an object")
        text = raw.get("text")
        if not isinstance(text, str):
            raise ValueError(f"{what} lacks its text")
        origin_text = raw.get("origin", TokenOrigin.TARGET.value)
        if not isinstance(origin_text, str):
            raise ValueError(f"{what} has an origin that is not text")
        origin: TokenOrigin | str
        try:
            origin = TokenOrigin(origin_text)
        except ValueError:
            if known_origins_only:
                known = ", ".join(o.value for o in TokenOrigin)
                raise ValueError(f"{what} has the origin {origin_text[:40]!r}, not one of {known}") from None
            origin = origin_text
        p = _number(raw, "p_target", what)
        q = _number(raw, "q_draft", what)
        token_id = raw.get("id")
        if token_id is not None and (isinstance(token_id, bool) or not isinstance(token_id, int)):
            raise ValueError(f"{what} has an id that is not a whole number")
        source = raw.get("source")
        if source is not None and not isinstance(source, str):
            raise ValueError(f"{what} has a source that is not text")
        copied_from = raw.get("copied_from")
        if copied_from is not None and not isinstance(copied_from, str):
            raise ValueError(f"{what} has a copied_from that is not text")
        rejected = None
        proposal = raw.get("rejected")
        if proposal is not None:
            if not isinstance(proposal, Mapping) or not isinstance(proposal.get("text"), str):
                raise ValueError(f"{what} has a rejected proposal without text")
            where = f"the rejected proposal of {what}"
            rejected = RejectedRecord(
                proposal["text"], _number(proposal, "p_target", where), _number(proposal, "q_draft", where)
            )
        return cls(text, origin, UNKNOWN_P if p is None else p, q, token_id, source, rejected, copied_from)

    def emitted(self, unknown_id: int = -1) -> EmittedToken:
        """The token as the decoder's events carry it (an unknown origin reads as the target's)."""
        origin = self.origin if isinstance(self.origin, TokenOrigin) else TokenOrigin.TARGET
        token_id = unknown_id if self.id is None else self.id
        return EmittedToken(token_id, self.text, origin, self.p_target, self.q_draft, self.source, self.copied_from)


def step_records(event: StepEvent) -> list[TokenRecord]:
    """The tokens of one verify step, the rejected proposal attached to the token that replaced it."""
    rejected = event.rejected
    return [
        TokenRecord.of(token, rejected if rejected is not None and i == rejected.position else None)
        for i, token in enumerate(event.tokens)
    ]
