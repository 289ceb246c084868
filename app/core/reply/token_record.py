"""One token of a reply: the record the decoder emits, the store keeps, the view paints and every JSON format spells.

As JSON (``chat --json``, ``serve``, exports, the remote reader): ``{"id",
"text", "origin", "p_target", "q_draft", "source"}``, ``"copied_from"`` for a
token prompt lookup copied (where from: "report.pdf, p. 3" or "earlier in this
chat") and, for a corrected token whose draft the target turned down,
``"rejected": {"text", "p_target", "q_draft"}``. ``p_target`` is ``null``
where nobody knows it (a remote server's tokens; JSON has no NaN), ``id``
where the token id is not kept (the store keeps text, not ids).
:meth:`TokenRecord.from_json` is the inverse and the one reader of stored or
received tokens; it reads older files (no ``id``, ``source`` or
``copied_from``) and refuses anything else with a :class:`ValueError` naming
what is wrong, so a reader can say so in one line.

The decoder builds one record per emitted token on its hot path, so building
one checks nothing: the reader checks what comes from outside.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.core.decoding.events import TokenOrigin

UNKNOWN_P = float("nan")  # p_target nobody reported


def _number(raw: Mapping[str, Any], key: str, what: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
        raise ValueError(f"{what} has a {key} that is not a number")
    return float(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class RejectedProposal:
    """The draft token the target turned down where it sampled a corrected token: ghost text and tooltips."""

    text: str
    p_target: float | None  # None: a stored or imported proposal that did not keep it
    q_draft: float | None
    id: int | None = None  # the decoder knows it; no stored form keeps it

    def to_json(self) -> dict[str, Any]:
        """The stored form (without the id)."""
        return {"text": self.text, "p_target": self.p_target, "q_draft": self.q_draft}


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenRecord:
    """One token of a reply with its text piece, its origin and the probabilities behind it."""

    id: int | None = None  # None where the id is not kept (the store, an export)
    text: str
    origin: TokenOrigin | str  # an origin this Tandem does not know stays text (a hand-edited file or row)
    p_target: float = UNKNOWN_P
    q_draft: float | None = None
    # Which drafter proposed an accepted draft token ("model" or "lookup"); None for the target's own tokens.
    source: str | None = None
    # For a token prompt lookup proposed: where it was copied from ("report.pdf, p. 3", "earlier in this chat").
    copied_from: str | None = None
    rejected: RejectedProposal | None = None  # on a corrected token: the draft it replaced

    def to_json(self, with_rejected: bool = True) -> dict[str, Any]:
        """The JSON object; ``rejected`` only where there is one and ``with_rejected`` (``serve`` sends none)."""
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
        if self.rejected is not None and with_rejected:
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
            rejected = RejectedProposal(
                text=proposal["text"],
                p_target=_number(proposal, "p_target", where),
                q_draft=_number(proposal, "q_draft", where),
            )
        return cls(
            id=token_id,
            text=text,
            origin=origin,
            p_target=UNKNOWN_P if p is None else p,
            q_draft=q,
            source=source,
            copied_from=copied_from,
            rejected=rejected,
        )
